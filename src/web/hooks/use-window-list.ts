/**
 * A list that only mounts the items near the viewport (`@tanstack/react-virtual` over the window), so
 * 5,000 loaded rows cost about as much DOM as 20 (ADR 0033). The page keeps its own scrollbar: the
 * list's container holds the full height (`totalSize`), and where the list starts on the page
 * (`scrollMargin`) is re-read whenever the page's height changes (filters, charts loading above it).
 */
import { useWindowVirtualizer, windowScroll } from "@tanstack/react-virtual";
import { useEffect, useRef, useState } from "react";
import { cookieValue, setPreferenceCookie } from "@/lib/cookies";
import { documentCookie, ON_SERVER, serverViewport } from "@/lib/prerender";

export interface WindowListOptions {
  count: number;
  /** Height of an item in px; an item mounted with `ref={virtualizer.measureElement}` and `data-index` is measured. */
  estimateSize: number;
  getItemKey: (index: number) => string | number;
  /** Gap between items, px. */
  gap?: number;
  /** Items rendered beyond each edge of the viewport. */
  overscan?: number;
  /** Up to this many items every one is mounted (the browser's find-in-page sees a short list whole). */
  renderAllBelow?: number;
  /** Called when the last item is rendered (the end of what is loaded is near): load the next page. */
  onEndReached?: () => void;
  /**
   * A cookie that keeps where the list started on the page when it was last mounted, so that the next
   * load (the server's picture, ADR 0047, and the app's first render) mounts the rows the window shows
   * below it, not a window's worth counted from the page's top (16 rows at 800 px where 9 show).
   */
  rememberTopAs?: string;
}

/** Where a list began on the page at its last mount (`rememberTopAs`), else the page's top. */
function rememberedTop(cookie: string | undefined): number {
  const value = cookie ? cookieValue(documentCookie(), cookie) : undefined;
  return value && /^\d{1,4}$/.test(value) ? Number(value) : 0;
}

/**
 * The window's scroll writes, without the ones to where it already is. On mount the virtualizer writes the
 * offset it just read (`window.scrollY`) back to the window: a no-op for the browser, but Chromium lays the
 * page out for a `scrollTo` that gives `top` alone, inside the commit that mounted the rows (a forced style and
 * layout of the whole page, in /extensions' longest task at 5,000 rows). Comparing with
 * the offset the virtualizer holds reads nothing from the page; a real move (to an item, a correction above
 * the window) is written.
 */
const scrollUnlessThere: typeof windowScroll = (offset, options, instance) => {
  const target = offset + (options.adjustments ?? 0);
  if (options.behavior !== "smooth" && !instance.isScrolling && target === instance.scrollOffset) return;
  windowScroll(offset, options, instance);
};

export function useWindowList<E extends HTMLElement>({
  count,
  estimateSize,
  getItemKey,
  gap = 0,
  overscan = 6,
  renderAllBelow = 0,
  onEndReached,
  rememberTopAs,
}: WindowListOptions) {
  const ref = useRef<E>(null);
  const [scrollMargin, setScrollMargin] = useState(() => rememberedTop(rememberTopAs));

  // Read by the observer, which reports once as soon as it observes, after the browser's own layout: reading
  // it in a layout effect instead forces a layout of the whole new screen and a second render in the task
  // that mounts it, most of that task's time with a long list. Until then the list counts from where it began
  // last time (`rememberTopAs`) or from the page's top, which mounts the rows on screen and a few more.
  // The cookie keeps the highest place seen since the list mounted: what appears above the list later (the
  // web dialer's notice a moment after the rows, a selection bar) may not be there when the next load is
  // drawn, and a row too many costs less than a gap at the window's bottom.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let highest = Number.POSITIVE_INFINITY;
    const observer = new ResizeObserver(() => {
      const top = Math.round(el.getBoundingClientRect().top + window.scrollY);
      setScrollMargin(top);
      if (top >= highest) return;
      highest = top;
      if (rememberTopAs && top !== rememberedTop(rememberTopAs)) setPreferenceCookie(rememberTopAs, `${top}`);
    });
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [rememberTopAs]);

  const virtualizer = useWindowVirtualizer({
    count,
    estimateSize: () => estimateSize,
    getItemKey,
    gap,
    // The server's picture (ADR 0047) holds the rows its window shows and one more (the list may start a
    // little higher than last time: a notice above it gone).
    overscan: count <= renderAllBelow ? count : ON_SERVER ? 1 : overscan,
    scrollMargin,
    // The window's size from the start: left at its default (0 × 0), the virtualizer learns it in its
    // layout effect and renders the whole list again synchronously in the task that mounts it (a large
    // part of a warm /extensions' largest task with a long list). Reading innerWidth/innerHeight forces no layout once
    // the page has been laid out, as it has when a list renders (before, it does: `rememberViewport`).
    initialRect: ON_SERVER ? serverViewport() : { width: window.innerWidth, height: window.innerHeight },
    scrollToFn: scrollUnlessThere,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;
  const endReached = count > 0 && lastIndex >= count - 1;

  useEffect(() => {
    if (endReached) onEndReached?.();
  }, [endReached, onEndReached]);

  return {
    ref,
    virtualizer,
    items,
    totalSize: virtualizer.getTotalSize(),
    /** Where the first mounted item starts inside the container, px. */
    offset: (items[0]?.start ?? scrollMargin) - scrollMargin,
    /** Below the last mounted item, px (a table's bottom spacer row). */
    after: items.length ? virtualizer.getTotalSize() - ((items[items.length - 1]?.end ?? 0) - scrollMargin) : 0,
  };
}

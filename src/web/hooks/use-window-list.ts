/**
 * A list that only mounts the items near the viewport (`@tanstack/react-virtual` over the window), so
 * 5,000 loaded rows cost about as much DOM as 20 (ADR 0033). The page keeps its own scrollbar: the
 * list's container holds the full height (`totalSize`), and where the list starts on the page
 * (`scrollMargin`) is re-read whenever the page's height changes (filters, charts loading above it).
 */
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, useState } from "react";
import { ON_SERVER, serverViewport } from "@/lib/prerender";

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
}

export function useWindowList<E extends HTMLElement>({
  count,
  estimateSize,
  getItemKey,
  gap = 0,
  overscan = 6,
  renderAllBelow = 0,
  onEndReached,
}: WindowListOptions) {
  const ref = useRef<E>(null);
  const [scrollMargin, setScrollMargin] = useState(0);

  // Read by the observer, which reports once as soon as it observes, after the browser's own layout: reading
  // it in a layout effect instead forced a layout of the whole new screen and a second render in the task
  // that mounted it (most of a 50 ms task at 5,000 rows). Until then the list counts from the page's top,
  // which mounts the rows on screen and a few more.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() =>
      setScrollMargin(Math.round(el.getBoundingClientRect().top + window.scrollY)),
    );
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  const virtualizer = useWindowVirtualizer({
    count,
    estimateSize: () => estimateSize,
    getItemKey,
    gap,
    // The server's picture (ADR 0047) holds the rows its window shows, and no more.
    overscan: count <= renderAllBelow ? count : ON_SERVER ? 0 : overscan,
    scrollMargin,
    // The window's size from the start: left at its default (0 × 0), the virtualizer learnt it in its
    // layout effect and re-rendered the whole list synchronously in the task that mounted it (~40 ms of
    // a warm /extensions' largest task at 5,000 rows). Reading innerWidth/innerHeight forces no layout.
    initialRect: ON_SERVER ? serverViewport() : { width: window.innerWidth, height: window.innerHeight },
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

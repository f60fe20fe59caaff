import { type RefObject, useLayoutEffect, useState } from "react";
import { columnsFor, type RowWindow, rowWindow } from "./grid-window";

export interface WindowGridOptions {
  itemCount: number;
  minColumnWidth: number;
  maxColumns: number;
  rowHeight: number;
  gap: number;
  /** Rows rendered beyond each edge of the viewport. */
  overscan: number;
  /** Up to this many items everything is rendered (browser find-in-page keeps working). */
  renderAllBelow: number;
}

/**
 * Which rows of a fixed-row-height grid to render. The column count follows the
 * container's width (ResizeObserver); the rows follow the container's position
 * in the viewport, re-read on any scroll (captured, so whichever ancestor
 * scrolls) or resize, at most once per animation frame.
 */
export function useWindowGrid(ref: RefObject<HTMLElement | null>, opts: WindowGridOptions) {
  const { itemCount, minColumnWidth, maxColumns, rowHeight, gap, overscan, renderAllBelow } = opts;
  const [width, setWidth] = useState(0);
  const columns = columnsFor(width, minColumnWidth, gap, maxColumns);
  const layout = { columns, rowHeight, gap };
  const [win, setWin] = useState<RowWindow>(() => rowWindow(itemCount, layout, 0, 1000, overscan));

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.getBoundingClientRect().width);
    const observer = new ResizeObserver((entries) => {
      const entry = entries[0];
      if (entry) setWidth(entry.contentRect.width);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const grid = { columns, rowHeight, gap };
    let frame = 0;
    const measure = () => {
      frame = 0;
      const next =
        itemCount <= renderAllBelow
          ? rowWindow(itemCount, grid, 0, Number.POSITIVE_INFINITY, 0)
          : rowWindow(itemCount, grid, el.getBoundingClientRect().top, window.innerHeight, overscan);
      setWin((prev) =>
        prev.startRow === next.startRow &&
        prev.endRow === next.endRow &&
        prev.rowCount === next.rowCount &&
        prev.totalHeight === next.totalHeight
          ? prev
          : next,
      );
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    document.addEventListener("scroll", schedule, { capture: true, passive: true });
    window.addEventListener("resize", schedule);
    return () => {
      document.removeEventListener("scroll", schedule, { capture: true });
      window.removeEventListener("resize", schedule);
      cancelAnimationFrame(frame);
    };
  }, [ref, itemCount, columns, rowHeight, gap, overscan, renderAllBelow]);

  return { columns, ...win };
}

import { type ReactNode, useLayoutEffect, useMemo, useState } from "react";
import { useWindowList } from "@/hooks/use-window-list";

const ROW_HEIGHT = 184;
const GAP = 16;
const MIN_COLUMN_WIDTH = 260;
const MAX_COLUMNS = 4;
const OVERSCAN_ROWS = 3;
/** Up to this many items every card is mounted (browser find-in-page keeps working). */
const RENDER_ALL_BELOW = 120;

/** As many columns of at least `minColumnWidth` as fit in `width`, between 1 and `maxColumns`. */
export function columnsFor(width: number, minColumnWidth: number, gap: number, maxColumns: number): number {
  if (!(width > 0)) return 1;
  return Math.max(1, Math.min(maxColumns, Math.floor((width + gap) / (minColumnWidth + gap))));
}

/**
 * A card grid that only mounts the rows near the viewport (`@tanstack/react-virtual` over the window,
 * one virtual item per row of cards), so 5,000 extensions cost about as much DOM as 50. The container
 * keeps the full height, so the page's own scrollbar, Home/End and scroll position behave as usual; the
 * column count follows the container's width.
 */
export function VirtualGrid<T>({
  items,
  getKey,
  renderItem,
  label,
}: {
  items: readonly T[];
  getKey: (item: T) => string | number;
  renderItem: (item: T) => ReactNode;
  label: string;
}) {
  const [width, setWidth] = useState(0);
  const columns = columnsFor(width, MIN_COLUMN_WIDTH, GAP, MAX_COLUMNS);
  const rowCount = Math.ceil(items.length / columns);
  const list = useWindowList<HTMLDivElement>({
    count: rowCount,
    estimateSize: ROW_HEIGHT,
    getItemKey: (row) => row,
    gap: GAP,
    overscan: OVERSCAN_ROWS,
    renderAllBelow: Math.ceil(RENDER_ALL_BELOW / columns),
  });
  const { ref } = list;

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

  const firstRow = list.items[0]?.index ?? 0;
  const lastRow = list.items[list.items.length - 1]?.index ?? -1;
  const first = firstRow * columns;
  // Re-rendered on every scroll event; the cards only when the window moves.
  const cards = useMemo(
    () =>
      items.slice(first, (lastRow + 1) * columns).map((item, i) => (
        <li key={getKey(item)} aria-setsize={items.length} aria-posinset={first + i + 1}>
          {renderItem(item)}
        </li>
      )),
    [items, first, lastRow, columns, getKey, renderItem],
  );

  return (
    <div ref={ref} data-testid="virtual-grid" className="relative w-full" style={{ height: list.totalSize }}>
      <ul
        aria-label={label}
        className="absolute inset-x-0 top-0 grid"
        style={{
          transform: `translateY(${list.offset}px)`,
          gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
          gridAutoRows: ROW_HEIGHT,
          gap: GAP,
        }}
      >
        {cards}
      </ul>
    </div>
  );
}

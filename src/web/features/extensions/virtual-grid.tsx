import { type ReactNode, useRef } from "react";
import { useWindowGrid } from "./use-window-grid";

const ROW_HEIGHT = 184;
const GAP = 16;
const MIN_COLUMN_WIDTH = 260;
const MAX_COLUMNS = 4;
const OVERSCAN_ROWS = 3;
const RENDER_ALL_BELOW = 120;

/**
 * A card grid that only mounts the rows near the viewport, so 5,000 extensions
 * cost about as much DOM as 50. The container keeps the full height, so the
 * page's own scrollbar, Home/End and scroll position behave as usual.
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
  const ref = useRef<HTMLDivElement>(null);
  const { columns, startRow, endRow, totalHeight } = useWindowGrid(ref, {
    itemCount: items.length,
    minColumnWidth: MIN_COLUMN_WIDTH,
    maxColumns: MAX_COLUMNS,
    rowHeight: ROW_HEIGHT,
    gap: GAP,
    overscan: OVERSCAN_ROWS,
    renderAllBelow: RENDER_ALL_BELOW,
  });
  const first = startRow * columns;
  const shown = items.slice(first, endRow * columns);

  return (
    <div ref={ref} data-testid="virtual-grid" className="relative w-full" style={{ height: totalHeight }}>
      <ul
        aria-label={label}
        className="absolute inset-x-0 grid"
        style={{
          top: startRow * (ROW_HEIGHT + GAP),
          gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
          gridAutoRows: ROW_HEIGHT,
          gap: GAP,
        }}
      >
        {shown.map((item, i) => (
          <li key={getKey(item)} aria-setsize={items.length} aria-posinset={first + i + 1}>
            {renderItem(item)}
          </li>
        ))}
      </ul>
    </div>
  );
}

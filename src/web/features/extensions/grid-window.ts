/**
 * The arithmetic of the windowed card grid (no DOM): how many columns fit, and
 * which rows intersect the viewport. Rows have one fixed height, so a row's
 * position is its index times the stride and nothing has to be measured.
 */

export interface GridLayout {
  /** Items per row. */
  columns: number;
  /** Height of one row of cards, in px. */
  rowHeight: number;
  /** Gap between rows and between columns, in px. */
  gap: number;
}

/** As many columns of at least `minColumnWidth` as fit in `width`, between 1 and `maxColumns`. */
export function columnsFor(width: number, minColumnWidth: number, gap: number, maxColumns: number): number {
  if (!(width > 0)) return 1;
  return Math.max(1, Math.min(maxColumns, Math.floor((width + gap) / (minColumnWidth + gap))));
}

export interface RowWindow {
  rowCount: number;
  /** First row to render. */
  startRow: number;
  /** One past the last row to render. */
  endRow: number;
  /** Height of the whole grid, so the page scrolls as if every card were there. */
  totalHeight: number;
}

/**
 * Rows to render when the grid's top edge is `gridTop` px from the viewport's
 * top (negative once scrolled past) and the viewport is `viewportHeight` tall,
 * plus `overscan` rows either side so fast scrolling does not show gaps.
 */
export function rowWindow(
  itemCount: number,
  { columns, rowHeight, gap }: GridLayout,
  gridTop: number,
  viewportHeight: number,
  overscan: number,
): RowWindow {
  const rowCount = Math.ceil(itemCount / Math.max(1, columns));
  const stride = rowHeight + gap;
  const totalHeight = rowCount > 0 ? rowCount * stride - gap : 0;
  const visibleFrom = -gridTop;
  const visibleTo = visibleFrom + viewportHeight;
  const clamp = (n: number) => Math.min(rowCount, Math.max(0, n));
  const startRow = clamp(Math.floor(visibleFrom / stride) - overscan);
  const endRow = Math.max(startRow, clamp(Math.ceil(visibleTo / stride) + overscan));
  return { rowCount, startRow, endRow, totalHeight };
}

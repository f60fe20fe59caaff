/**
 * A table whose rows mount only near the viewport (`useWindowList`, ADR 0033): spacer rows keep its
 * height, rows are measured once mounted (a row that grows moves the ones below), and `aria-rowcount` /
 * `aria-rowindex` tell assistive technology where a row sits among all of them. Up to `renderAllBelow`
 * rows every row is mounted, so the browser's find-in-page sees a short table whole: the rows near the
 * viewport first, the others `GROW_BY` a frame after them (all 100 rows of an audit page in one commit
 * make one long task of style and layout; ADR 0033); a live update keeps them mounted.
 */
import { type ReactNode, startTransition, useDeferredValue, useEffect, useMemo, useState } from "react";
import { useWindowList } from "@/hooks/use-window-list";
import { cn } from "@/lib/utils";

export interface VirtualTableProps<T> {
  label: string;
  headers: readonly string[];
  /** Extra classes of the header cells (e.g. `whitespace-nowrap`). */
  headerClassName?: string;
  items: readonly T[];
  getKey: (item: T) => string | number;
  /** Estimated row height in px (rows are measured once mounted). */
  rowHeight: number;
  renderAllBelow?: number;
  /** Attributes of a row (`data-*` for tests and styling). */
  rowProps?: (item: T) => Record<`data-${string}`, string>;
  /** The row's cells. */
  cells: (item: T) => ReactNode;
}

function Spacer({ height, columns }: { height: number; columns: number }) {
  if (height <= 0) return null;
  return (
    <tr data-spacer="">
      <td colSpan={columns} style={{ height, padding: 0 }} />
    </tr>
  );
}

const NONE: readonly never[] = [];
/** Rows mounted around the viewport, and how many more each frame adds until a short table is whole. */
const OVERSCAN = 10;
const GROW_BY = 25;

/** The rows grown so far that `items` keeps: all of them unless more than `GROW_BY` of its rows are new. */
function grownFor<T>(
  growth: { items: readonly T[]; by: number },
  items: readonly T[],
  getKey: (item: T) => string | number,
): number {
  if (growth.items === items || growth.by === 0) return growth.by;
  const before = new Set(growth.items.map(getKey));
  let added = 0;
  for (const item of items) if (!before.has(getKey(item)) && ++added > GROW_BY) return 0;
  return growth.by;
}

export function VirtualTable<T>({
  label,
  headers,
  headerClassName,
  items: given,
  getKey,
  rowHeight,
  renderAllBelow = 150,
  rowProps,
  cells,
}: VirtualTableProps<T>) {
  // The rows render as a transition (in slices, not one long task): on mount the header first, then the
  // rows; new rows (a filter, Load more) replace the shown ones once rendered.
  const items = useDeferredValue(given, NONE as readonly T[]);
  // A short table grows from its window to every row, a step a frame, each step a transition. New items
  // keep the rows grown so far when at most a step's worth of them are new (a live update: its rows stay
  // mounted); more new rows than that (a filter) start again from the window.
  const whole = items.length <= renderAllBelow;
  const [growth, setGrowth] = useState({ items, by: 0 });
  // Not memoised (callers pass `getKey` inline): one comparison, or a set of ≤ 150 keys after new items.
  const grown = whole ? grownFor(growth, items, getKey) : 0;
  const overscan = OVERSCAN + grown;
  useEffect(() => {
    if (!whole || overscan >= items.length) return;
    const frame = requestAnimationFrame(() => startTransition(() => setGrowth({ items, by: grown + GROW_BY })));
    return () => cancelAnimationFrame(frame);
  }, [whole, overscan, items, grown]);
  const list = useWindowList<HTMLTableSectionElement>({
    count: items.length,
    estimateSize: rowHeight,
    getItemKey: (i) => {
      const item = items[i];
      return item === undefined ? i : getKey(item);
    },
    overscan,
  });
  const { items: windowed, virtualizer } = list;
  // Re-rendered on every scroll event; the rows only when the window moves.
  const rows = useMemo(
    () =>
      windowed.map((v) => {
        const item = items[v.index];
        if (item === undefined) return null;
        return (
          <tr
            key={v.key}
            ref={virtualizer.measureElement}
            data-index={v.index}
            aria-rowindex={v.index + 2}
            className="border-b align-top last:border-b-0 hover:bg-muted/30"
            {...rowProps?.(item)}
          >
            {cells(item)}
          </tr>
        );
      }),
    [windowed, virtualizer, items, rowProps, cells],
  );
  return (
    <div className="relative overflow-x-auto rounded-md border">
      <table className="w-full text-sm" aria-label={label} aria-rowcount={items.length + 1}>
        <thead className="bg-muted/50">
          <tr className="border-b">
            {headers.map((h) => (
              <th
                key={h}
                scope="col"
                className={cn("px-3 py-2 text-left font-medium text-muted-foreground", headerClassName)}
              >
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={list.ref}>
          <Spacer height={list.offset} columns={headers.length} />
          {rows}
          <Spacer height={list.after} columns={headers.length} />
        </tbody>
      </table>
    </div>
  );
}

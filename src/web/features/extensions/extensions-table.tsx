/**
 * The extensions as a data table (TanStack Table, ADR 0041): sort by any column (the header's button;
 * `aria-sort`), the filter of `filter.ts`, a column choice remembered in localStorage, row selection
 * with "select all matching", keyboard navigation (arrows move between rows, Space selects, Enter
 * edits) and virtual rows (`useWindowList`, ADR 0033): 5,000 extensions mount about as many rows as
 * fit on the screen. The table scrolls sideways in its own box on a narrow screen.
 *
 * The sort runs over the plain array (`sortRows`) and TanStack Table sees only the mounted window
 * (`manualSorting`): building its row model for all 5,000 rows would be most of the first render.
 * Rows have a fixed height, so the virtualizer's estimate is exact and nothing is measured on paint.
 */
import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  type Row,
  type RowSelectionState,
  type SortingState,
  useReactTable,
  type VisibilityState,
} from "@tanstack/react-table";
import { ArrowDown, ArrowUp, ArrowUpDown, Check, Columns3 } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { type KeyboardEvent, type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { useLiveExtensions } from "@/features/live/api";
import { ExtensionLiveView } from "@/features/live/live-badges";
import { useWindowList } from "@/hooks/use-window-list";
import { cookieValue, setPreferenceCookie } from "@/lib/cookies";
import { formatWith } from "@/lib/format";
import { documentCookie, ON_SERVER } from "@/lib/prerender";
import { cn } from "@/lib/utils";
import type { Extension } from "../../../shared/inventory";
import { byNumber } from "../../../shared/sort";

const ROW_HEIGHT = 53;
/** Up to this many rows every row is mounted (the browser's find-in-page sees a short table whole). */
const RENDER_ALL_BELOW = 120;
const COLUMNS_KEY = "pbx-console.extensions.columns";

/** The columns a user may hide, with their header text. */
export const HIDEABLE_COLUMNS = {
  name: "Name",
  email: "Email",
  voicemail: "Voicemail",
  live: "Live status",
  created: "Created",
} as const;
type Hideable = keyof typeof HIDEABLE_COLUMNS;

/** The hidden columns in a cookie too (`a.b`): the server renders the screen's first HTML with them (ADR 0047). */
const COLUMNS_COOKIE = "extensions_hidden";

function readColumns(): VisibilityState {
  if (ON_SERVER) {
    const hidden = cookieValue(documentCookie(), COLUMNS_COOKIE) ?? "";
    return Object.fromEntries(
      hidden
        .split(".")
        .filter((k) => Object.hasOwn(HIDEABLE_COLUMNS, k))
        .map((k) => [k, false]),
    );
  }
  try {
    const raw = JSON.parse(localStorage.getItem(COLUMNS_KEY) ?? "{}") as unknown;
    if (!raw || typeof raw !== "object") return {};
    return Object.fromEntries(
      Object.entries(raw).filter(([k, v]) => k in HIDEABLE_COLUMNS && typeof v === "boolean"),
    ) as VisibilityState;
  } catch {
    return {};
  }
}

/** The shown columns, remembered in this browser. */
function useColumnChoice() {
  const [visibility, setVisibility] = useState<VisibilityState>(readColumns);
  useEffect(() => {
    const hidden = Object.keys(HIDEABLE_COLUMNS).filter((k) => visibility[k] === false);
    setPreferenceCookie(COLUMNS_COOKIE, hidden.join("."));
    try {
      localStorage.setItem(COLUMNS_KEY, JSON.stringify(visibility));
    } catch {
      // Storage full or refused (private mode): the choice lasts for this visit only.
    }
  }, [visibility]);
  return [visibility, setVisibility] as const;
}

const dateFormat = new Intl.DateTimeFormat(); // as `toLocaleDateString()`, made once for all rows
const created = (iso: string) => formatWith(dateFormat, iso);

type Compare = (a: Extension, b: Extension, rank: (extension: string) => number) => number;
const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
// Names and emails as a person orders them: case-insensitive, "Desk 2" before "Desk 10".
const natural = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" }).compare;
/** Each sortable column's order (ascending); ties keep the incoming order (numeric, `sortExtensions`). */
const COMPARE: Record<string, Compare> = {
  extension: (a, b) => byNumber(a.extension, b.extension),
  name: (a, b) => natural(a.name, b.name),
  email: (a, b) => natural(a.email ?? "", b.email ?? ""),
  voicemail: (a, b) => Number(a.voicemail) - Number(b.voicemail),
  live: (a, b, rank) => rank(a.extension) - rank(b.extension),
  created: (a, b) => text(a.createdAt, b.createdAt),
};

/** The rows in the table's sort (one column at a time, as the headers set it). */
export function sortRows(
  rows: readonly Extension[],
  sorting: SortingState,
  rank: (extension: string) => number,
): readonly Extension[] {
  const by = sorting[0];
  const compare = by && COMPARE[by.id];
  if (!by || !compare) return rows;
  const sign = by.desc ? -1 : 1;
  return [...rows].sort((a, b) => sign * compare(a, b, rank));
}

const rowId = (e: Extension) => String(e.id);
const noRank = () => 0;

function SortHeader({
  label,
  sorted,
  onToggle,
}: {
  label: string;
  sorted: false | "asc" | "desc";
  onToggle: () => void;
}) {
  const Icon = sorted === "asc" ? ArrowUp : sorted === "desc" ? ArrowDown : ArrowUpDown;
  return (
    <button
      type="button"
      onClick={onToggle}
      className="-mx-1 inline-flex items-center gap-1 rounded px-1 font-medium hover:text-foreground focus-visible:outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
    >
      {label}
      <Icon className={cn("size-3.5", !sorted && "opacity-40")} aria-hidden />
    </button>
  );
}

/** The column choice: a menu of checkboxes (the extension number, selection and actions always show). */
function ColumnMenu({
  visibility,
  onChange,
}: {
  visibility: VisibilityState;
  onChange: (column: Hideable, shown: boolean) => void;
}) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button variant="outline" size="sm">
          <Columns3 />
          Columns
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={4}
          className="z-50 min-w-44 rounded-md border bg-popover p-1 text-popover-foreground shadow-md"
        >
          <DropdownMenu.Label className="px-2 py-1.5 font-medium text-muted-foreground text-xs">
            Shown columns
          </DropdownMenu.Label>
          {(Object.keys(HIDEABLE_COLUMNS) as Hideable[]).map((id) => (
            <DropdownMenu.CheckboxItem
              key={id}
              checked={visibility[id] !== false}
              onCheckedChange={(v) => onChange(id, v === true)}
              onSelect={(e) => e.preventDefault()}
              className="relative flex cursor-default select-none items-center gap-2 rounded-sm py-1.5 pr-2 pl-8 text-sm outline-none data-[highlighted]:bg-accent"
            >
              <DropdownMenu.ItemIndicator className="absolute left-2 inline-flex">
                <Check className="size-4" aria-hidden />
              </DropdownMenu.ItemIndicator>
              {HIDEABLE_COLUMNS[id]}
            </DropdownMenu.CheckboxItem>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** A native checkbox that can show "some selected". */
function SelectBox({
  checked,
  indeterminate = false,
  label,
  onChange,
  inRow = false,
}: {
  checked: boolean;
  indeterminate?: boolean;
  label: string;
  onChange: () => void;
  /** A row's box is reached with the row (Space), not with Tab. */
  inRow?: boolean;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className="size-4 cursor-pointer accent-primary"
      checked={checked}
      onChange={onChange}
      aria-label={label}
      tabIndex={inRow ? -1 : undefined}
    />
  );
}

export interface ExtensionsTableProps {
  /** The extensions matching the filter, in stored order (the table sorts). */
  rows: readonly Extension[];
  selection: RowSelectionState;
  onSelectionChange: (next: RowSelectionState) => void;
  /** Enter on a row: the row's edit (a no-op while there is none). */
  onOpen?: (ext: Extension) => void;
  /** The row's actions (QR code, edit, delete), rendered in its last cell; in the tab order only in the active row. */
  actions: (ext: Extension, active: boolean) => ReactNode;
  /** The toolbar's right end (the column menu goes beside it). */
  toolbar?: ReactNode;
}

export function ExtensionsTable({
  rows,
  selection,
  onSelectionChange,
  onOpen,
  actions,
  toolbar,
}: ExtensionsTableProps) {
  const [sorting, setSorting] = useState<SortingState>([{ id: "extension", desc: false }]);
  const [visibility, setVisibility] = useColumnChoice();
  const live = useLiveExtensions();
  // Sorting by live status follows its changes; any other sort ignores them.
  const liveRank = sorting[0]?.id === "live" ? live.rank : noRank;

  const columns = useMemo<ColumnDef<Extension>[]>(
    () => [
      { id: "select", enableSorting: false, enableHiding: false },
      {
        id: "extension",
        header: "Extension",
        enableHiding: false,
        cell: ({ row }) => <span className="font-mono font-semibold tabular-nums">{row.original.extension}</span>,
      },
      {
        id: "name",
        header: "Name",
        cell: ({ row }) => (
          <span className="block max-w-56 truncate" title={row.original.name}>
            {row.original.name}
          </span>
        ),
      },
      {
        id: "email",
        header: "Email",
        cell: ({ row }) =>
          row.original.email ? (
            <span className="block max-w-64 truncate text-muted-foreground" title={row.original.email}>
              {row.original.email}
            </span>
          ) : (
            <span className="text-muted-foreground">—</span>
          ),
      },
      {
        id: "voicemail",
        header: "Voicemail",
        cell: ({ row }) =>
          row.original.voicemail ? (
            <Badge variant="outline" data-testid="voicemail-on">
              On
            </Badge>
          ) : (
            <span className="text-muted-foreground">Off</span>
          ),
      },
      {
        id: "live",
        header: "Live status",
        cell: ({ row }) => (
          <ExtensionLiveView extension={row.original.extension} lookup={live.lookup(row.original.extension)} />
        ),
      },
      {
        id: "created",
        header: "Created",
        cell: ({ row }) => (
          <time dateTime={row.original.createdAt} className="whitespace-nowrap text-muted-foreground">
            {created(row.original.createdAt)}
          </time>
        ),
      },
      { id: "actions", enableSorting: false, enableHiding: false },
    ],
    [live],
  );

  const sortedRows = useMemo(() => sortRows(rows, sorting, liveRank), [rows, sorting, liveRank]);

  // Selection: the matching rows' share of it (the header box), toggling a row, all matching at once.
  const selectedMatching = sortedRows.reduce((n, e) => n + (selection[e.id] ? 1 : 0), 0);
  const allMatching = sortedRows.length > 0 && selectedMatching === sortedRows.length;
  const toggleRow = useCallback(
    (id: string) => {
      const next = { ...selection };
      if (next[id]) delete next[id];
      else next[id] = true;
      onSelectionChange(next);
    },
    [selection, onSelectionChange],
  );
  const toggleAllMatching = () => {
    const next = { ...selection };
    for (const e of sortedRows) {
      if (allMatching) delete next[e.id];
      else next[e.id] = true;
    }
    onSelectionChange(next);
  };

  // Keyboard: one row is in the tab order; arrows move it, Space selects it, Enter opens it.
  const [active, setActive] = useState(0);
  const activeIndex = Math.min(active, Math.max(0, sortedRows.length - 1));
  const wantFocus = useRef(false);
  const list = useWindowList<HTMLTableSectionElement>({
    count: sortedRows.length,
    estimateSize: ROW_HEIGHT,
    getItemKey: (i) => sortedRows[i]?.id ?? i,
    renderAllBelow: RENDER_ALL_BELOW,
    overscan: 8,
    rememberTopAs: "extensions_top",
  });
  const { virtualizer, items: windowed } = list;
  const body = list.ref;

  // TanStack Table over the mounted window only: column visibility, the sort state and the cells.
  // The same array while the window shows the same rows: a new one is new data to the table.
  const first = windowed[0]?.index ?? 0;
  const end = (windowed[windowed.length - 1]?.index ?? -1) + 1;
  const windowRows = useMemo(() => sortedRows.slice(first, end), [sortedRows, first, end]);
  const table = useReactTable({
    data: windowRows as Extension[],
    columns,
    state: { sorting, columnVisibility: visibility, rowSelection: selection },
    getRowId: rowId,
    onSortingChange: setSorting,
    onColumnVisibilityChange: setVisibility,
    enableRowSelection: true,
    manualSorting: true,
    // Nothing pages here: without this every new window of data queues a page reset, a state change, a render.
    autoResetAll: false,
    getCoreRowModel: getCoreRowModel(),
    sortDescFirst: false,
  });
  const rowById = new Map(table.getRowModel().rows.map((r) => [r.id, r]));
  const visibleColumns = table.getVisibleLeafColumns();

  useEffect(() => {
    if (!wantFocus.current) return;
    const row = body.current?.querySelector<HTMLElement>(`tr[data-index="${activeIndex}"]`);
    if (row) {
      wantFocus.current = false;
      row.focus({ preventScroll: false });
    }
  });

  const moveTo = (index: number) => {
    const i = Math.max(0, Math.min(sortedRows.length - 1, index));
    wantFocus.current = true;
    setActive(i);
    virtualizer.scrollToIndex(i, { align: "auto" });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTableSectionElement>) => {
    const rowEl = (e.target as HTMLElement).closest<HTMLElement>("tr[data-index]");
    if (!rowEl || e.target !== rowEl) return;
    const index = Number(rowEl.dataset.index);
    const ext = sortedRows[index];
    if (!ext) return;
    const page = Math.max(1, Math.floor(window.innerHeight / ROW_HEIGHT) - 2);
    let target: number | null = null;
    if (e.key === "ArrowDown") target = index + 1;
    else if (e.key === "ArrowUp") target = index - 1;
    else if (e.key === "PageDown") target = index + page;
    else if (e.key === "PageUp") target = index - page;
    else if (e.key === "Home") target = 0;
    else if (e.key === "End") target = sortedRows.length - 1;
    else if (e.key === " ") toggleRow(rowId(ext));
    else if (e.key === "Enter") onOpen?.(ext);
    else return;
    e.preventDefault();
    if (target !== null) moveTo(target);
  };

  const cell = (row: Row<Extension>, columnId: string, rowActive: boolean): ReactNode => {
    if (columnId === "select") {
      return (
        <SelectBox
          checked={Boolean(selection[row.id])}
          label={`Select extension ${row.original.extension}`}
          onChange={() => toggleRow(row.id)}
          inRow
        />
      );
    }
    if (columnId === "actions")
      return <div className="flex items-center justify-end gap-1">{actions(row.original, rowActive)}</div>;
    const c = row.getVisibleCells().find((x) => x.column.id === columnId);
    return c ? flexRender(c.column.columnDef.cell, c.getContext()) : null;
  };

  const rowsShown = windowed.map((v) => {
    const ext = sortedRows[v.index];
    const row = ext && rowById.get(rowId(ext));
    if (!row) return null;
    const selected = Boolean(selection[row.id]);
    return (
      <tr
        key={row.id}
        data-index={v.index}
        data-testid="extension-row"
        data-extension={row.original.extension}
        aria-rowindex={v.index + 2}
        aria-selected={selected}
        tabIndex={v.index === activeIndex ? 0 : -1}
        onFocus={(e) => {
          if (e.target === e.currentTarget) setActive(v.index);
        }}
        onClick={(e) => {
          if (e.target === e.currentTarget || (e.target as HTMLElement).tagName === "TD") setActive(v.index);
        }}
        className={cn(
          "border-b outline-none last:border-b-0 hover:bg-muted/30 focus-visible:bg-accent/60 focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset",
          selected && "bg-primary/5",
        )}
        style={{ height: ROW_HEIGHT }}
      >
        {visibleColumns.map((col) => (
          <td
            key={col.id}
            className={cn("px-3 py-2 align-middle", col.id === "select" && "w-10", col.id === "actions" && "w-px")}
          >
            {cell(row, col.id, v.index === activeIndex)}
          </td>
        ))}
      </tr>
    );
  });

  const ariaSort = (s: false | "asc" | "desc") => (s === "asc" ? "ascending" : s === "desc" ? "descending" : "none");

  return (
    <div className="grid min-w-0 gap-2">
      <div className="flex flex-wrap items-center justify-end gap-2">
        {toolbar}
        <ColumnMenu visibility={visibility} onChange={(id, shown) => setVisibility((v) => ({ ...v, [id]: shown }))} />
      </div>
      <div className="relative max-w-full overflow-x-auto rounded-md border" data-testid="extensions-table-box">
        <table className="w-full min-w-[640px] text-sm" aria-label="Extensions" aria-rowcount={sortedRows.length + 1}>
          <thead className="bg-muted/50">
            <tr className="border-b">
              {visibleColumns.map((col) => {
                if (col.id === "select") {
                  return (
                    <th key={col.id} scope="col" className="w-10 px-3 py-2 text-left">
                      <SelectBox
                        checked={allMatching}
                        indeterminate={selectedMatching > 0 && !allMatching}
                        label={`Select all ${sortedRows.length} matching`}
                        onChange={toggleAllMatching}
                      />
                    </th>
                  );
                }
                if (col.id === "actions") {
                  return (
                    <th key={col.id} scope="col" className="px-3 py-2 text-right font-medium text-muted-foreground">
                      <span className="sr-only">Actions</span>
                    </th>
                  );
                }
                const sorted = col.getIsSorted();
                return (
                  <th
                    key={col.id}
                    scope="col"
                    aria-sort={ariaSort(sorted)}
                    className="whitespace-nowrap px-3 py-2 text-left font-medium text-muted-foreground"
                  >
                    <SortHeader
                      label={String(col.columnDef.header)}
                      sorted={sorted}
                      onToggle={() => col.toggleSorting(sorted === "asc")}
                    />
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody ref={body} onKeyDown={onKeyDown}>
            {list.offset > 0 && (
              <tr aria-hidden data-spacer="">
                <td colSpan={visibleColumns.length} style={{ height: list.offset, padding: 0 }} />
              </tr>
            )}
            {rowsShown}
            {list.after > 0 && (
              <tr aria-hidden data-spacer="">
                <td colSpan={visibleColumns.length} style={{ height: list.after, padding: 0 }} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

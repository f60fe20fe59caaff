import { Checkbox } from "@/components/ui/checkbox";
import { type Column, isSelectable, rowStatus } from "./config";
import { SyncStatusBadge } from "./status-badge";

interface Row {
  inDashboard: boolean;
  needsSync: boolean;
}

/**
 * The comparison with a checkbox column (left out when `selectable` is false: the role cannot import);
 * rows already Synced cannot be selected.
 */
export function ComparisonTable<R extends Row>({
  label,
  rows,
  columns,
  keyOf,
  selected,
  onToggle,
  onToggleAll,
  disabled,
  selectable: canSelect = true,
}: {
  label: string;
  rows: R[];
  columns: Column<R>[];
  keyOf: (row: R) => string;
  selected: ReadonlySet<string>;
  onToggle: (key: string, on: boolean) => void;
  onToggleAll: (on: boolean) => void;
  disabled: boolean;
  selectable?: boolean;
}) {
  const selectable = rows.filter(isSelectable);
  const chosen = selectable.filter((r) => selected.has(keyOf(r))).length;
  const allState = chosen === 0 ? false : chosen === selectable.length ? true : "indeterminate";

  return (
    <div className="overflow-x-auto rounded-md border">
      <table className="w-full caption-bottom text-sm" aria-label={label}>
        <thead className="bg-muted/50">
          <tr className="border-b">
            {canSelect && (
              <th scope="col" className="w-10 px-3 py-2 text-left">
                <Checkbox
                  aria-label="Select all rows that need importing"
                  checked={allState}
                  disabled={disabled || selectable.length === 0}
                  onCheckedChange={(v) => onToggleAll(v === true)}
                />
              </th>
            )}
            {columns.map((c) => (
              <th key={c.header} scope="col" className="px-3 py-2 text-left font-medium text-muted-foreground">
                {c.header}
              </th>
            ))}
            <th scope="col" className="px-3 py-2 text-left font-medium text-muted-foreground">
              Status
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const key = keyOf(row);
            const can = isSelectable(row);
            return (
              <tr key={key} className="border-b last:border-b-0 hover:bg-muted/30" data-row={key}>
                {canSelect && (
                  <td className="px-3 py-2">
                    <Checkbox
                      aria-label={`Select ${key}`}
                      checked={can && selected.has(key)}
                      disabled={disabled || !can}
                      onCheckedChange={(v) => onToggle(key, v === true)}
                    />
                  </td>
                )}
                {columns.map((c) => (
                  <td key={c.header} className={`px-3 py-2 ${c.mono ? "font-mono text-xs" : ""}`}>
                    {c.cell(row) || "-"}
                  </td>
                ))}
                <td className="px-3 py-2">
                  <SyncStatusBadge status={rowStatus(row)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

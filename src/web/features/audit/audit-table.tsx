/**
 * The audit trail as a table: one row per entry, newest first, changes collapsible per row. Past
 * `RENDER_ALL_BELOW` loaded entries only the rows near the viewport are mounted (spacer rows keep the
 * table's height; rows are measured, so an expanded change list moves the ones below).
 */
import { CircleCheck, CircleX, ShieldX } from "lucide-react";
import { useId, useMemo, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { useWindowList } from "@/hooks/use-window-list";
import { AUDIT_MASK, type AuditChange, type AuditEntry, type AuditOutcome } from "../../../shared/audit";

const OUTCOME = {
  ok: { label: "OK", variant: "success", Icon: CircleCheck },
  denied: { label: "Denied", variant: "warning", Icon: ShieldX },
  failed: { label: "Failed", variant: "destructive", Icon: CircleX },
} as const satisfies Record<AuditOutcome, { label: string; variant: string; Icon: unknown }>;

/** The outcome as a word with an icon (the colour only repeats what the word says). */
export function OutcomeBadge({ outcome }: { outcome: AuditOutcome }) {
  const { label, variant, Icon } = OUTCOME[outcome];
  return (
    <Badge variant={variant} data-outcome={outcome}>
      <Icon aria-hidden />
      {label}
    </Badge>
  );
}

/** A recorded value; a secret's mask says what it is to a screen reader and on hover. */
function Value({ text }: { text: string }) {
  if (text === AUDIT_MASK) {
    return (
      <span title="A secret: its value is not recorded">
        <span aria-hidden>{AUDIT_MASK}</span>
        <span className="sr-only">(secret, not recorded)</span>
      </span>
    );
  }
  return <span className="break-all">{text}</span>;
}

/** `field: from → to`; a new field shows only its value, a removed one `from → ∅` (as the CSV export writes it). */
function ChangeLine({ change: c }: { change: AuditChange }) {
  return (
    <li className="font-mono text-xs">
      <span className="text-muted-foreground">{c.field}:</span>{" "}
      {c.from !== undefined && (
        <>
          <Value text={c.from} /> →{" "}
        </>
      )}
      {c.to !== undefined ? <Value text={c.to} /> : <span title="none">∅</span>}
    </li>
  );
}

/** Rows showing more changes than this start collapsed to it. */
const CHANGES_SHOWN = 3;

function Changes({ changes }: { changes: AuditChange[] }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  if (changes.length === 0) return <span className="text-muted-foreground">—</span>;
  const long = changes.length > CHANGES_SHOWN;
  const shown = long && !open ? changes.slice(0, CHANGES_SHOWN) : changes;
  return (
    <div className="grid gap-1">
      <ul id={listId} className="grid gap-0.5" aria-label="Changes">
        {shown.map((c, i) => (
          // Fields repeat only in the "… more fields" line the server may add: the index keeps keys unique.
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed for a recorded row
          <ChangeLine key={`${c.field}-${i}`} change={c} />
        ))}
      </ul>
      {long && (
        <Button
          type="button"
          variant="link"
          size="sm"
          className="h-auto justify-start p-0 text-xs"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen((v) => !v)}
        >
          {open ? "Show fewer" : `Show all ${changes.length} changes`}
        </Button>
      )}
    </div>
  );
}

/** Ids up to this long are shown beside the object's label. */
const SHORT_ID = 8;

function ObjectCell({ entry: e }: { entry: AuditEntry }) {
  if (!e.objectType && !e.objectId && !e.objectLabel) return <span className="text-muted-foreground">—</span>;
  const name = e.objectLabel ?? e.objectId;
  // A short id (a number) is shown beside the label; a long one (a UUID) only on hover.
  const otherId = e.objectLabel && e.objectId && e.objectId !== e.objectLabel ? e.objectId : null;
  const shortId = otherId !== null && otherId.length <= SHORT_ID;
  return (
    <span className="grid">
      {e.objectType && <span className="text-muted-foreground text-xs">{e.objectType}</span>}
      <span className="break-all" title={otherId && !shortId ? `id ${otherId}` : undefined}>
        {name}
        {shortId && <span className="text-muted-foreground text-xs"> #{otherId}</span>}
      </span>
    </span>
  );
}

const HEADERS = ["Time", "Actor", "Address", "Action", "Outcome", "Object", "Changes", "Detail"] as const;

/** A row with a single change line; rows are measured once mounted. */
const ROW_HEIGHT = 49;
/** Up to this many entries every row is mounted (find-in-page sees them all). */
const RENDER_ALL_BELOW = 150;

function Spacer({ height }: { height: number }) {
  if (height <= 0) return null;
  return (
    <tr data-spacer="">
      <td colSpan={HEADERS.length} style={{ height, padding: 0 }} />
    </tr>
  );
}

export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const list = useWindowList<HTMLTableSectionElement>({
    count: entries.length,
    estimateSize: ROW_HEIGHT,
    getItemKey: (i) => entries[i]?.id ?? i,
    renderAllBelow: RENDER_ALL_BELOW,
    overscan: 10,
  });
  const { items: virtualItems, virtualizer } = list;
  // Re-rendered on every scroll event; the rows only when the window moves.
  const rows = useMemo(
    () =>
      virtualItems.map((v) => {
        const e = entries[v.index];
        if (!e) return null;
        return (
          <tr
            key={v.key}
            ref={virtualizer.measureElement}
            data-index={v.index}
            aria-rowindex={v.index + 2}
            className="border-b align-top last:border-b-0 hover:bg-muted/30"
            data-action={e.action}
          >
            <td className="whitespace-nowrap px-3 py-2">
              <time dateTime={e.at} title={e.at}>
                {new Date(e.at).toLocaleString()}
              </time>
            </td>
            <td className="px-3 py-2 font-medium">{e.actor}</td>
            <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">
              {e.clientIp ?? <span className="text-muted-foreground">—</span>}
            </td>
            <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{e.action}</td>
            <td className="px-3 py-2">
              <OutcomeBadge outcome={e.outcome} />
            </td>
            <td className="min-w-28 px-3 py-2">
              <ObjectCell entry={e} />
            </td>
            <td className="min-w-56 max-w-md px-3 py-2">
              <Changes changes={e.changes} />
            </td>
            <td className="min-w-40 max-w-xs px-3 py-2 break-words">
              {e.detail ?? <span className="text-muted-foreground">—</span>}
            </td>
          </tr>
        );
      }),
    [virtualItems, virtualizer, entries],
  );
  return (
    <div className="overflow-x-auto rounded-md border">
      <table className="w-full text-sm" aria-label="Audit trail" aria-rowcount={entries.length + 1}>
        <thead className="bg-muted/50">
          <tr className="border-b">
            {HEADERS.map((h) => (
              <th key={h} scope="col" className="px-3 py-2 text-left font-medium text-muted-foreground">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={list.ref}>
          <Spacer height={list.offset} />
          {rows}
          <Spacer height={list.after} />
        </tbody>
      </table>
    </div>
  );
}

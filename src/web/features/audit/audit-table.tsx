/**
 * The audit trail as a table: one row per entry, newest first, changes collapsible per row. Past 150
 * loaded entries only the rows near the viewport are mounted (`VirtualTable`; rows are measured, so an
 * expanded change list moves the ones below).
 */
import { CircleCheck, CircleX, ShieldX } from "lucide-react";
import { useId, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { VirtualTable } from "@/components/virtual-table";
import { formatDateTime } from "@/lib/format";
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

/** An entry's cells (a module function: the table re-renders its rows only when the window moves). */
function entryCells(e: AuditEntry) {
  return (
    <>
      <td className="whitespace-nowrap px-3 py-2">
        <time dateTime={e.at} title={e.at}>
          {formatDateTime(e.at)}
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
    </>
  );
}

const entryRowProps = (e: AuditEntry) => ({ "data-action": e.action });

export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <VirtualTable
      label="Audit trail"
      headers={HEADERS}
      items={entries}
      getKey={(e) => e.id}
      rowHeight={ROW_HEIGHT}
      rowProps={entryRowProps}
      cells={entryCells}
    />
  );
}

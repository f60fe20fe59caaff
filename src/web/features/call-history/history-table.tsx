/**
 * The call history as a table: one row per call (its CDR legs grouped by linkedid, or by uniqueid in a
 * table without one), newest first. Only the rows near the viewport are mounted (spacer rows keep the
 * table's height), so thousands of loaded calls scroll like fifty. Each call's time links to its detail page.
 */
import { Link } from "@tanstack/react-router";
import { VirtualTable } from "@/components/virtual-table";
import type { CdrCall } from "../../../shared/live";
import { formatDuration } from "../calls/format";
import { DirectionLabel, PartyCell } from "../calls/party";
import { DispositionBadge } from "./disposition";

const HEADERS = ["Time", "From", "To", "Direction", "Trunk", "Result", "Talk time", "Duration"] as const;
/** A row whose parties show a name and a number; rows are measured once mounted. */
const ROW_HEIGHT = 57;

/** A call's cells (a module function: the table re-renders its rows only when the window moves). */
function callCells(c: CdrCall) {
  return (
    <>
      <td className="whitespace-nowrap px-3 py-2">
        {/* Not preloaded on hover: a call's detail reads the PBX (its recording), not worth it per row passed over. */}
        <Link
          to="/call-history/$linkedid"
          params={{ linkedid: c.id }}
          preload={false}
          data-testid="call-detail-link"
          className="font-medium text-primary underline-offset-4 hover:underline"
        >
          <time dateTime={c.startedAt} title={c.startedAt}>
            {new Date(c.startedAt).toLocaleString()}
          </time>
          <span className="sr-only">: call details</span>
        </Link>
      </td>
      <td className="max-w-48 px-3 py-2">
        <PartyCell party={c.from} />
      </td>
      <td className="max-w-48 px-3 py-2">
        <PartyCell party={c.to} />
        {c.did && c.did !== c.to.number && (
          <span className="block text-muted-foreground text-xs">
            dialled <span className="font-mono">{c.did}</span>
          </span>
        )}
      </td>
      <td className="px-3 py-2">
        <DirectionLabel direction={c.direction} />
      </td>
      <td className="px-3 py-2">
        {c.trunk ? <span className="font-mono">{c.trunk}</span> : <span className="text-muted-foreground">—</span>}
      </td>
      <td className="px-3 py-2">
        <DispositionBadge disposition={c.disposition} />
        {c.legs > 1 && (
          <span className="block whitespace-nowrap text-muted-foreground text-xs" data-testid="call-legs">
            {c.legs} legs
          </span>
        )}
      </td>
      <td className="whitespace-nowrap px-3 py-2 tabular-nums">
        {c.talkSec > 0 ? formatDuration(c.talkSec) : <span className="text-muted-foreground">—</span>}
      </td>
      <td className="whitespace-nowrap px-3 py-2 tabular-nums">{formatDuration(c.durationSec)}</td>
    </>
  );
}

const callRowProps = (c: CdrCall) => ({ "data-testid": "history-call", "data-call-id": c.id });

export function HistoryTable({ calls }: { calls: CdrCall[] }) {
  return (
    <VirtualTable
      label="Call history"
      headers={HEADERS}
      headerClassName="whitespace-nowrap"
      items={calls}
      getKey={(c) => c.id}
      rowHeight={ROW_HEIGHT}
      rowProps={callRowProps}
      cells={callCells}
    />
  );
}

/**
 * The call history as a table: one row per call (its CDR legs grouped by linkedid), newest first. Only
 * the rows near the viewport are mounted (spacer rows keep the table's height), so thousands of loaded
 * calls scroll like fifty.
 */
import { useMemo } from "react";
import { useWindowList } from "@/hooks/use-window-list";
import type { CdrCall } from "../../../shared/live";
import { formatDuration } from "../calls/format";
import { DirectionLabel, PartyCell } from "../calls/party";
import { DispositionBadge } from "./disposition";

const HEADERS = ["Time", "From", "To", "Direction", "Trunk", "Result", "Talk time", "Duration"] as const;
/** A row whose parties show a name and a number; rows are measured once mounted. */
const ROW_HEIGHT = 57;
/** Up to this many calls every row is mounted (find-in-page sees them all). */
const RENDER_ALL_BELOW = 150;

function Spacer({ height }: { height: number }) {
  if (height <= 0) return null;
  return (
    <tr data-spacer="">
      <td colSpan={HEADERS.length} style={{ height, padding: 0 }} />
    </tr>
  );
}

export function HistoryTable({ calls }: { calls: CdrCall[] }) {
  const list = useWindowList<HTMLTableSectionElement>({
    count: calls.length,
    estimateSize: ROW_HEIGHT,
    getItemKey: (i) => calls[i]?.id ?? i,
    renderAllBelow: RENDER_ALL_BELOW,
    overscan: 10,
  });
  const { items: virtualItems, virtualizer } = list;
  // Re-rendered on every scroll event; the rows only when the window moves.
  const rows = useMemo(
    () =>
      virtualItems.map((v) => {
        const c = calls[v.index];
        if (!c) return null;
        return (
          <tr
            key={v.key}
            ref={virtualizer.measureElement}
            data-index={v.index}
            aria-rowindex={v.index + 2}
            className="border-b align-top last:border-b-0 hover:bg-muted/30"
            data-testid="history-call"
            data-call-id={c.id}
          >
            <td className="whitespace-nowrap px-3 py-2">
              <time dateTime={c.startedAt} title={c.startedAt}>
                {new Date(c.startedAt).toLocaleString()}
              </time>
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
              {c.trunk ? (
                <span className="font-mono">{c.trunk}</span>
              ) : (
                <span className="text-muted-foreground">—</span>
              )}
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
          </tr>
        );
      }),
    [virtualItems, virtualizer, calls],
  );
  return (
    <div className="relative overflow-x-auto rounded-md border">
      <table className="w-full text-sm" aria-label="Call history" aria-rowcount={calls.length + 1}>
        <thead className="bg-muted/50">
          <tr className="border-b">
            {HEADERS.map((h) => (
              <th
                key={h}
                scope="col"
                className="whitespace-nowrap px-3 py-2 text-left font-medium text-muted-foreground"
              >
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

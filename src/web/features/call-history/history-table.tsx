/** The call history as a table: one row per call (its CDR legs grouped by linkedid), newest first. */
import type { CdrCall } from "../../../shared/live";
import { formatDuration } from "../calls/format";
import { DirectionLabel, PartyCell } from "../calls/party";
import { DispositionBadge } from "./disposition";

const HEADERS = ["Time", "From", "To", "Direction", "Trunk", "Result", "Talk time", "Duration"] as const;

export function HistoryTable({ calls }: { calls: CdrCall[] }) {
  return (
    <div className="relative overflow-x-auto rounded-md border">
      <table className="w-full text-sm" aria-label="Call history">
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
        <tbody>
          {calls.map((c) => (
            <tr
              key={c.id}
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
          ))}
        </tbody>
      </table>
    </div>
  );
}

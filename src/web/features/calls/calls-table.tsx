/** Calls in progress as a table: one row per call (its channels share a Linkedid). */
import { PhoneOff } from "lucide-react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import type { ActiveCall } from "../../../shared/live";
import { formatDuration, partyText, secondsSince } from "./format";
import { DirectionLabel, PartyCell } from "./party";

const STATE = {
  dialing: { label: "Dialing", variant: "secondary" },
  ringing: { label: "Ringing", variant: "warning" },
  up: { label: "Connected", variant: "success" },
} as const satisfies Record<ActiveCall["state"], { label: string; variant: string }>;

const HEADERS = ["Caller", "Callee", "Trunk", "Direction", "State", "Duration"] as const;

export function CallsTable({
  calls,
  now,
  onHangup,
}: {
  calls: ActiveCall[];
  /** The page's clock (ms), ticking once a second: durations are computed from it, not refetched. */
  now: number;
  onHangup: (call: ActiveCall) => void;
}) {
  return (
    <div className="relative overflow-x-auto rounded-md border">
      <table className="w-full text-sm" aria-label="Calls in progress">
        <thead className="bg-muted/50">
          <tr className="border-b">
            {HEADERS.map((h) => (
              <th key={h} scope="col" className="px-3 py-2 text-left font-medium text-muted-foreground">
                {h}
              </th>
            ))}
            <Can minRole="operator">
              <th scope="col" className="px-3 py-2 text-right font-medium text-muted-foreground">
                <span className="sr-only">Actions</span>
              </th>
            </Can>
          </tr>
        </thead>
        <tbody>
          {calls.map((c) => {
            const state = STATE[c.state];
            return (
              <tr
                key={c.id}
                className="border-b align-middle last:border-b-0 hover:bg-muted/30"
                data-testid="active-call"
                data-call-id={c.id}
              >
                <td className="max-w-48 px-3 py-2">
                  <PartyCell party={c.caller} />
                </td>
                <td className="max-w-48 px-3 py-2">
                  <PartyCell party={c.callee} />
                </td>
                <td className="px-3 py-2">
                  {c.trunk ? (
                    <span className="font-mono">{c.trunk}</span>
                  ) : (
                    <span className="text-muted-foreground">—</span>
                  )}
                </td>
                <td className="px-3 py-2">
                  <DirectionLabel direction={c.direction} />
                </td>
                <td className="px-3 py-2">
                  <Badge variant={state.variant}>{state.label}</Badge>
                </td>
                <td className="whitespace-nowrap px-3 py-2 tabular-nums">
                  <span data-testid="call-duration">{formatDuration(secondsSince(c.startedAt, now))}</span>
                  {c.answeredAt && (
                    <span className="block text-muted-foreground text-xs">
                      talking {formatDuration(secondsSince(c.answeredAt, now))}
                    </span>
                  )}
                </td>
                <Can minRole="operator">
                  <td className="px-3 py-2 text-right">
                    <Button
                      variant="ghost"
                      size="sm"
                      className="text-muted-foreground hover:text-destructive"
                      aria-label={`Hang up the call from ${partyText(c.caller)} to ${partyText(c.callee)}`}
                      onClick={() => onHangup(c)}
                    >
                      <PhoneOff />
                      <span className="max-sm:sr-only">Hang up</span>
                    </Button>
                  </td>
                </Can>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The call on one time axis: a lane per leg (dashed while it rang, solid once answered), the AI
 * assistant's lane, and each event as a mark on the lane it happened on. Positioned divs, no chart
 * library; the bars are drawn for the eye and each lane says the same in words for a screen reader.
 */
import type { CSSProperties } from "react";
import { cn } from "@/lib/utils";
import type { CallEventSource } from "../../../shared/calls";
import { DispositionBadge } from "../call-history/disposition";
import { partyText } from "../calls/format";
import { formatOffset, formatTick, type Lane, type Timeline } from "./timeline";

const MARK_COLOURS: Record<CallEventSource, string> = {
  cel: "bg-foreground/70",
  cdr: "bg-muted-foreground",
  ami: "bg-foreground/70",
  voicemail: "bg-warning",
  ai: "bg-primary",
};

/** `PJSIP/2902-00000005` → `2902`, `Local/2902@from-queue-00000001;2` → `2902@from-queue`. */
export function channelPeer(channel: string): string {
  const m = /^[^/]+\/(.+?)(?:-[0-9a-f]{6,})?(?:;\d)?$/i.exec(channel);
  return m ? (m[1] as string) : channel;
}

function laneTitle(lane: Lane): string {
  if (lane.kind === "ai") return "AI assistant";
  if (lane.kind === "call") return "Call";
  if (lane.kind === "channel") return channelPeer(lane.channel ?? "");
  const leg = lane.leg;
  if (!leg) return "";
  // Legs of one call differ in where they went; who called is the call's, in the page's title.
  return `→ ${leg.dstChannel ? channelPeer(leg.dstChannel) : partyText(leg.to)}`;
}

function laneWords(lane: Lane): string {
  if (lane.kind === "call") return `${lane.marks.length} events of the call`;
  const answered = lane.answeredMs === null ? "not answered" : `answered at ${formatOffset(lane.answeredMs)}`;
  const what = lane.kind === "ai" ? "The AI assistant" : lane.kind === "channel" ? "Channel" : "Leg";
  return `${what} from ${formatOffset(lane.startMs)} to ${formatOffset(lane.endMs)}, ${answered}, ${lane.marks.length} events`;
}

const pct = (ms: number, span: number) => `${Math.min(100, Math.max(0, (ms / span) * 100))}%`;

/** A bar from `from` to `to` on the axis, at least a hairline wide. */
function bar(from: number, to: number, span: number): CSSProperties {
  return { left: pct(from, span), width: pct(to - from, span), minWidth: 2 };
}

function LaneBars({ lane, span }: { lane: Lane; span: number }) {
  const ringEnd = lane.answeredMs ?? lane.endMs;
  return (
    <div className="relative h-7 min-w-0 rounded bg-muted/40" aria-hidden>
      {lane.kind !== "call" && ringEnd > lane.startMs && (
        <span
          data-part="ringing"
          className="absolute top-1.5 bottom-1.5 rounded-sm border border-muted-foreground border-dashed bg-muted"
          style={bar(lane.startMs, ringEnd, span)}
        />
      )}
      {lane.answeredMs !== null && (
        <span
          data-part="answered"
          className={cn("absolute top-1.5 bottom-1.5 rounded-sm", lane.kind === "ai" ? "bg-primary/60" : "bg-success")}
          style={bar(lane.answeredMs, lane.endMs, span)}
        />
      )}
      {lane.marks.map((m) => (
        <span
          key={m.key}
          data-testid="call-mark"
          className={cn("absolute top-0 bottom-0 w-0.5 rounded-full", MARK_COLOURS[m.source])}
          style={{ left: `calc(${pct(m.positionMs, span)} - 1px)` }}
          title={`${m.offsetMs === null ? "" : `${formatOffset(m.offsetMs)} `}${m.text}`}
        />
      ))}
    </div>
  );
}

const LANE_TEST_IDS: Record<Lane["kind"], string> = {
  leg: "call-lane",
  channel: "channel-lane",
  ai: "ai-lane",
  call: "call-events-lane",
};

const ROW = "grid gap-x-3 gap-y-1 sm:grid-cols-[14rem_minmax(0,1fr)] sm:items-center";

export function CallAxis({ timeline }: { timeline: Timeline }) {
  const { spanMs: span, lanes, ticks } = timeline;
  return (
    <div className="grid min-w-0 gap-2">
      <div className={ROW} aria-hidden>
        <span className="hidden sm:block" />
        <div className="relative h-4 text-muted-foreground text-xs tabular-nums">
          {ticks.map((t, i) => (
            <span
              key={t}
              className={cn(
                "absolute top-0 whitespace-nowrap",
                i === 0 ? "" : t >= span * 0.95 ? "-translate-x-full" : "-translate-x-1/2",
              )}
              style={{ left: pct(t, span) }}
            >
              {formatTick(t)}
            </span>
          ))}
        </div>
      </div>
      <ol aria-label="Legs on the time axis" className="grid gap-2">
        {lanes.map((lane) => (
          <li
            key={lane.key}
            data-testid={LANE_TEST_IDS[lane.kind]}
            data-disposition={lane.leg?.disposition}
            className={ROW}
          >
            <div className="flex min-w-0 items-center gap-2">
              <span className="grid min-w-0 flex-1">
                <span className="truncate font-medium text-sm" title={laneTitle(lane)}>
                  {laneTitle(lane)}
                </span>
                {lane.leg && (
                  <span className="truncate font-mono text-muted-foreground text-xs" title={lane.leg.channel}>
                    {lane.leg.channel || lane.leg.lastApp || "—"}
                  </span>
                )}
                {lane.channel && (
                  <span className="truncate font-mono text-muted-foreground text-xs" title={lane.channel}>
                    {lane.channel}
                  </span>
                )}
              </span>
              {lane.leg && <DispositionBadge disposition={lane.leg.disposition} />}
            </div>
            <LaneBars lane={lane} span={span} />
            <span className="sr-only">{laneWords(lane)}</span>
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap gap-x-4 gap-y-1 text-muted-foreground text-xs" aria-hidden>
        <span className="inline-flex items-center gap-1.5">
          <span className="inline-block h-2.5 w-5 rounded-sm border border-muted-foreground border-dashed bg-muted" />
          Ringing
        </span>
        <span className="inline-flex items-center gap-1.5">
          <span className="inline-block h-2.5 w-5 rounded-sm bg-success" />
          Answered
        </span>
        <span className="inline-flex items-center gap-1.5">
          <span className="inline-block h-3 w-0.5 rounded-full bg-foreground/70" />
          Event (list below)
        </span>
      </div>
    </div>
  );
}

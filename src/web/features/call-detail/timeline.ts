/**
 * A call's detail laid out on one time axis: a lane per leg (ringing, then answered, then its end), the
 * AI assistant's lane when the call reached one, every event as a mark on the lane it happened on, and
 * the same events as one list in time order. Pure: the page draws what this returns.
 */
import type { CallDetail, CallEvent, CallEventSource, CallLeg } from "../../../shared/calls";

/** One line of the event list, and one mark on the axis. */
export interface TimelineItem {
  key: string;
  /** Milliseconds from the axis' start; null for an AI turn stored without a time. */
  offsetMs: number | null;
  /** Where the item sits on the axis and in the list (an untimed turn sits at the AI's start). */
  positionMs: number;
  source: CallEventSource;
  type: string;
  channel: string;
  text: string;
}

export interface Lane {
  key: string;
  /** A CDR leg; a channel of a call in progress (no legs yet); the AI assistant; the call's other events. */
  kind: "leg" | "channel" | "ai" | "call";
  leg?: CallLeg;
  /** A channel lane's channel. */
  channel?: string;
  startMs: number;
  /** When the lane's party answered; null when it never did. */
  answeredMs: number | null;
  endMs: number;
  marks: TimelineItem[];
}

export interface Timeline {
  /** The axis' zero: the call's start (or an earlier event's, when the PBX recorded one). */
  start: number;
  spanMs: number;
  lanes: Lane[];
  items: TimelineItem[];
  /** Offsets (ms) the axis is labelled at. */
  ticks: number[];
}

const time = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

/** "+12.4 s", "+1:02.4", "+1:02:03"; "−0.3 s" for an event before the axis' zero. */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "−" : "+";
  const tenths = Math.round(Math.abs(ms) / 100);
  const s = tenths / 10;
  if (s < 60) return `${sign}${s.toFixed(1)} s`;
  const whole = Math.floor(s);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const sec = (s - h * 3600 - m * 60).toFixed(h > 0 ? 0 : 1).padStart(h > 0 ? 2 : 4, "0");
  return h > 0 ? `${sign}${h}:${String(m).padStart(2, "0")}:${sec}` : `${sign}${m}:${sec}`;
}

/** An axis label: "0 s", "30 s", "1:30", "1:00:00". */
export function formatTick(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

const TICK_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

/** Round labels for an axis `spanMs` long: at most `max` + 1 of them, from 0. */
export function axisTicks(spanMs: number, max = 6): number[] {
  const spanS = spanMs / 1000;
  const step = (TICK_STEPS_S.find((s) => spanS / s <= max) ?? Math.ceil(spanS / max / 3600) * 3600) * 1000;
  const ticks: number[] = [];
  for (let t = 0; t <= spanMs + 1; t += step) ticks.push(t);
  return ticks;
}

export const SOURCE_LABELS: Record<CallEventSource, string> = {
  cel: "CEL",
  cdr: "CDR",
  ami: "AMI",
  voicemail: "Voicemail",
  ai: "AI",
};

/**
 * The lane an event happened on: the leg whose dialled channel it is (an answer, a hang-up of the callee),
 * else one whose calling channel it is, else one of its `uniqueid`; among several (a ring group's legs
 * share the caller's channel) the one whose time holds the event. Null: the call's own lane.
 */
function laneOf(event: CallEvent, at: number, legs: Lane[]): Lane | null {
  const byDst = event.channel ? legs.filter((l) => l.leg?.dstChannel === event.channel) : [];
  const byChannel = event.channel
    ? legs.filter((l) => l.leg?.channel === event.channel || l.channel === event.channel)
    : [];
  const byId = event.uniqueid ? legs.filter((l) => l.leg?.uniqueid === event.uniqueid) : [];
  const candidates = byDst.length ? byDst : byChannel.length ? byChannel : byId;
  if (candidates.length === 0) return null;
  const holding = candidates.filter((l) => at >= l.startMs - 1000 && at <= l.endMs + 1000);
  const pool = holding.length ? holding : candidates;
  // A leg's own boundary (its start, answer or end) names that leg among legs that overlap.
  return pool.find((l) => at === l.startMs || at === l.answeredMs || at === l.endMs) ?? (pool[0] as Lane);
}

/**
 * The axis of `detail`. The AI's turns and tool calls are the server's `ai` events when it sent them, else
 * taken from `detail.ai`; a turn without a time follows the AI's start, in the order it was said.
 */
export function buildTimeline(detail: CallDetail): Timeline {
  const callStart = time(detail.startedAt) ?? 0;
  const ai = detail.ai;
  const aiStart = ai ? (time(ai.startedAt) ?? callStart) : null;

  interface Raw {
    at: number;
    /** Untimed AI turns: placed at the AI's start, after what happened there. */
    untimed: boolean;
    order: number;
    event: CallEvent;
  }
  const raw: Raw[] = [];
  let order = 0;
  for (const event of detail.events) {
    const at = time(event.at);
    if (at !== null) raw.push({ at, untimed: false, order: order++, event });
  }
  if (ai && aiStart !== null) {
    const hasTurns = detail.events.some((e) => e.source === "ai" && e.type === "AI_TURN");
    const hasTools = detail.events.some((e) => e.source === "ai" && e.type === "AI_TOOL");
    const who = (speaker: "caller" | "assistant") => (speaker === "caller" ? "Caller" : "Assistant");
    for (const turn of ai.turns) {
      const at = time(turn.at);
      if (at !== null && hasTurns) continue;
      raw.push({
        at: at ?? aiStart,
        untimed: at === null,
        order: order++,
        event: {
          at: turn.at ?? ai.startedAt,
          source: "ai",
          type: "AI_TURN",
          channel: "",
          uniqueid: "",
          text: `${who(turn.speaker)}: ${turn.text}`,
        },
      });
    }
    if (!hasTools) {
      for (const tool of ai.tools) {
        const at = time(tool.at);
        if (at === null) continue;
        raw.push({
          at,
          untimed: false,
          order: order++,
          event: {
            at: tool.at,
            source: "ai",
            type: "AI_TOOL",
            channel: "",
            uniqueid: "",
            text: tool.result ? `${tool.name}: ${tool.result}` : tool.name,
          },
        });
      }
    }
  }
  // Time order; at the same instant the server's order, an untimed turn after what is timed there.
  raw.sort((a, b) => a.at - b.at || Number(a.untimed) - Number(b.untimed) || a.order - b.order);

  const legTimes = detail.legs.map((leg) => {
    const s = time(leg.startedAt) ?? callStart;
    const e = Math.max(s, time(leg.endedAt) ?? s + leg.durationSec * 1000);
    return { leg, s, a: time(leg.answeredAt), e };
  });
  const starts = [callStart, ...legTimes.map((l) => l.s), ...raw.map((r) => r.at)];
  const ends = [time(detail.endedAt) ?? callStart, ...legTimes.map((l) => l.e), ...raw.map((r) => r.at)];
  const start = Math.min(...starts);
  const spanMs = Math.max(1000, Math.max(...ends) - start);

  const legs: Lane[] = legTimes
    .sort((x, y) => x.s - y.s || x.leg.sequence - y.leg.sequence)
    .map(({ leg, s, a, e }, i) => ({
      key: `leg-${i}-${leg.uniqueid}-${leg.sequence}`,
      kind: "leg",
      leg,
      startMs: s - start,
      answeredMs: a === null ? null : Math.min(Math.max(a, s), e) - start,
      endMs: e - start,
      marks: [],
    }));
  // A call in progress has no legs yet: a lane per channel AMI lists, from its start to now, answered
  // from the call's answer on.
  if (legs.length === 0) {
    const answer = raw.find((r) => r.event.type === "ANSWER" && r.event.channel === "")?.at ?? null;
    const end = Math.max(...ends) - start;
    const seen = new Set<string>();
    for (const r of raw) {
      const channel = r.event.channel;
      if (!channel || r.event.source === "ai" || seen.has(channel)) continue;
      seen.add(channel);
      const from = r.at - start;
      legs.push({
        key: `channel-${channel}`,
        kind: "channel",
        channel,
        startMs: from,
        answeredMs: answer === null ? null : Math.max(from, answer - start),
        endMs: end,
        marks: [],
      });
    }
  }
  // Lanes compare in the axis' offsets from here on.
  const items: TimelineItem[] = [];
  const aiEvents: TimelineItem[] = [];
  const callEvents: TimelineItem[] = [];
  raw.forEach((r, i) => {
    const offset = r.at - start;
    const item: TimelineItem = {
      key: `e${i}`,
      offsetMs: r.untimed ? null : offset,
      positionMs: offset,
      source: r.event.source,
      type: r.event.type,
      channel: r.event.channel,
      text: r.event.text,
    };
    items.push(item);
    if (r.event.source === "ai") aiEvents.push(item);
    else {
      const lane = laneOf(r.event, offset, legs);
      if (lane) lane.marks.push(item);
      else callEvents.push(item);
    }
  });

  const lanes: Lane[] = [...legs];
  if (ai && aiStart !== null) {
    const aiFrom = aiStart - start;
    const aiTo = Math.max(aiFrom, ...aiEvents.map((e) => e.positionMs));
    lanes.push({
      key: "ai",
      kind: "ai",
      startMs: aiFrom,
      answeredMs: aiFrom,
      endMs: aiTo,
      marks: aiEvents,
    });
  }
  if (callEvents.length > 0) {
    lanes.unshift({ key: "call", kind: "call", startMs: 0, answeredMs: null, endMs: 0, marks: callEvents });
  }
  return { start, spanMs, lanes, items, ticks: axisTicks(spanMs) };
}

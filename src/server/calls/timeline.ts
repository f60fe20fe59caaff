/**
 * From one call's records to what its page shows, without the database or the PBX: legs, the event line
 * (CEL's events in words, or the legs' own starts, answers and ends when CEL recorded nothing), transfers,
 * who answered, the recording files the legs name, the mailboxes it reached, and the AI call's turns and tools.
 */
import type { CallAi, CallAiTool, CallEvent, CallLeg, CallTransfer } from "../../shared/calls";
import { clidName, dispositionOf, endpointOf, fromLocalText, type Leg, localIso } from "../cdr/calls";
import type { CelRow, DetailLeg } from "../cdr/detail";

const iso = (local: string) => localIso(fromLocalText(local) ?? new Date(0));
const startOf = (l: Leg) => fromLocalText(l.calldate)?.getTime() ?? 0;

export function toCallLeg(l: DetailLeg): CallLeg {
  const start = startOf(l);
  const duration = Math.max(0, l.duration);
  const talk = Math.max(0, Math.min(l.billsec, duration));
  return {
    uniqueid: l.uniqueid,
    sequence: l.sequence,
    startedAt: localIso(new Date(start)),
    answeredAt: talk > 0 ? localIso(new Date(start + (duration - talk) * 1000)) : null,
    endedAt: localIso(new Date(start + duration * 1000)),
    durationSec: duration,
    talkSec: talk,
    disposition: dispositionOf(l.disposition),
    channel: l.channel,
    dstChannel: l.dstchannel,
    from: { number: l.cnum || l.src, name: l.cnam || clidName(l.clid) },
    to: { number: l.dst, name: l.dstCnam },
    did: l.did,
    context: l.dcontext,
    lastApp: l.lastapp,
    lastData: l.lastdata,
    recordingFile: l.recordingfile,
  };
}

/** Who a channel is: the endpoint (`PJSIP/2902-…` → 2902), a Local channel's number (`Local/2902@from-queue-…`). */
export function partyOf(channel: string): string {
  const endpoint = endpointOf(channel);
  if (endpoint) return endpoint;
  const local = /^Local\/([^@;]+)@/i.exec(channel);
  return local ? (local[1] as string) : channel;
}

/** The mailbox a `VoiceMail` application's arguments name (`2901@default,u` → 2901), or null. */
export function mailboxOf(app: string, data: string): string | null {
  if (app.toLowerCase() !== "voicemail") return null;
  const m = /^\s*(\d{1,10})(?:@[A-Za-z0-9_-]+)?\s*(?:[,&]|$)/.exec(data);
  return m ? (m[1] as string) : null;
}

/**
 * Who answered: the first answered leg's destination (the phone that picked up), or the mailbox when the answered
 * leg is the voicemail application itself; null when nobody answered.
 */
export function answeredBy(legs: readonly DetailLeg[]): string | null {
  for (const l of legs) {
    if (dispositionOf(l.disposition) !== "ANSWERED") continue;
    if (l.dstchannel) return partyOf(l.dstchannel);
    const mailbox = mailboxOf(l.lastapp, l.lastdata);
    if (mailbox) return `voicemail ${mailbox}`;
  }
  return null;
}

/** The events the legs themselves say (when CEL recorded nothing): each leg's start, answer and end. */
export function legEvents(legs: readonly DetailLeg[]): CallEvent[] {
  const out: CallEvent[] = [];
  for (const l of legs) {
    const leg = toCallLeg(l);
    const who = partyOf(l.channel) || leg.from.number;
    const target = l.dstchannel ? partyOf(l.dstchannel) : leg.to.number;
    const base = { source: "cdr" as const, channel: l.channel, uniqueid: l.uniqueid };
    out.push({
      ...base,
      at: leg.startedAt,
      type: "LEG_START",
      text: `${who} called ${target || "?"}${l.lastapp ? ` (${l.lastapp})` : ""}`,
    });
    if (leg.answeredAt)
      out.push({ ...base, at: leg.answeredAt, type: "LEG_ANSWER", text: `${target || who} answered` });
    const talk = leg.talkSec > 0 ? `, talked ${leg.talkSec} s` : "";
    out.push({
      ...base,
      at: leg.endedAt,
      type: "LEG_END",
      text: `${target || who}: ${leg.disposition.toLowerCase()}${talk}`,
    });
  }
  return out;
}

const json = (text: string): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};
const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");

/** Asterisk's hang-up causes a person meets (Q.850). */
const CAUSES: Record<string, string> = {
  "16": "normal clearing",
  "17": "busy",
  "18": "no answer",
  "19": "no answer",
  "21": "rejected",
  "26": "answered elsewhere",
  "1": "unknown number",
  "34": "no circuit",
  "38": "network out of order",
};

/** One CEL row in words; null for the rows folded into another (a playback's end). */
function celText(r: CelRow): string | null {
  const who = partyOf(r.channame);
  const extra = json(r.extra);
  switch (r.eventtype) {
    case "CHAN_START":
      return `${who} channel started${r.exten && r.exten !== who ? ` for ${r.exten}` : ""}`;
    case "ANSWER":
      return `${who} answered`;
    case "HANGUP": {
      const cause = str(extra.hangupcause);
      const why = CAUSES[cause] ?? (cause && cause !== "0" ? `cause ${cause}` : "");
      const status = str(extra.dialstatus);
      return `${who} hung up${why ? ` (${why})` : ""}${status ? `, dial status ${status}` : ""}`;
    }
    case "CHAN_END":
      return `${who} channel ended`;
    case "BRIDGE_ENTER":
      return `${who} joined the conversation`;
    case "BRIDGE_EXIT":
      return `${who} left the conversation`;
    case "APP_START":
      return `${who} started ${r.appname}${r.appdata ? ` (${r.appdata})` : ""}`;
    case "APP_END":
      return `${who} finished ${r.appname}`;
    case "BLINDTRANSFER":
      return `${r.cidNum || who} transferred the call to ${str(extra.extension) || "?"}`;
    case "ATTENDEDTRANSFER":
      return `${r.cidNum || who} transferred the call (attended) to ${partyOf(str(extra.transfer_target_channel_name) || str(extra.channel2_name)) || "?"}`;
    case "PICKUP":
      return `${who} picked up the call`;
    case "FORWARD":
      return `${who} forwarded the call to ${str(extra.forward) || "?"}`;
    case "PARK_START":
      return `${who} parked the call${str(extra.parking_lot) ? ` in ${str(extra.parking_lot)}` : ""}`;
    case "PARK_END":
      return `${who} left the parking lot`;
    case "LOCAL_OPTIMIZE":
      return `${who} local channel optimised away`;
    case "LINKEDID_END":
      return "The call ended";
    case "STREAM_END":
      return null;
    default:
      return `${who} ${r.eventtype}${r.appname ? ` ${r.appname}` : ""}`;
  }
}

/** What a playback played: a sound's name, or the music on hold class. */
const played = (r: CelRow) => {
  const extra = json(r.extra);
  return str(extra.sound) || (str(extra.class) ? `music on hold (${str(extra.class)})` : "audio");
};

/**
 * CEL's rows in words, in their order. The playbacks of one channel in a row (`STREAM_BEGIN`: a voicemail
 * greeting's words one by one) are one event naming each sound; their ends are left out.
 */
export function celEvents(rows: readonly CelRow[]): CallEvent[] {
  const out: CallEvent[] = [];
  let stream: { event: CallEvent; sounds: string[] } | null = null;
  for (const r of rows) {
    if (r.eventtype === "STREAM_BEGIN") {
      if (stream && stream.event.channel === r.channame) {
        if (stream.sounds.length < 20) stream.sounds.push(played(r));
        stream.event.text = `${partyOf(r.channame)} heard ${stream.sounds.join(", ")}`;
        continue;
      }
      const event: CallEvent = {
        at: iso(r.eventtime),
        source: "cel",
        type: "STREAM_BEGIN",
        channel: r.channame,
        uniqueid: r.uniqueid,
        text: `${partyOf(r.channame)} heard ${played(r)}`,
      };
      stream = { event, sounds: [played(r)] };
      out.push(event);
      continue;
    }
    if (r.eventtype !== "STREAM_END") stream = null;
    const text = celText(r);
    if (text === null) continue;
    out.push({
      at: iso(r.eventtime),
      source: "cel",
      type: r.eventtype,
      channel: r.channame,
      uniqueid: r.uniqueid,
      text,
    });
  }
  return out;
}

/** The transfers CEL recorded. */
export function celTransfers(rows: readonly CelRow[]): CallTransfer[] {
  const out: CallTransfer[] = [];
  for (const r of rows) {
    if (r.eventtype !== "BLINDTRANSFER" && r.eventtype !== "ATTENDEDTRANSFER") continue;
    const extra = json(r.extra);
    const blind = r.eventtype === "BLINDTRANSFER";
    out.push({
      at: iso(r.eventtime),
      kind: blind ? "blind" : "attended",
      by: r.cidNum || partyOf(r.channame),
      to: blind ? str(extra.extension) : partyOf(str(extra.transfer_target_channel_name) || str(extra.channel2_name)),
    });
  }
  return out;
}

/** The recording files the legs name, each once, in leg order. */
export const recordingFiles = (legs: readonly DetailLeg[]) => [
  ...new Set(legs.map((l) => l.recordingfile.trim()).filter((f) => f !== "")),
];

/** The mailboxes the call reached and the channels that ran the voicemail application there. */
export function voicemailLegs(legs: readonly DetailLeg[], cel: readonly CelRow[] | null) {
  const mailboxes = new Set<string>();
  const channels = new Set<string>();
  for (const l of legs) {
    const m = mailboxOf(l.lastapp, l.lastdata);
    if (m) {
      mailboxes.add(m);
      channels.add(l.channel);
    }
  }
  for (const r of cel ?? []) {
    const m = r.eventtype === "APP_START" ? mailboxOf(r.appname, r.appdata) : null;
    if (m) {
      mailboxes.add(m);
      channels.add(r.channame);
    }
  }
  return { mailboxes: [...mailboxes], channels: [...channels] };
}

/**
 * The monitor-relative name of a recording the CDR names, the way FreePBX's cdr module finds it: a bare name
 * (`internal-2902-2901-20261207-101500-1733566500.12.wav`) is under `YYYY/MM/DD/` of the date in its fourth
 * `-` part, else of the leg's day; an absolute path is taken only inside the monitor directory. Null for any
 * other shape (a name the console does not read).
 */
export function monitorName(file: string, monitorRoot: string, legDate: string): string | null {
  let name = file.trim();
  if (name.startsWith("/")) {
    if (!name.startsWith(`${monitorRoot}/`)) return null;
    return name.slice(monitorRoot.length + 1);
  }
  if (name.includes("/")) return /^\d{4}\/\d{2}\/\d{2}\/[^/]+$/.test(name) ? name : null;
  const day = /^\d{8}$/.exec(name.split("-")[3] ?? "")?.[0];
  const ymd = day
    ? `${day.slice(0, 4)}/${day.slice(4, 6)}/${day.slice(6, 8)}`
    : /^(\d{4})-(\d{2})-(\d{2})/.exec(legDate)?.slice(1, 4).join("/");
  if (!ymd) return null;
  name = `${ymd}/${name}`;
  return name;
}

/** A line of an AI call's record (`<ISO time> <text>`). */
function eventLine(line: string): { at: string; text: string } | null {
  const space = line.indexOf(" ");
  if (space < 20) return null;
  const at = line.slice(0, space);
  return Number.isNaN(Date.parse(at)) ? null : { at, text: line.slice(space + 1) };
}

/** A tool's line (`take_message: done {"ok":true}` or `transfer_call: refused: …`) as a tool call, else null. */
export function toolOf(at: string, text: string): CallAiTool | null {
  const m = /^([A-Za-z0-9_-]{1,64}): (done|refused)(?::? ?)([\s\S]*)$/.exec(text);
  if (!m) return null;
  return {
    at,
    name: m[1] as string,
    result: m[2] === "done" ? (m[3]?.trim() ? `done ${m[3].trim()}` : "done") : `refused: ${m[3] ?? ""}`,
  };
}

/** The AI call's tools, and its other lines as notes, from its record's lines. */
export function aiLines(lines: readonly string[]): { tools: CallAiTool[]; notes: { at: string; text: string }[] } {
  const tools: CallAiTool[] = [];
  const notes: { at: string; text: string }[] = [];
  for (const raw of lines) {
    const line = eventLine(raw);
    if (!line) continue;
    const tool = toolOf(line.at, line.text);
    if (tool) tools.push(tool);
    else notes.push(line);
  }
  return { tools, notes };
}

/** The AI call's turns, tools and notes as events of the timeline. */
export function aiEvents(ai: CallAi, notes: readonly { at: string; text: string }[]): CallEvent[] {
  const base = { source: "ai" as const, channel: "", uniqueid: "" };
  const out: CallEvent[] = [
    { ...base, at: ai.startedAt, type: "AI_START", text: `${ai.assistantName ?? "The AI assistant"} took the call` },
  ];
  for (const t of ai.turns) {
    if (t.at)
      out.push({
        ...base,
        at: t.at,
        type: "AI_TURN",
        text: `${t.speaker === "caller" ? "Caller" : "Assistant"}: ${t.text}`,
      });
  }
  for (const t of ai.tools) out.push({ ...base, at: t.at, type: "AI_TOOL", text: `${t.name}: ${t.result}` });
  for (const n of notes) {
    const ended = /^ended: /.test(n.text);
    out.push({ ...base, at: n.at, type: ended ? "AI_END" : "AI_NOTE", text: n.text });
  }
  return out;
}

/** Every event in time order; events of the same instant keep the order they were given in. */
export function byTime(events: CallEvent[]): CallEvent[] {
  return events
    .map((e, i) => ({ e, i, t: Date.parse(e.at) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map(({ e }) => e);
}

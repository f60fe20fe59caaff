/**
 * Calls in progress: the PBX's channels (from `CoreShowChannels` after each login, then the call
 * lifecycle events), grouped by `Linkedid` into one call each. Bounded: at most `maxChannels`
 * channels; past that the channel seen longest ago is dropped (a flood of `Newchannel` without
 * `Hangup` cannot grow memory). ADR 0027.
 */
import type { ActiveCall, ActiveChannel, CallParty } from "../../shared/live";
import type { AmiMessage } from "../clients/ami";

interface Channel {
  channel: string;
  linkedid: string;
  state: string;
  callerNumber: string;
  callerName: string;
  connectedNumber: string;
  connectedName: string;
  /** The dialled extension (`Exten`), the callee's fallback when no connected line is known yet. */
  exten: string;
  startedAt: number;
  /** Order of appearance (the call's first channel is the lowest). */
  seq: number;
}

/** Asterisk writes `<unknown>` for an empty caller ID. */
const party = (v: string | undefined) => {
  const t = (v ?? "").slice(0, 200).trim();
  return t === "<unknown>" ? "" : t;
};

/** `Duration` of `CoreShowChannel`: `HH:MM:SS` (hours may exceed 99) → seconds, null when odd. */
export function durationSeconds(value: string | undefined): number | null {
  const m = /^(\d{1,7}):([0-5]\d):([0-5]\d)$/.exec((value ?? "").trim());
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}

/** `PJSIP/<endpoint>-<sequence>` → `<endpoint>`; null for another technology or shape. */
export function pjsipEndpointOfChannel(channel: string): string | null {
  const m = /^PJSIP\/(.+)-[0-9a-fA-F]+$/.exec(channel);
  return m ? (m[1] as string) : null;
}

/** Uniqueids are `<epoch>.<sequence>`: order by both numbers. */
function byUniqueid(a: string, b: string): number {
  const [as = "0", an = "0"] = a.split(".");
  const [bs = "0", bn = "0"] = b.split(".");
  return Number(as) - Number(bs) || Number(an) - Number(bn) || a.localeCompare(b);
}

const CALL_EVENTS = new Set([
  "newchannel",
  "newstate",
  "newcallerid",
  "newconnectedline",
  "dialbegin",
  "bridgeenter",
  "hangup",
]);

export const isCallEvent = (e: AmiMessage) => CALL_EVENTS.has((e.event ?? "").toLowerCase());

export class CallState {
  private channels = new Map<string, Channel>();
  /** Linkedid → its channels' names. */
  private byCall = new Map<string, Set<string>>();
  /** Linkedid → when a channel of it went `Up`. */
  private answered = new Map<string, number>();
  private seq = 0;

  constructor(private readonly maxChannels: number) {}

  clear(): void {
    this.channels.clear();
    this.byCall.clear();
    this.answered.clear();
  }

  /** Calls in progress. */
  get count(): number {
    return this.byCall.size;
  }

  get channelCount(): number {
    return this.channels.size;
  }

  has(channel: string): boolean {
    return this.channels.has(channel);
  }

  callOf(channel: string): string | null {
    return this.channels.get(channel)?.linkedid ?? null;
  }

  /** Replaces everything with `CoreShowChannels` read after a login. */
  load(list: AmiMessage[], now: number): void {
    this.clear();
    const items = list
      .filter((c) => c.channel && (c.linkedid || c.uniqueid))
      .sort((a, b) => byUniqueid(a.uniqueid ?? "", b.uniqueid ?? ""));
    for (const c of items) {
      const seconds = durationSeconds(c.duration);
      this.upsert(c, seconds === null ? now : now - seconds * 1000);
    }
    // Answered before this login: the latest Up channel's start is the closest known answer time.
    for (const [linkedid, names] of this.byCall) {
      const up = [...names].map((n) => this.channels.get(n)).filter((c) => c?.state.toLowerCase() === "up");
      if (up.length) this.answered.set(linkedid, Math.max(...up.map((c) => c?.startedAt ?? now)));
    }
  }

  /**
   * Applies a call lifecycle event. Returns whether the view changed and the calls that ended (their last
   * channel hung up).
   */
  apply(e: AmiMessage, now: number): { changed: boolean; ended: string[] } {
    const name = (e.event ?? "").toLowerCase();
    if (name === "hangup") {
      const ended = this.remove(e.channel ?? "");
      return { changed: ended !== undefined, ended: ended ? [ended] : [] };
    }
    if (!CALL_EVENTS.has(name) || !e.channel || !(e.linkedid || e.uniqueid)) return { changed: false, ended: [] };
    this.upsert(e, now);
    if (name === "dialbegin" && e.destchannel && (e.destlinkedid || e.destuniqueid)) {
      this.upsert(
        {
          channel: e.destchannel,
          linkedid: e.destlinkedid ?? "",
          uniqueid: e.destuniqueid ?? "",
          channelstatedesc: e.destchannelstatedesc ?? "",
          calleridnum: e.destcalleridnum ?? "",
          calleridname: e.destcalleridname ?? "",
          connectedlinenum: e.destconnectedlinenum ?? "",
          connectedlinename: e.destconnectedlinename ?? "",
          exten: e.destexten ?? "",
        },
        now,
      );
    }
    return { changed: true, ended: [] };
  }

  /** Drops a channel (hung up); returns its Linkedid when that was the call's last channel, "" when not, undefined when unknown. */
  remove(channel: string): string | undefined {
    const c = this.channels.get(channel);
    if (!c) return undefined;
    this.channels.delete(channel);
    const names = this.byCall.get(c.linkedid);
    names?.delete(channel);
    if (names && names.size > 0) return "";
    this.byCall.delete(c.linkedid);
    this.answered.delete(c.linkedid);
    return c.linkedid;
  }

  /** The calls, oldest first. `trunks`: the endpoints that are trunks. */
  view(trunks: ReadonlySet<string>): ActiveCall[] {
    const calls: ActiveCall[] = [];
    for (const [linkedid, names] of this.byCall) {
      const channels = [...names]
        .map((n) => this.channels.get(n))
        .filter((c): c is Channel => c !== undefined)
        .sort((a, b) => a.seq - b.seq);
      const first = channels[0];
      if (!first) continue;
      const onTrunk = channels.map((c) => {
        const endpoint = pjsipEndpointOfChannel(c.channel);
        return endpoint !== null && trunks.has(endpoint) ? endpoint : null;
      });
      const trunk = onTrunk.find((t) => t !== null) ?? null;
      const states = channels.map((c) => c.state.toLowerCase());
      const caller: CallParty = { number: first.callerNumber, name: first.callerName };
      const callee: CallParty =
        first.connectedNumber || first.connectedName
          ? { number: first.connectedNumber, name: first.connectedName }
          : { number: first.exten === "s" ? "" : first.exten, name: "" };
      const answeredAt = this.answered.get(linkedid);
      calls.push({
        id: linkedid,
        caller,
        callee,
        trunk,
        direction: onTrunk[0] ? "inbound" : trunk ? "outbound" : "internal",
        state: states.includes("up")
          ? "up"
          : states.includes("ringing") || states.includes("ring")
            ? "ringing"
            : "dialing",
        startedAt: new Date(Math.min(...channels.map((c) => c.startedAt))).toISOString(),
        answeredAt: answeredAt === undefined ? null : new Date(answeredAt).toISOString(),
        channels: channels.map(
          (c): ActiveChannel => ({
            channel: c.channel,
            state: c.state,
            callerNumber: c.callerNumber,
            callerName: c.callerName,
            connectedNumber: c.connectedNumber,
            connectedName: c.connectedName,
            startedAt: new Date(c.startedAt).toISOString(),
          }),
        ),
      });
    }
    return calls.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
  }

  private upsert(e: AmiMessage, startedAt: number): void {
    const channel = (e.channel ?? "").slice(0, 200);
    const linkedid = (e.linkedid || e.uniqueid || "").slice(0, 100);
    if (!channel || !linkedid) return;
    let c = this.channels.get(channel);
    if (!c) {
      while (this.channels.size >= this.maxChannels) {
        const oldest = this.channels.keys().next().value;
        if (oldest === undefined) break;
        this.remove(oldest);
      }
      c = {
        channel,
        linkedid,
        state: "",
        callerNumber: "",
        callerName: "",
        connectedNumber: "",
        connectedName: "",
        exten: "",
        startedAt,
        seq: ++this.seq,
      };
      this.channels.set(channel, c);
    } else if (c.linkedid !== linkedid) {
      // Asterisk may re-link a channel (e.g. an attended transfer).
      this.remove(channel);
      this.channels.set(channel, c);
      c.linkedid = linkedid;
    }
    let names = this.byCall.get(linkedid);
    if (!names) {
      names = new Set();
      this.byCall.set(linkedid, names);
    }
    names.add(channel);
    if (e.channelstatedesc) c.state = e.channelstatedesc.slice(0, 40);
    if (e.calleridnum !== undefined) c.callerNumber = party(e.calleridnum);
    if (e.calleridname !== undefined) c.callerName = party(e.calleridname);
    if (e.connectedlinenum !== undefined) c.connectedNumber = party(e.connectedlinenum);
    if (e.connectedlinename !== undefined) c.connectedName = party(e.connectedlinename);
    if (e.exten && !c.exten) c.exten = e.exten.slice(0, 80);
    if (c.state.toLowerCase() === "up" && !this.answered.has(linkedid)) this.answered.set(linkedid, startedAt);
  }
}

/**
 * One test call placed and measured (ADR 0068). Through the console's one manager connection:
 *
 * 1. the probe endpoint of the test call's context is made sure of (`endpoint.ts`);
 * 2. `Originate` (asynchronous, so the connection is not held while it rings) dials
 *    `PJSIP/<number>@<probe endpoint>` with a channel id of our own, ringing at most `answerWithinSeconds`.
 *    The call leaves the PBX as SIP and comes back in as a call from the probe endpoint in the context, so
 *    the channel watched here is a real SIP leg with real RTP. Once answered it plays Milliwatt's 1004 Hz tone,
 *    which an echo test sends back; `TALK_DETECT` on it reports sound (not silence) coming back, and
 *    `TIMEOUT(absolute)` makes Asterisk itself hang it up if the console is gone;
 * 3. the channel's events say when it was answered, whether sound came back and whether it ended early; its
 *    RTP statistics (`CHANNEL(rtcp,all,audio)` through `Getvar`) are read every second while it listens;
 * 4. it is always hung up, whatever happened, and the result says why a run failed in one sentence.
 *
 * A run has an overall deadline; every wait checks it and the caller's abort signal. FreePBX sends silence
 * packets from an answered channel that plays nothing (`transmit_silence`), so packets alone do not prove
 * audio: when Asterisk has `TALK_DETECT`, audio means packets and sound.
 */
import { AmiError, type AmiMessage } from "../clients/ami";
import { ServiceError } from "../clients/http";
import { Unavailable } from "../core/errors";
import { ensureProbeEndpoint, PROBE_CALLER_ID, type ProbeAmi, type ProbeEndpoint } from "./endpoint";

export interface ProbeTarget {
  id: number;
  number: string;
  context: string;
  answerWithinSeconds: number;
  listenSeconds: number;
}

/** What one run measured: the `test_call_results` row without its ids and time. */
export interface ProbeOutcome {
  ok: boolean;
  answered: boolean;
  answerMs: number | null;
  durationMs: number;
  rxPackets: number | null;
  txPackets: number | null;
  lossPercent: number | null;
  jitterMs: number | null;
  error: string | null;
}

export interface ProbeClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface PlaceOptions {
  clock: ProbeClock;
  /** Aborted when the console stops: the call is hung up and the run ends. */
  signal?: AbortSignal;
  /** The originated channel's id (Asterisk's uniqueid); made up when not given (a replay gives the recorded one). */
  channelId?: string;
  /** How often the RTP statistics are read while listening. Default 1,000. */
  pollMs?: number;
  /** Made-up secret for a probe endpoint written now (tests give a fixed one). */
  secret?: () => string;
}

/** Asterisk rings at most `answerWithinSeconds`; its answer or hang-up may take this much longer to arrive. */
const ANSWER_GRACE_MS = 3_000;
/** Beyond ringing and listening: the endpoint check, the statistics reads and the hang-up. */
const DEADLINE_MARGIN_MS = 20_000;
/** Asterisk hangs the channel up by itself this long after ringing and listening (the console gone). */
const ABSOLUTE_MARGIN_S = 15;
const STEP_MS = 100;
const FAILED_HANGUP_WAIT_MS = 500;
const CHANNEL_ANSWERED = "6";

export const overallDeadlineMs = (t: Pick<ProbeTarget, "answerWithinSeconds" | "listenSeconds">) =>
  (t.answerWithinSeconds + t.listenSeconds) * 1000 + DEADLINE_MARGIN_MS;

export interface RtpStats {
  rx: number;
  tx: number;
  lost: number;
  jitterS: number;
}

/**
 * `CHANNEL(rtcp,all,audio)` of a PJSIP channel: `ssrc=…;themssrc=…;lp=0;rxjitter=0.000125;rxcount=250;
 * txjitter=…;txcount=250;rlp=0;rtt=…`. Null when empty (no RTP on the channel) or without the counts.
 */
export function parseRtcpAll(value: string | undefined): RtpStats | null {
  if (!value) return null;
  const fields = new Map<string, string>();
  for (const part of value.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  const num = (k: string) => {
    const v = Number(fields.get(k));
    return Number.isFinite(v) ? v : null;
  };
  const rx = num("rxcount");
  const tx = num("txcount");
  if (rx === null || tx === null) return null;
  return { rx, tx, lost: Math.max(0, num("lp") ?? 0), jitterS: Math.max(0, num("rxjitter") ?? 0) };
}

/** Hang-up causes (Q.850) that mean the destination never answered, in words. */
function notAnswered(cause: number | null, causeText: string, seconds: number): string {
  switch (cause) {
    case null:
    case 18:
    case 19:
      return `Not answered within ${seconds} s`;
    case 17:
      return "Not answered: busy";
    case 1:
    case 3:
      return "Not answered: the number does not exist in the context (no route)";
    case 21:
      return "Not answered: the call was rejected";
    case 34:
    case 38:
    case 41:
    case 42:
    case 44:
      return `Not answered: congestion (${causeText || `cause ${cause}`})`;
    default:
      return `Not answered: ${causeText || "the call failed"} (cause ${cause})`;
  }
}

const secondsText = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The originated channel as its events tell it, each stamped with the clock when it arrived. */
class ChannelWatch {
  answeredAt: number | null = null;
  /** Sound (not silence) came back after the answer. */
  heardAt: number | null = null;
  hangup: { at: number; cause: number | null; text: string } | null = null;
  /** `OriginateResponse` Failure (`Reason` is the last control frame: 3 ringing, 5 busy, 8 congestion, 0 other). */
  failedReason: number | null = null;
  failedAt: number | null = null;

  constructor(
    private readonly uid: string,
    private readonly dial: string,
    private readonly clock: ProbeClock,
  ) {}

  push(e: AmiMessage): void {
    const name = (e.event ?? "").toLowerCase();
    const mine = e.uniqueid === this.uid;
    if (name === "originateresponse") {
      if ((e.response ?? "").toLowerCase() === "success") {
        if (mine) this.answered();
      } else if (mine || e.channel === this.dial) {
        this.failedReason = Number(e.reason ?? 0) || 0;
        this.failedAt ??= this.clock.now();
      }
      return;
    }
    if (!mine) return;
    if (name === "newstate" && e.channelstate === CHANNEL_ANSWERED) this.answered();
    else if (name === "channeltalkingstart" && this.answeredAt !== null) this.heardAt ??= this.clock.now();
    else if (name === "hangup") {
      const cause = Number(e.cause);
      this.hangup ??= {
        at: this.clock.now(),
        cause: Number.isFinite(cause) && e.cause !== "" ? cause : null,
        text: e["cause-txt"] ?? "",
      };
    }
  }

  private answered(): void {
    this.answeredAt ??= this.clock.now();
  }
}

class DeadlinePassed extends Error {}

/** Why the manager interface could not be used, in the result's words. */
function amiFailure(err: unknown, during: boolean): string {
  if (err instanceof Unavailable) {
    return `AMI not connected: ${err.message.replace(/^The Asterisk manager interface is not connected: /, "")}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ServiceError && !(err instanceof AmiError) && /not connected/i.test(message)) {
    return `AMI not connected: ${message}`;
  }
  return during ? `The manager connection failed during the call: ${message}` : message;
}

/**
 * Places one test call and measures it. Never throws: every failure is an outcome with its sentence, and the
 * channel is hung up whatever happened.
 */
export async function placeTestCall(ami: ProbeAmi, target: ProbeTarget, opts: PlaceOptions): Promise<ProbeOutcome> {
  const { clock, signal } = opts;
  const started = clock.now();
  const deadlineAt = started + overallDeadlineMs(target);
  const answerLimitMs = target.answerWithinSeconds * 1000;
  const result = (parts: Partial<ProbeOutcome>): ProbeOutcome => ({
    ok: false,
    answered: false,
    answerMs: null,
    rxPackets: null,
    txPackets: null,
    lossPercent: null,
    jitterMs: null,
    error: null,
    ...parts,
    // The whole run; set again once the channel is hung up.
    durationMs: Math.max(0, clock.now() - started),
  });
  const stopped = () => signal?.aborted === true || clock.now() >= deadlineAt;
  /** An action, given up at the overall deadline or when the run is aborted. */
  const bounded = <T>(p: Promise<T>): Promise<T> => {
    const left = deadlineAt - clock.now();
    if (left <= 0 || signal?.aborted) {
      p.catch(() => {});
      return Promise.reject(new DeadlinePassed());
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const cut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlinePassed()), left);
      onAbort = () => reject(new DeadlinePassed());
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    return Promise.race([p, cut]).finally(() => {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    });
  };
  const deadlineText = () =>
    signal?.aborted
      ? "The run was stopped (the console is shutting down)"
      : `The run did not finish within its ${Math.round(overallDeadlineMs(target) / 1000)} s deadline`;

  let endpoint: ProbeEndpoint;
  try {
    endpoint = await bounded(ensureProbeEndpoint(ami, target.context, opts.secret));
  } catch (err) {
    return result({ error: err instanceof DeadlinePassed ? deadlineText() : amiFailure(err, false) });
  }

  const uid = opts.channelId ?? `pbxconsole-probe-${target.id}-${started}-${Math.random().toString(16).slice(2, 8)}`;
  const dial = `PJSIP/${target.number.replace(/#/g, "%23")}@${endpoint.name}`;
  const watch = new ChannelWatch(uid, dial, clock);
  const off = ami.onEvent((e) => watch.push(e));
  let originated = false;
  let stats: RtpStats | null = null;
  let sentAt = started;
  const readStats = async (): Promise<RtpStats | null> => {
    try {
      const answer = await bounded(ami.action("Getvar", { Channel: uid, Variable: "CHANNEL(rtcp,all,audio)" }));
      return parseRtcpAll(answer.value);
    } catch (err) {
      // The channel ended between two reads: the last statistics stand.
      if (err instanceof AmiError && /no such channel/i.test(err.message)) return null;
      throw err;
    }
  };

  const measure = async (): Promise<ProbeOutcome> => {
    sentAt = clock.now();
    const limit = ABSOLUTE_MARGIN_S + target.answerWithinSeconds + target.listenSeconds;
    await bounded(
      ami.action("Originate", {
        Channel: dial,
        Application: "Milliwatt",
        Data: "",
        Timeout: String(answerLimitMs),
        CallerID: PROBE_CALLER_ID,
        ChannelId: uid,
        Async: "true",
        Variable: endpoint.talkDetect ? `TIMEOUT(absolute)=${limit},TALK_DETECT(set)=` : `TIMEOUT(absolute)=${limit}`,
      }),
    );
    originated = true;

    const answerBy = sentAt + answerLimitMs + ANSWER_GRACE_MS;
    while (watch.answeredAt === null && watch.hangup === null) {
      if (stopped()) throw new DeadlinePassed();
      // A failed originate is followed by its channel's Hangup, whose cause says why: wait a moment for it.
      if (watch.failedAt !== null && clock.now() - watch.failedAt >= FAILED_HANGUP_WAIT_MS) break;
      if (clock.now() >= answerBy) break;
      await clock.sleep(Math.min(STEP_MS, answerBy - clock.now()));
    }
    if (watch.answeredAt === null) {
      const cause = watch.hangup?.cause ?? (watch.failedReason === 5 ? 17 : watch.failedReason === 8 ? 34 : null);
      return result({ error: notAnswered(cause, watch.hangup?.text ?? "", target.answerWithinSeconds) });
    }
    const answerMs = watch.answeredAt - sentAt;

    const pollMs = opts.pollMs ?? 1_000;
    const listenEnd = watch.answeredAt + target.listenSeconds * 1000;
    let nextPoll = watch.answeredAt + pollMs;
    while (clock.now() < listenEnd && watch.hangup === null) {
      if (stopped()) throw new DeadlinePassed();
      await clock.sleep(Math.min(STEP_MS, listenEnd - clock.now()));
      if (watch.hangup === null && clock.now() >= nextPoll) {
        stats = (await readStats()) ?? stats;
        nextPoll += pollMs;
      }
    }
    if (watch.hangup === null) stats = (await readStats()) ?? stats;

    const measured = {
      answered: true,
      answerMs,
      rxPackets: stats?.rx ?? null,
      txPackets: stats?.tx ?? null,
      lossPercent: stats && stats.rx + stats.lost > 0 ? Math.round((stats.lost * 100) / (stats.rx + stats.lost)) : null,
      jitterMs: stats ? Math.round(stats.jitterS * 1000) : null,
    };
    let error: string | null = null;
    if (answerMs > answerLimitMs) {
      error = `Answered after ${secondsText(answerMs)}, later than the ${target.answerWithinSeconds} s allowed`;
    } else if (watch.hangup !== null) {
      const after = secondsText(watch.hangup.at - (watch.answeredAt ?? sentAt));
      const why = watch.hangup.text ? `: ${watch.hangup.text}` : "";
      error = `Hung up after ${after}, before the ${target.listenSeconds} s listen ended (cause ${watch.hangup.cause ?? "unknown"}${why})`;
    } else if (stats === null) {
      error = "No audio: the call's RTP statistics could not be read";
    } else if (stats.rx === 0) {
      error = `No audio: no RTP packets came back in ${target.listenSeconds} s`;
    } else if (endpoint.talkDetect && watch.heardAt === null) {
      error = `No audio: only silence came back in ${target.listenSeconds} s (${stats.rx} packets)`;
    }
    return result({ ...measured, ok: error === null, error });
  };

  let outcome: ProbeOutcome;
  try {
    outcome = await measure();
  } catch (err) {
    const answered = watch.answeredAt !== null;
    // Assigned inside measure(): TypeScript does not follow that here.
    const last = stats as RtpStats | null;
    const base = {
      answered,
      answerMs: answered ? (watch.answeredAt as number) - sentAt : null,
      rxPackets: last?.rx ?? null,
      txPackets: last?.tx ?? null,
    };
    outcome = result({ ...base, error: err instanceof DeadlinePassed ? deadlineText() : amiFailure(err, originated) });
  } finally {
    off();
    // Always hung up: the channel may be ringing, listening, or already gone ("No such channel" is fine). Not
    // bounded by the run's deadline, only by the action's own timeout.
    if (watch.hangup === null) await ami.action("Hangup", { Channel: uid, Cause: "16" }).catch(() => {});
  }
  return { ...outcome, durationMs: Math.max(0, clock.now() - started) };
}

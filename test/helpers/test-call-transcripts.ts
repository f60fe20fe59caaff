/**
 * Test calls' manager transcripts recorded from the real Asterisk 22 + FreePBX 17 of the testbed
 * (`test/fixtures/test-calls/*.json`, written by `scripts/record-test-call-transcripts.ts`): every action the
 * probe sent with its answer (or Asterisk's error), and the events of its channel, each at its time in
 * milliseconds from the run's start. The probe's secret is never written (`<secret>`).
 *
 * `replayAmi` plays one back to `placeTestCall` on a virtual clock: an action gets the next recorded answer
 * of that name once the clock reaches the time it came; sleeping moves the clock, handing over the events
 * recorded up to then at their own times. So a replay measures what the live run measured.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AmiError, type AmiMessage } from "../../src/server/clients/ami";
import { ServiceError } from "../../src/server/clients/http";
import type { ProbeAmi } from "../../src/server/probes/endpoint";
import type { ProbeClock, ProbeOutcome, ProbeTarget } from "../../src/server/probes/run";

export const TEST_CALL_FIXTURES = join(import.meta.dir, "../fixtures/test-calls");
const SERVICE = "Asterisk manager (AMI)";

export interface ActionEntry {
  t: number;
  action: string;
  fields: Record<string, string>;
  /** When the answer came (or the error). */
  answeredAt: number;
  response?: AmiMessage;
  items?: AmiMessage[];
  /** `Response: Error`'s message ("ami"), or the client's own failure ("service"). */
  error?: { kind: "ami" | "service"; message: string };
}

export interface EventEntry {
  t: number;
  event: AmiMessage;
}

export type TranscriptEntry = ActionEntry | EventEntry;

export interface TestCallTranscript {
  name: string;
  comment: string;
  asterisk: string;
  target: ProbeTarget;
  channelId: string;
  /** What the live run measured. */
  outcome: ProbeOutcome;
  entries: TranscriptEntry[];
}

export const isEvent = (e: TranscriptEntry): e is EventEntry => "event" in e;

export function readTestCallTranscript(name: string): TestCallTranscript {
  return JSON.parse(readFileSync(join(TEST_CALL_FIXTURES, `${name}.json`), "utf8")) as TestCallTranscript;
}

export function testCallTranscriptNames(): string[] {
  return readdirSync(TEST_CALL_FIXTURES)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5))
    .sort();
}

/** Every occurrence of the secrets, anywhere in a value, as `<secret>`. */
export function redactSecrets<T>(value: T, secrets: string[]): T {
  let text = JSON.stringify(value);
  for (const s of secrets) if (s) text = text.split(s).join("<secret>");
  return JSON.parse(text) as T;
}

/**
 * A `ProbeAmi` that records into `entries` what passes through it (actions, answers, errors) at `clock()`
 * times; the events are recorded by the recorder's own listener on the same connection.
 */
export function recordingAmi(ami: ProbeAmi, clock: () => number, entries: TranscriptEntry[]): ProbeAmi {
  const record = async <T>(action: string, fields: Record<string, string>, run: () => Promise<T>, list: boolean) => {
    const entry: ActionEntry = { t: clock(), action, fields: { ...fields }, answeredAt: 0 };
    entries.push(entry);
    try {
      const answer = await run();
      entry.answeredAt = clock();
      if (list) entry.items = answer as AmiMessage[];
      else entry.response = answer as AmiMessage;
      return answer;
    } catch (err) {
      entry.answeredAt = clock();
      entry.error = { kind: err instanceof AmiError ? "ami" : "service", message: (err as Error).message };
      throw err;
    }
  };
  return {
    action: (name, fields) => record(name, fields, () => ami.action(name, fields), false),
    list: (name, fields) => record(name, fields, () => ami.list(name, fields), true),
    onEvent: (listener) => ami.onEvent(listener),
  };
}

export interface Replay {
  ami: ProbeAmi;
  clock: ProbeClock;
  /** The actions the probe sent, in order. */
  sent: { name: string; fields: Record<string, string> }[];
}

/** Plays a transcript back on a virtual clock that starts at the recording's 0. */
export function replayAmi(transcript: TestCallTranscript): Replay {
  const queues = new Map<string, ActionEntry[]>();
  for (const e of transcript.entries) {
    if (isEvent(e)) continue;
    const q = queues.get(e.action) ?? [];
    q.push(e);
    queues.set(e.action, q);
  }
  const events = transcript.entries.filter(isEvent).sort((a, b) => a.t - b.t);
  const listeners = new Set<(e: AmiMessage) => void>();
  const sent: Replay["sent"] = [];
  let now = 0;
  const advance = (to: number) => {
    while (events.length > 0 && (events[0] as EventEntry).t <= to) {
      const e = events.shift() as EventEntry;
      now = Math.max(now, e.t);
      for (const l of [...listeners]) l(e.event);
    }
    now = Math.max(now, to);
  };
  const answer = async (name: string, fields: Record<string, string>): Promise<ActionEntry> => {
    sent.push({ name, fields });
    const entry = queues.get(name)?.shift();
    if (!entry) throw new Error(`replay ${transcript.name}: no recorded ${name} left`);
    advance(entry.answeredAt);
    if (entry.error) {
      throw entry.error.kind === "ami"
        ? new AmiError(SERVICE, entry.error.message)
        : new ServiceError(SERVICE, entry.error.message);
    }
    return entry;
  };
  return {
    sent,
    clock: {
      now: () => now,
      sleep: async (ms) => {
        await Promise.resolve();
        advance(now + ms);
      },
    },
    ami: {
      action: async (name, fields) => (await answer(name, fields)).response ?? {},
      list: async (name, fields) => (await answer(name, fields)).items ?? [],
      onEvent: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}

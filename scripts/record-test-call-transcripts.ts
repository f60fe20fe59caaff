/**
 * Records what the test call probe exchanges with the real Asterisk of the testbed into
 * `test/fixtures/test-calls/*.json` (test/helpers/test-call-transcripts.ts reads them; the unit tests replay
 * them). As root, with the testbed up and nothing else using it (run it under the tests' lock):
 *
 *   flock /tmp/pbx-tests.lock node_modules/.bin/bun scripts/record-test-call-transcripts.ts
 *
 * It resets the testbed, adds the test calls' dial plan (test/pbx/test-call-dialplan.ts), places each test call
 * with the console's own `placeTestCall` over a manager connection of its own, and resets the testbed again.
 * The first run creates the probe endpoint; the probe's secret is written as `<secret>`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AmiClient, type AmiMessage } from "../src/server/clients/ami";
import type { ProbeAmi } from "../src/server/probes/endpoint";
import { type ProbeTarget, placeTestCall } from "../src/server/probes/run";
import {
  recordingAmi,
  redactSecrets,
  TEST_CALL_FIXTURES,
  type TestCallTranscript,
  type TranscriptEntry,
} from "../test/helpers/test-call-transcripts";
import { BUSY, ECHO, HANGS_UP, installTestCallDialplan, RINGS, SILENT } from "../test/pbx/test-call-dialplan";
import { cli, reset, testbed } from "../test/pbx/testbed";

/** Events of the dial plan and reporting classes say nothing the probe reads: left out, as in test/fixtures/ami. */
const NOISE = new Set(["varset", "newexten", "rtcpsent", "rtcpreceived", "cdr", "cel", "newcallerid"]);

const SCENARIOS: { name: string; comment: string; target: Omit<ProbeTarget, "id"> }[] = [
  {
    name: "echo-first-run",
    comment:
      "The echo test *43 right after a reset: the probe endpoint is created (UpdateConfig), then the call passes.",
    target: { number: ECHO, context: "from-internal", answerWithinSeconds: 10, listenSeconds: 4 },
  },
  {
    name: "echo",
    comment: "The echo test *43 with the probe endpoint in place: answered, the tone comes back (sound and packets).",
    target: { number: ECHO, context: "from-internal", answerWithinSeconds: 10, listenSeconds: 4 },
  },
  {
    name: "silent",
    comment: `${SILENT} answers and plays nothing: FreePBX sends silence packets, no sound comes back.`,
    target: { number: SILENT, context: "from-internal", answerWithinSeconds: 10, listenSeconds: 3 },
  },
  {
    name: "no-answer",
    comment: `${RINGS} rings and never answers: Asterisk gives up after answerWithinSeconds.`,
    target: { number: RINGS, context: "from-internal", answerWithinSeconds: 3, listenSeconds: 3 },
  },
  {
    name: "hangs-up",
    comment: `${HANGS_UP} answers, beeps and hangs up before the listen ends.`,
    target: { number: HANGS_UP, context: "from-internal", answerWithinSeconds: 10, listenSeconds: 3 },
  },
  {
    name: "busy",
    comment: `${BUSY} answers busy.`,
    target: { number: BUSY, context: "from-internal", answerWithinSeconds: 10, listenSeconds: 3 },
  },
];

const env = await testbed();
await reset();
await installTestCallDialplan();
const version = (await cli("core show version")).trim().split(/\s+/).slice(0, 2).join(" ");

const client = new AmiClient({
  host: env.amiHost,
  port: env.amiPort,
  username: env.amiUsername,
  secret: env.amiSecret,
});
await new Promise<void>((resolve, reject) => {
  client.onState((s) => (s.connected ? resolve() : reject(new Error(s.reason ?? "AMI login failed"))));
  client.start();
});
const ami: ProbeAmi = {
  action: (name, fields) => client.action(name, fields),
  list: (name, fields) => client.list(name, fields),
  onEvent: (listener) => client.onEvent(listener),
};
const secret = `recorded-probe-${crypto.randomUUID()}`;
mkdirSync(TEST_CALL_FIXTURES, { recursive: true });

try {
  for (const [i, s] of SCENARIOS.entries()) {
    const target: ProbeTarget = { id: i + 1, ...s.target };
    const channelId = `pbxconsole-probe-${target.id}-${Date.now()}-rec`;
    const entries: TranscriptEntry[] = [];
    const t0 = performance.now();
    const clock = () => Math.round(performance.now() - t0);
    const events: { t: number; event: AmiMessage }[] = [];
    const off = client.onEvent((event) => events.push({ t: clock(), event }));
    const outcome = await placeTestCall(recordingAmi(ami, clock, entries), target, {
      clock: { now: clock, sleep: (ms) => Bun.sleep(ms) },
      channelId,
      secret: () => secret,
    });
    await Bun.sleep(500);
    off();
    const dial = `PJSIP/${target.number}@pbx-console-probe-${target.context}`;
    for (const e of events) {
      const name = (e.event.event ?? "").toLowerCase();
      const mine = e.event.uniqueid === channelId || (name === "originateresponse" && e.event.channel === dial);
      if (mine && !NOISE.has(name)) entries.push(e);
    }
    entries.sort((a, b) => a.t - b.t);
    const transcript: TestCallTranscript = {
      name: s.name,
      comment: s.comment,
      asterisk: version,
      target,
      channelId,
      outcome,
      entries,
    };
    writeFileSync(
      join(TEST_CALL_FIXTURES, `${s.name}.json`),
      `${JSON.stringify(redactSecrets(transcript, [secret]), null, 1)}\n`,
    );
    console.log(`${s.name}: ${outcome.ok ? "passed" : `failed: ${outcome.error}`}`);
  }
} finally {
  await client.stop();
  await reset();
}

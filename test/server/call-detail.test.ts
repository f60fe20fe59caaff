/**
 * One call on one page, without a PBX: the records a real call left on the testbed (test/fixtures/cel: a call
 * recorded by FreePBX's dialplan, and one that left a voicemail) turned into legs, events, who answered and the
 * files to read; the AI call tied by header or by caller and time; HTTP ranges and audio headers; and the fixed
 * file commands run here by bash against a directory with a symlink out and a `..` name.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aiCallLogs, callTranscripts } from "../../src/db/schema";
import { callDetail } from "../../src/server/calls/detail";
import {
  aiLines,
  answeredBy,
  celEvents,
  celTransfers,
  legEvents,
  monitorName,
  recordingFiles,
  voicemailLegs,
} from "../../src/server/calls/timeline";
import { buildCall } from "../../src/server/cdr/calls";
import { type CelRow, callIdInstant, type DetailLeg } from "../../src/server/cdr/detail";
import { audioKind } from "../../src/server/pbx/audio";
import {
  FILE_EXPIRED_COMMAND,
  FILE_INFO_COMMAND,
  FILE_RANGE_COMMAND,
  FILE_REMOVE_COMMAND,
  fileExpiredInput,
  fileInfoInput,
  fileRangeInput,
  fileRemoveInput,
  parseExpired,
  parseFileInfo,
} from "../../src/server/pbx/host/files";
import { UnsafeValueError } from "../../src/server/pbx/host/sql";
import { parseRange } from "../../src/server/transport/audio";
import type { CdrCall } from "../../src/shared/live";
import { startTestServer, type TestServer } from "../helpers/server";
import { toneWav } from "../helpers/wav";

// ---------------------------------------------------------------------------------------------------
// The records of two real calls (mysql --batch of the testbed's cdr and cel tables)

function tsv(file: string): Record<string, string>[] {
  const [head, ...lines] = readFileSync(join(import.meta.dir, "../fixtures/cel", file), "utf8")
    .trimEnd()
    .split("\n");
  const names = (head as string).split("\t");
  return lines.map((l) => Object.fromEntries(l.split("\t").map((v, i) => [names[i], v === "NULL" ? "" : v])));
}

const LEGS: DetailLeg[] = tsv("recorded-and-voicemail.cdr.tsv").map((r) => ({
  callId: r.call_id as string,
  origin: r.origin === "1",
  calldate: r.calldate_text as string,
  clid: r.clid as string,
  src: r.src as string,
  dst: r.dst as string,
  channel: r.channel as string,
  dstchannel: r.dstchannel as string,
  duration: Number(r.duration),
  billsec: Number(r.billsec),
  disposition: r.disposition as string,
  uniqueid: r.uniqueid as string,
  did: r.did as string,
  recordingfile: r.recordingfile as string,
  cnum: r.cnum as string,
  cnam: r.cnam as string,
  dstCnam: r.dst_cnam as string,
  sequence: Number(r.sequence),
  dcontext: r.dcontext as string,
  lastapp: r.lastapp as string,
  lastdata: r.lastdata as string,
}));
const CEL: (CelRow & { linkedid: string })[] = tsv("recorded-and-voicemail.cel.tsv").map((r) => ({
  id: Number(r.id),
  eventtype: r.eventtype as string,
  eventtime: r.eventtime as string,
  cidName: r.cid_name as string,
  cidNum: r.cid_num as string,
  exten: r.exten as string,
  context: r.context as string,
  channame: r.channame as string,
  appname: r.appname as string,
  appdata: r.appdata as string,
  uniqueid: r.uniqueid as string,
  linkedid: r.linkedid as string,
  peer: r.peer as string,
  extra: r.extra as string,
}));
const RECORDED = "1796603657.19";
const VOICEMAIL = "1796603663.21";
const legsOf = (id: string) => LEGS.filter((l) => l.callId === id);
const celOf = (id: string) => CEL.filter((r) => r.linkedid === id);

describe("a call's records in words", () => {
  test("the call id says when its first channel began", () => {
    expect(callIdInstant(RECORDED)?.getTime()).toBe(1796603657_000);
    expect(callIdInstant("pbx1-1796603657.19")?.getTime()).toBe(1796603657_000);
    expect(callIdInstant("not-a-call")).toBeNull();
  });

  test("a recorded call: CEL's events in order, who answered, its recording file", () => {
    const events = celEvents(celOf(RECORDED));
    expect(events.map((e) => e.type)).toEqual([
      "CHAN_START",
      "APP_START",
      "APP_END",
      "CHAN_START",
      "ANSWER",
      "ANSWER",
      "BRIDGE_ENTER",
      "BRIDGE_ENTER",
      "BRIDGE_EXIT",
      "BRIDGE_EXIT",
      "HANGUP",
      "CHAN_END",
      "HANGUP",
      "CHAN_END",
      "LINKEDID_END",
    ]);
    expect(events[1]?.text).toBe(
      "2501 started MixMonitor (2026/12/07/internal-2502-2501-20261207-003417-1796603657.19.wav,abi(20261207-003417-1796603657.19),)",
    );
    expect(events.find((e) => e.type === "BRIDGE_ENTER")?.text).toBe("2502 joined the conversation");
    expect(events.every((e) => e.source === "cel" && /\+00:00$|[+-]\d\d:\d\d$/.test(e.at))).toBe(true);
    expect(answeredBy(legsOf(RECORDED))).toBe("2502");
    expect(recordingFiles(legsOf(RECORDED))).toEqual(["internal-2502-2501-20261207-003417-1796603657.19.wav"]);
    expect(celTransfers(celOf(RECORDED))).toEqual([]);
  });

  test("a call to voicemail: the greeting's words are one event, the mailbox and the channel that left the message", () => {
    const events = celEvents(celOf(VOICEMAIL));
    const heard = events.filter((e) => e.type === "STREAM_BEGIN");
    expect(heard).toHaveLength(1);
    expect(heard[0]?.text).toMatch(
      /^2501 heard vm-theperson, digits\/2, digits\/5, digits\/0, digits\/3, vm-isunavail/,
    );
    expect(events.some((e) => e.type === "STREAM_END")).toBe(false);
    expect(answeredBy(legsOf(VOICEMAIL))).toBe("voicemail 2503");
    expect(voicemailLegs(legsOf(VOICEMAIL), celOf(VOICEMAIL))).toEqual({
      mailboxes: ["2503"],
      channels: ["PJSIP/2501-00000005"],
    });
  });

  test("without CEL, the legs' own starts, answers and ends", () => {
    const events = legEvents(legsOf(RECORDED));
    expect(events.map((e) => [e.type, e.text])).toEqual([
      ["LEG_START", "2501 called 2502 (Dial)"],
      ["LEG_ANSWER", "2502 answered"],
      ["LEG_END", "2502: answered, talked 4 s"],
    ]);
  });

  test("a transfer as CEL writes it", () => {
    const row = celOf(RECORDED)[4] as CelRow;
    const blind = {
      ...row,
      eventtype: "BLINDTRANSFER",
      cidNum: "2502",
      extra: '{"extension":"2503","context":"from-internal"}',
    };
    expect(celTransfers([blind])).toEqual([{ at: expect.any(String), kind: "blind", by: "2502", to: "2503" }]);
    expect(celEvents([blind])[0]?.text).toBe("2502 transferred the call to 2503");
    const elsewhere = {
      ...row,
      eventtype: "HANGUP",
      extra: '{"hangupcause":26,"hangupsource":"","dialstatus":"CANCEL"}',
    };
    expect(celEvents([elsewhere])[0]?.text).toBe("2502 hung up (answered elsewhere), dial status CANCEL");
  });

  test("a recording's name is found where FreePBX's cdr module looks, and nowhere else", () => {
    const root = "/var/spool/asterisk/monitor";
    const file = "internal-2502-2501-20261207-003417-1796603657.19.wav";
    expect(monitorName(file, root, "2026-12-08 00:00:01")).toBe(`2026/12/07/${file}`);
    expect(monitorName("odd.wav", root, "2026-12-08 00:00:01")).toBe("2026/12/08/odd.wav");
    expect(monitorName(`${root}/2026/12/07/${file}`, root, "")).toBe(`2026/12/07/${file}`);
    expect(monitorName(`/etc/${file}`, root, "")).toBeNull();
    expect(monitorName("../../../etc/passwd", root, "2026-12-08 00:00:01")).toBeNull();
    expect(monitorName("2026/12/07/x.wav", root, "")).toBe("2026/12/07/x.wav");
  });

  test("an AI call's record lines: tools with their results, the rest as notes", () => {
    const { tools, notes } = aiLines([
      '2026-12-07T00:38:40.100Z take_message: done {"ok":true,"messageId":3}',
      "2026-12-07T00:38:41.000Z transfer_call: refused: There is no extension 9",
      "2026-12-07T00:38:42.000Z ended: caller hung up",
      "not a line",
    ]);
    expect(tools).toEqual([
      { at: "2026-12-07T00:38:40.100Z", name: "take_message", result: 'done {"ok":true,"messageId":3}' },
      { at: "2026-12-07T00:38:41.000Z", name: "transfer_call", result: "refused: There is no extension 9" },
    ]);
    expect(notes).toEqual([{ at: "2026-12-07T00:38:42.000Z", text: "ended: caller hung up" }]);
  });
});

// ---------------------------------------------------------------------------------------------------
// The AI call tied to the PBX call

describe("GET /api/calls/{linkedid} with an AI leg", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());
  beforeEach(() => {
    for (const t of ["ai_call_logs", "call_transcripts"]) s.db.$client.run(`DELETE FROM ${t}`);
  });

  /** The app with the records of `id` as the call records database would answer them. */
  const deps = (id: string) => ({
    ...s.app,
    cdr: { callRecords: async () => ({ legs: legsOf(id), cel: celOf(id), trunks: new Set<string>() }) },
    credentials: { ...s.app.credentials, isConfigured: () => false },
  });
  const startOf = (id: string) => buildCall(id, legsOf(id), new Set()) as CdrCall;

  function aiCall(o: { callId: string; at: number; caller: string; linkedid?: string | null }) {
    s.db
      .insert(aiCallLogs)
      .values({
        callId: o.callId,
        callerNumber: o.caller,
        calledNumber: "7001",
        outcome: "accept",
        linkedid: o.linkedid ?? null,
        events: [`${new Date(o.at + 500).toISOString()} take_message: done {"ok":true}`],
        createdAt: new Date(o.at),
      })
      .run();
    s.db
      .insert(callTranscripts)
      .values({
        callId: o.callId,
        transcript: "Caller: Hello\nAssistant: Hi",
        turns: [
          { at: new Date(o.at + 100).toISOString(), speaker: "caller", text: "Hello" },
          { at: new Date(o.at + 200).toISOString(), speaker: "assistant", text: "Hi" },
        ],
        sentiment: "neutral",
        intent: "message",
        summary: "Left a message",
        outcome: "message taken",
      })
      .run();
  }

  test("tied by the caller's number within the call's time, on the same axis as the legs", async () => {
    const start = Date.parse(startOf(RECORDED).startedAt);
    aiCall({ callId: "rtc_other", at: start + 1000, caller: "2999" });
    aiCall({ callId: "rtc_mine", at: start + 1000, caller: "2501" });
    const d = await callDetail(deps(RECORDED) as never, RECORDED);
    expect(d.ai).toMatchObject({ callId: "rtc_mine", matchedBy: "caller-and-time", outcome: "message taken" });
    expect(d.ai?.classification).toEqual({ sentiment: "neutral", intent: "message", summary: "Left a message" });
    expect(d.ai?.tools.map((t) => t.name)).toEqual(["take_message"]);
    const order = d.events.map((e) => e.type);
    expect(order.indexOf("AI_TURN")).toBeGreaterThan(order.indexOf("CHAN_START"));
    expect(order.indexOf("AI_TOOL")).toBeGreaterThan(order.indexOf("AI_TURN"));
    // The recording is named, but the PBX host is not configured: said, and the rest still shows.
    expect(d.recordings).toEqual([]);
    expect(d.problems.join(" ")).toMatch(/SSH in API Settings/);
  });

  test("the linkedid the INVITE carried wins over a caller-number match; an AI call long before is not this one", async () => {
    const start = Date.parse(startOf(RECORDED).startedAt);
    aiCall({ callId: "rtc_number", at: start + 500, caller: "2501" });
    aiCall({ callId: "rtc_header", at: start + 900, caller: "anonymous", linkedid: RECORDED });
    expect((await callDetail(deps(RECORDED) as never, RECORDED)).ai).toMatchObject({
      callId: "rtc_header",
      matchedBy: "header",
    });
    s.db.$client.run("DELETE FROM ai_call_logs");
    aiCall({ callId: "rtc_yesterday", at: start - 86_400_000, caller: "2501" });
    expect((await callDetail(deps(RECORDED) as never, RECORDED)).ai).toBeUndefined();
  });

  test("an id that is not a call is 404 before any read", async () => {
    for (const id of ["../../etc/passwd", "1", "abc.def", ""]) {
      await expect(callDetail(deps(RECORDED) as never, id)).rejects.toThrow("This call is not in the call records");
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Ranges and audio

describe("range requests", () => {
  test("a part, a suffix, an open end, and what is unsatisfiable", () => {
    expect(parseRange(null, 1000)).toBeNull();
    expect(parseRange("bytes=0-99", 1000)).toEqual({ start: 0, end: 99 });
    expect(parseRange("bytes=900-", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange("bytes=-100", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange("bytes=-5000", 1000)).toEqual({ start: 0, end: 999 });
    expect(parseRange("bytes=990-5000", 1000)).toEqual({ start: 990, end: 999 });
    for (const bad of ["bytes=1000-", "bytes=5-2", "bytes=abc", "items=0-1", "bytes=-", "bytes=0-1,5-6", "bytes=-0"])
      expect(parseRange(bad, 1000), bad).toBe("unsatisfiable");
    expect(parseRange("bytes=0-", 0)).toBe("unsatisfiable");
  });

  test("what a file is comes from its bytes: WAV with its length, GSM frames, MP3, and not audio", () => {
    const wav = toneWav({ rate: 8000, channels: 1, seconds: 2.5 });
    expect(audioKind(wav.subarray(0, 512), wav.length, "x.wav")).toEqual({
      format: "wav",
      contentType: "audio/wav",
      durationS: 2.5,
    });
    // A recording still being written has a data size of 0: it counts to the file's end.
    const growing = new Uint8Array(wav);
    new DataView(growing.buffer).setUint32(40, 0, true);
    expect(audioKind(growing.subarray(0, 512), growing.length, "x.wav")?.durationS).toBe(2.5);
    const gsm = new Uint8Array(33 * 50).map((_, i) => (i % 33 === 0 ? 0xd4 : 7));
    expect(audioKind(gsm.subarray(0, 512), gsm.length, "x.gsm")).toMatchObject({ format: "gsm", durationS: 1 });
    expect(audioKind(new TextEncoder().encode("#!/bin/sh\nrm -rf /\n"), 19, "evil.wav")).toBeNull();
    expect(audioKind(gsm.subarray(0, 512), gsm.length, "x.wav")).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------
// The fixed file commands, run by bash here

describe("the file commands", () => {
  let dir: string;
  let root: string;
  const run = (command: string, stdin: string) => {
    const p = Bun.spawnSync(["bash", "-c", command], { stdin: Buffer.from(stdin) });
    return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pbx-files-"));
    root = join(dir, "monitor");
    mkdirSync(join(root, "2026/12/07"), { recursive: true });
    writeFileSync(join(root, "2026/12/07/a.wav"), toneWav({ rate: 8000, channels: 1, seconds: 1 }));
    writeFileSync(join(root, "2026/12/07/old.wav"), "x".repeat(100));
    writeFileSync(join(root, "2026/12/07/keep.txt"), "notes");
    writeFileSync(join(dir, "secret.wav"), "outside");
    symlinkSync(join(dir, "secret.wav"), join(root, "2026/12/07/link.wav"));
    const old = Date.now() / 1000 - 40 * 86_400;
    utimesSync(join(root, "2026/12/07/old.wav"), old, old);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("info: size and header of a file inside; a symlink out is refused, a missing file is missing", () => {
    const ok = run(FILE_INFO_COMMAND, fileInfoInput(root, "2026/12/07/a.wav"));
    expect(ok.code).toBe(0);
    const info = parseFileInfo(ok.out);
    expect(info?.bytes).toBe(44 + 16000);
    expect(String.fromCharCode(...(info?.head.subarray(0, 4) ?? []))).toBe("RIFF");
    expect(run(FILE_INFO_COMMAND, fileInfoInput(root, "2026/12/07/link.wav")).code).toBe(4);
    expect(run(FILE_INFO_COMMAND, fileInfoInput(root, "2026/12/07/none.wav")).code).toBe(3);
    // `..` never reaches the command from here, and the command refuses it anyway.
    expect(() => fileInfoInput(root, "../secret.wav")).toThrow(UnsafeValueError);
    expect(run(FILE_INFO_COMMAND, `${root}\n../secret.wav\n`).code).toBe(2);
    expect(run(FILE_INFO_COMMAND, `${root}\n2026/12/07/$(id).wav\n`).code).toBe(2);
  });

  test("range: the bytes asked for, by a seek", () => {
    const got = Bun.spawnSync(["bash", "-c", FILE_RANGE_COMMAND], {
      stdin: Buffer.from(fileRangeInput(root, "2026/12/07/a.wav", 40, 8)),
    });
    expect(got.exitCode).toBe(0);
    const wav = readFileSync(join(root, "2026/12/07/a.wav"));
    expect(new Uint8Array(got.stdout)).toEqual(new Uint8Array(wav.subarray(40, 48)));
  });

  test("expired and remove: only the old file goes; a symlink out is left, and what it points at", () => {
    const listed = parseExpired(run(FILE_EXPIRED_COMMAND, fileExpiredInput(root, 30)).out);
    expect(listed).toEqual([{ name: "2026/12/07/old.wav", bytes: 100 }]);
    expect(parseExpired(run(FILE_EXPIRED_COMMAND, fileExpiredInput(root, 60)).out)).toEqual([]);
    const removed = run(FILE_REMOVE_COMMAND, fileRemoveInput(root, ["2026/12/07/old.wav", "2026/12/07/link.wav"]));
    expect(removed.out.trim().split("\n")).toEqual(["2026/12/07/old.wav"]);
    expect(readFileSync(join(dir, "secret.wav"), "utf8")).toBe("outside");
    expect(run(FILE_REMOVE_COMMAND, `${root}\n../secret.wav\n`).out).toBe("");
    expect(readFileSync(join(dir, "secret.wav"), "utf8")).toBe("outside");
  });
});

/**
 * Voicemail on the real FreePBX 17 + Asterisk 22: an extension with voicemail deployed through the console, a call
 * its phone does not answer goes to its mailbox and the caller's phone (a 440 Hz tone) leaves a message; the
 * message appears through the API within seconds (with the mailbox's `voicemail-updated` on the WebSocket, from
 * Asterisk's MWI), its audio is the WAV app_voicemail wrote (whole, a range 206, a bad range 416), Move to Old
 * moves its files in the spool, and Delete removes them. A greeting uploaded through the console becomes
 * `<mailbox>/unavail.wav`, 8 kHz mono 16-bit as sox reads it, owned by asterisk, and the next caller hears it (CEL
 * records app_voicemail playing that file).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { VoicemailMessages } from "../../src/shared/voicemail";
import { toneWav } from "../helpers/wav";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, sh, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const BOX = "/var/spool/asterisk/voicemail/default/2901";
/** The message files of the mailbox in the spool, relative to it (`INBOX/msg0000.wav`). */
const spool = () => {
  try {
    return (readdirSync(BOX, { recursive: true }) as string[]).filter((f) => /\/msg\d{4}\./.test(f)).sort();
  } catch {
    return [];
  }
};
const messages = async () => {
  const res = await pbx.call("GET", "/api/voicemail/2901/messages");
  expect(res.status, res.text).toBe(200);
  return res.json as VoicemailMessages;
};
const audio = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${pbx.bin.base}${path}`, { headers: { cookie: pbx.bin.cookie, ...headers } });

let ws: WebSocket;
const events: { type: string; data?: unknown; at: number }[] = [];

describe("a voicemail left by a real call", () => {
  let caller: Softphone;
  let callee: Softphone;
  let id = "";

  beforeAll(async () => {
    const ids: Record<string, number> = {};
    for (const [extension, name, voicemail] of [
      ["2901", "Voice Box", true],
      ["2902", "Caller", false],
    ] as const)
      ids[extension] = (await pbx.create("/api/extensions", { extension, name, voicemail })).id;
    await pbx.deploy("all");
    expect(await cli("voicemail show users for default")).toMatch(/default\s+2901\s+Voice Box/);
    caller = await phone({ user: "2902", secret: await pbx.sipSecret(ids["2902"] as number) });
    // Registered, never answering: the call rings out to the mailbox.
    callee = await phone({ user: "2901", secret: await pbx.sipSecret(ids["2901"] as number) });
    ws = new WebSocket(`ws://127.0.0.1:${pbx.bin.port}/ws?type=sync`, {
      headers: { cookie: pbx.bin.cookie },
    } as never);
    ws.onmessage = (m) => {
      const e = JSON.parse(String(m.data));
      events.push({ type: e.type, data: e.data, at: performance.now() });
    };
    await new Promise((done, fail) => {
      ws.onopen = done;
      ws.onerror = fail;
    });
    await until("the console's manager connection", async () =>
      (await pbx.call("GET", "/api/pbx/status")).json.connected ? true : undefined,
    );
  }, 600_000);
  afterAll(() => ws?.close());

  test("the mailbox is there and empty; another number is 404", async () => {
    const box = await messages();
    expect(box.items).toEqual([]);
    expect(box.usage.maxMessages).toBe(100);
    expect((await pbx.call("GET", "/api/voicemail/2902/messages")).status).toBe(404);
    const picker = (await pbx.call("GET", "/api/voicemail")).json;
    expect(picker.items).toEqual([{ mailbox: "2901", name: "Voice Box", onPbx: true, newMessages: 0, oldMessages: 0 }]);
  });

  test("an unanswered call leaves a message that the API lists within seconds", async () => {
    const from = caller.events.length;
    await caller.dial("2901");
    await callee.waitFor("CALL_INCOMING", { ms: 20_000 });
    // Nobody answers: after the ring time app_voicemail answers the caller, plays the greeting and the beep, then records.
    await caller.waitFor("CALL_ESTABLISHED", { since: from, ms: 60_000 });
    const recording = await until(
      "the recording to start",
      () => {
        try {
          const tmp = join(BOX, "tmp");
          const f = readdirSync(tmp).find((n) => /\.wav$/i.test(n));
          return f ? join(tmp, f) : undefined;
        } catch {
          return undefined;
        }
      },
      60_000,
    );
    // Three seconds of the caller's tone (8 kHz, 16-bit: 16,000 bytes a second after the header).
    await until(
      "three seconds recorded",
      () => (statSync(recording).size > 44 + 3 * 16_000 ? true : undefined),
      30_000,
    );
    const hungUp = performance.now();
    await caller.hangup();
    await caller.waitFor("CALL_CLOSED", { since: from });
    const listed = await until(
      "the message in the API",
      async () => {
        const box = await messages();
        return box.items.length === 1 ? box : undefined;
      },
      10_000,
    );
    const listedAfter = (performance.now() - hungUp) / 1000;
    expect(listedAfter).toBeLessThan(10);
    const [message] = listed.items;
    id = message?.id ?? "";
    expect(message).toMatchObject({ folder: "INBOX", callerId: expect.stringContaining("<2902>") });
    expect(message?.durationS).toBeGreaterThanOrEqual(2);
    expect(Math.abs(Date.parse(message?.receivedAt ?? "") - Date.now())).toBeLessThan(120_000);
    expect(listed.usage.folders.INBOX).toBe(1);
    expect(spool()).toEqual(["INBOX/msg0000.txt", "INBOX/msg0000.wav"]);
    // Asterisk's MWI for the mailbox reached the open consoles.
    await until("voicemail-updated for 2901", () =>
      events.some((e) => e.type === "voicemail-updated" && (e.data as { mailbox?: string })?.mailbox === "2901")
        ? true
        : undefined,
    );
  }, 180_000);

  test("its audio: the WAV app_voicemail wrote, a range of it (206) and a bad range (416)", async () => {
    const size = statSync(join(BOX, "INBOX/msg0000.wav")).size;
    const url = `/api/voicemail/2901/messages/${id}/audio`;
    const whole = await audio(url);
    expect(whole.status).toBe(200);
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(bytes.length).toBe(size);
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe("RIFF");
    expect(new TextDecoder().decode(bytes.slice(8, 12))).toBe("WAVE");
    const part = await audio(url, { range: "bytes=0-99" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${size}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(0, 100));
    const past = await audio(url, { range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect((await audio(url, { range: "bytes=oops" })).status).toBe(416);
    expect((await audio(`/api/voicemail/2901/messages/${id.split("-")[0]}-ffffffff/audio`)).status).toBe(404);
  });

  test("Move to Old moves its files; Delete removes them from the spool", async () => {
    const moved = await pbx.call("PATCH", `/api/voicemail/2901/messages/${id}`, { folder: "Old" });
    expect(moved.status, moved.text).toBe(200);
    expect(spool()).toEqual(["Old/msg0000.txt", "Old/msg0000.wav"]);
    expect((await messages()).items.map((m) => m.folder)).toEqual(["Old"]);
    const deleted = await pbx.call("DELETE", `/api/voicemail/2901/messages/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(spool()).toEqual([]);
    expect((await messages()).items).toEqual([]);
    expect((await pbx.call("DELETE", `/api/voicemail/2901/messages/${id}`)).status).toBe(404);
  });

  test("a greeting uploaded through the console is <mailbox>/unavail.wav, 8 kHz mono 16-bit, asterisk's, and the next caller hears it", async () => {
    const form = new FormData();
    form.append("file", new Blob([toneWav({ rate: 44_100, channels: 2, seconds: 2 })]), "away.wav");
    const res = await fetch(`${pbx.bin.base}/api/voicemail/2901/greetings/unavail`, {
      method: "POST",
      headers: { cookie: pbx.bin.cookie },
      body: form,
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ kind: "unavail", present: true, durationS: 2 });
    const file = join(BOX, "unavail.wav");
    const info = async (flag: string) => (await sh(["sox", "--i", flag, file])).stdout.trim();
    expect([await info("-r"), await info("-c"), await info("-b"), await info("-e")]).toEqual([
      "8000",
      "1",
      "16",
      "Signed Integer PCM",
    ]);
    expect((await sh(["stat", "-c", "%U:%G", file])).stdout.trim()).toBe("asterisk:asterisk");
    // Asterisk reads it as a sound it can play: the greeting app_voicemail plays for an unanswered call.
    expect(await cli(`file convert ${file} /tmp/pbx-vm-greeting-check.gsm`)).toMatch(/Converted/);
    await sh(["rm", "-f", "/tmp/pbx-vm-greeting-check.gsm"]);
    // The next caller hears it: CEL records the voicemail application playing this file, not the number read out.
    const from = caller.events.length;
    await caller.dial("2901");
    await caller.waitFor("CALL_ESTABLISHED", { since: from, ms: 60_000 });
    const played = await until(
      "the greeting played to the caller",
      async () => {
        const rows = await sql(
          "asteriskcdrdb",
          "SELECT extra FROM cel WHERE eventtype = 'STREAM_BEGIN' AND appname = 'VoiceMail' ORDER BY id DESC LIMIT 20",
        );
        return rows.find((r) => /\/2901\/unavail"/.test(String(r[0]))) ? rows : undefined;
      },
      60_000,
    );
    expect(played.length).toBeGreaterThan(0);
    await caller.hangup();
    await caller.waitFor("CALL_CLOSED", { since: from });
  }, 180_000);
});

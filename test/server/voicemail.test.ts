/**
 * Voicemail over HTTP on a real FreePBX 17 copy (test/pbx-host): its real Asterisk 22 with app_voicemail,
 * reached over the manager interface (list, move, delete, MWI), and its spool over real SSH (audio, greetings,
 * the call's message). Messages are put in the spool as app_voicemail leaves them (`msgNNNN.txt` + `.wav`).
 * Refusals: a mailbox the PBX does not have in `default`, a message id not in it and ids that cannot be either
 * are 404; a viewer is refused (403) until an administrator allows listening; ranges malformed or past the end
 * are 416. Every play and download is in the audit trail, a seek is not.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findCallVoicemail } from "../../src/server/voicemail/messages";
import type { AuditEntry } from "../../src/shared/audit";
import type { VoicemailBoxes, VoicemailGreetings, VoicemailMessages } from "../../src/shared/voicemail";
import type { WsEvent } from "../../src/shared/ws-events";
import { voicemailDate } from "../fakes/ami";
import { startTestServer, type TestServer } from "../helpers/server";
import { toneWav, wavFormat } from "../helpers/wav";
import { type PbxHost, startPbxHost, stockVoicemailConf } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);

let pbx: PbxHost;
let s: TestServer;
let box: string;
let amiEnv: Record<string, string>;
const published: WsEvent[] = [];
const VIEWER = { username: "watcher", password: "viewer password 12" };

/** The message app_voicemail writes beside each recording. */
const messageTxt = (o: { id: string; at: number; channel: string; callerId: string; duration: number }) =>
  [
    ";",
    "; Message Information file",
    ";",
    "[message]",
    "origmailbox=2901",
    "context=from-internal",
    "macrocontext=",
    "exten=2901",
    "rdnis=unknown",
    "priority=1",
    `callerchan=${o.channel}`,
    `callerid=${o.callerId}`,
    `origdate=${voicemailDate(o.at * 1000)}`,
    `origtime=${o.at}`,
    "category=",
    `msg_id=${o.id}`,
    "flag=",
    `duration=${o.duration}`,
    "",
  ].join("\n");

const AT = 1796602901;
const FIRST = `${AT}-00000005`;
const SECOND = `${AT + 60}-00000006`;
const wav = toneWav({ rate: 8000, channels: 1, seconds: 2 });

function putMessage(folder: string, n: number, o: Parameters<typeof messageTxt>[0]) {
  const dir = join(box, folder);
  mkdirSync(dir, { recursive: true });
  const name = `msg${String(n).padStart(4, "0")}`;
  writeFileSync(join(dir, `${name}.txt`), messageTxt(o));
  writeFileSync(join(dir, `${name}.wav`), wav);
}

/** Files under the mailbox directory, relative to it. */
const files = () => (existsSync(box) ? (readdirSync(box, { recursive: true }) as string[]).sort() : []);

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

const audits = async (action: string) =>
  ((await s.call("GET", `/api/audit?action=${action}`)).json.items ?? []) as AuditEntry[];

beforeAll(async () => {
  pbx = await startPbxHost();
  const rows = await pbx.query(
    "SELECT keyword, value FROM freepbx_settings WHERE keyword IN ('AMPMGRUSER', 'AMPMGRPASS', 'ASTMANAGERPORT', 'ASTSPOOLDIR')",
  );
  const setting = (k: string) => String(rows.find((r) => r.keyword === k)?.value ?? "");
  box = join(setting("ASTSPOOLDIR"), "voicemail", "default", "2901");
  amiEnv = {
    AMI_HOST: "127.0.0.1",
    AMI_PORT: setting("ASTMANAGERPORT"),
    AMI_USERNAME: setting("AMPMGRUSER"),
    AMI_SECRET: setting("AMPMGRPASS"),
  };
  pbx.setVoicemailConf(
    `${stockVoicemailConf().replace(/\n?$/, "\n")}[default]\n2901 => 4242,Alice,,,attach=no|saycid=no|envelope=no|delete=no\n2902 => 4343,Bob,,,\n[other]\n2903 => 1111,Elsewhere,,,\n`,
  );
  expect(await pbx.cli("voicemail reload")).toContain("Reloading voicemail");
  // app_voicemail copies and deletes a message's audio through Asterisk's file formats: the host loads none.
  expect(await pbx.cli("module load format_wav.so")).toContain("Loaded");
  s = await startTestServer({ ...pbx.consoleEnv(), PBX_SSH_HOST_KEY: pbx.ssh.hostKeyFingerprint, ...amiEnv });
  await s.setup();
  expect((await s.call("POST", "/api/users", { ...VIEWER, role: "viewer" })).status).toBe(201);
  await s.call("POST", "/api/extensions", { extension: "2901", name: "Alice", voicemail: true });
  await s.call("POST", "/api/extensions", { extension: "2904", name: "Dora", voicemail: true });
  await s.call("POST", "/api/extensions", { extension: "2905", name: "Eve" });
  const hub = s.app.events;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    published.push(event);
    send(event);
  };
  await until("the manager connection", () => s.app.live.status().connected || undefined);
}, 120_000);
afterAll(async () => {
  await s?.stop();
  await pbx?.stop();
});
beforeEach(() => {
  rmSync(box, { recursive: true, force: true });
  putMessage("INBOX", 0, { id: FIRST, at: AT, channel: "PJSIP/2902-00000001", callerId: '"Bob" <2902>', duration: 7 });
  putMessage("Old", 0, {
    id: SECOND,
    at: AT + 60,
    channel: "PJSIP/provider-00000002",
    callerId: '"" <+15550100>',
    duration: 12,
  });
});

describe("mailboxes and messages", () => {
  test("the picker: the console's extensions with voicemail on, with what Asterisk has of each", async () => {
    const res = await s.call("GET", "/api/voicemail");
    expect(res.status, res.text).toBe(200);
    expect(res.json as VoicemailBoxes).toEqual({
      reason: null,
      items: [
        { mailbox: "2901", name: "Alice", onPbx: true, newMessages: 1, oldMessages: 1 },
        { mailbox: "2904", name: "Dora", onPbx: false, newMessages: null, oldMessages: null },
      ],
    });
  });

  test("a mailbox's messages, newest first, with each folder's count against the limit", async () => {
    const res = await s.call("GET", "/api/voicemail/2901/messages");
    expect(res.status, res.text).toBe(200);
    const body = res.json as VoicemailMessages;
    expect(body.items).toEqual([
      {
        id: SECOND,
        folder: "Old",
        callerId: '"" <+15550100>',
        receivedAt: new Date((AT + 60) * 1000).toISOString(),
        durationS: 12,
      },
      // The summary's date is app_voicemail's `origdate` (its words, in UTC).
      { id: FIRST, folder: "INBOX", callerId: '"Bob" <2902>', receivedAt: "2026-12-07T00:21:41.000Z", durationS: 7 },
    ]);
    expect(body.usage).toEqual({
      folders: { INBOX: 1, Old: 1, Urgent: 0, Work: 0, Family: 0, Friends: 0 },
      maxMessages: 100,
    });
  });

  test("404: a mailbox not in context default, a number that is no mailbox, a message not in the mailbox", async () => {
    for (const path of [
      "/api/voicemail/2903/messages",
      "/api/voicemail/2999/messages",
      "/api/voicemail/abc/messages",
      "/api/voicemail/12345678901/messages",
      `/api/voicemail/2902/messages/${FIRST}/audio`,
      "/api/voicemail/2901/messages/1796602901-00000099/audio",
      "/api/voicemail/2901/messages/..%2F..%2Fetc/audio",
      "/api/voicemail/2901/messages/msg0000/audio",
    ]) {
      const res = await s.call("GET", path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    const move = await s.call("PATCH", "/api/voicemail/2902/messages/1796602901-00000005", { folder: "Old" });
    expect(move.status).toBe(404);
    expect((await s.call("DELETE", `/api/voicemail/2903/messages/${FIRST}`)).status).toBe(404);
    expect(files()).toContain("INBOX/msg0000.wav");
  });

  test("a folder the console does not know is a field error, and nothing moves", async () => {
    const res = await s.call("PATCH", `/api/voicemail/2901/messages/${FIRST}`, { folder: "Deleted" });
    expect(res.status).toBe(400);
    expect(res.json.error.fields).toEqual({
      folder: "Folder must be one of INBOX, Old, Urgent, Work, Family, Friends",
    });
    expect(files()).toContain("INBOX/msg0000.wav");
  });
});

describe("audio", () => {
  const audio = (id: string, headers: Record<string, string> = {}, query = "") =>
    fetch(`${s.base}/api/voicemail/2901/messages/${id}/audio${query}`, { headers: { cookie: s.cookie, ...headers } });

  test("the whole file, a range of it (206), and ranges malformed or past the end (416)", async () => {
    const whole = await audio(FIRST);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/wav");
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(whole.headers.get("content-disposition")).toBe('inline; filename="voicemail-2901-20261207T002141.wav"');
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(wav);

    const part = await audio(FIRST, { range: "bytes=100-199" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${wav.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(wav.slice(100, 200));

    for (const range of ["bytes=abc", `bytes=${wav.length}-`, "bytes=5-2", "items=0-10", "bytes=0-1,5-6"]) {
      const res = await audio(FIRST, { range });
      expect({ range, status: res.status }).toEqual({ range, status: 416 });
      expect(res.headers.get("content-range")).toBe(`bytes */${wav.length}`);
    }
    const download = await audio(SECOND, {}, "?download=1");
    expect(download.headers.get("content-disposition")).toStartWith("attachment;");
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(wav);
  });

  test("every play and download is audited once; a seek is not", async () => {
    const plays = (await audits("voicemail.play")).length;
    const downloads = (await audits("voicemail.download")).length;
    await (await audio(FIRST)).arrayBuffer();
    await (await audio(FIRST, { range: "bytes=0-" })).arrayBuffer();
    await (await audio(FIRST, { range: "bytes=1000-" })).arrayBuffer();
    await (await audio(FIRST, { range: "bytes=-100" })).arrayBuffer();
    await (await audio(FIRST, {}, "?download=1")).arrayBuffer();
    const played = await audits("voicemail.play");
    expect(played.length).toBe(plays + 2);
    expect(played[0]).toMatchObject({
      actor: "admin",
      outcome: "ok",
      objectType: "voicemail",
      objectId: FIRST,
      objectLabel: "mailbox 2901",
    });
    expect((await audits("voicemail.download")).length).toBe(downloads + 1);
  });

  test("a viewer is refused until an administrator allows listening (and the refusal is audited)", async () => {
    const admin = s.cookie;
    const viewer = await startViewer();
    try {
      for (const path of ["/api/voicemail", "/api/voicemail/2901/messages", "/api/voicemail/2901/greetings"]) {
        const res = await viewer.call("GET", path);
        expect({ path, status: res.status }).toEqual({ path, status: 403 });
      }
      const refused = await viewer.call("GET", `/api/voicemail/2901/messages/${FIRST}/audio`);
      expect(refused.status).toBe(403);
      expect((await audits("voicemail.play"))[0]).toMatchObject({ actor: VIEWER.username, outcome: "denied" });
      // Writes need an operator whatever the setting.
      expect((await viewer.call("DELETE", `/api/voicemail/2901/messages/${FIRST}`)).status).toBe(403);
      s.cookie = admin;
      const allow = await s.call("PUT", "/api/settings/audio", {
        viewersMayListen: true,
        recordingRetentionDays: null,
      });
      expect(allow.status, allow.text).toBe(200);
      expect((await viewer.call("GET", "/api/voicemail/2901/messages")).status).toBe(200);
      const played = await fetch(`${s.base}/api/voicemail/2901/messages/${FIRST}/audio`, {
        headers: { cookie: viewer.cookie },
      });
      expect(played.status).toBe(200);
      await played.arrayBuffer();
      expect((await audits("voicemail.play"))[0]).toMatchObject({ actor: VIEWER.username, outcome: "ok" });
    } finally {
      s.cookie = admin;
      await s.call("PUT", "/api/settings/audio", { viewersMayListen: false, recordingRetentionDays: null });
    }
  });
});

/** The same server signed in as the viewer (its own cookie jar). */
async function startViewer() {
  let cookie = "";
  const login = await fetch(`${s.base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(VIEWER),
  });
  expect(login.status).toBe(200);
  cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
  return {
    cookie,
    async call(method: string, path: string) {
      const res = await fetch(`${s.base}${path}`, { method, headers: { cookie, "content-type": "application/json" } });
      return { status: res.status, text: await res.text() };
    },
  };
}

describe("move and delete through app_voicemail", () => {
  test("move to Old: Asterisk renumbers the file into Old, and the mailbox's open views hear of it", async () => {
    const from = published.length;
    const res = await s.call("PATCH", `/api/voicemail/2901/messages/${FIRST}`, { folder: "Old" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: FIRST, folder: "Old" });
    expect(files()).toEqual(expect.arrayContaining(["Old/msg0000.wav", "Old/msg0001.txt", "Old/msg0001.wav"]));
    expect(files().filter((f) => f.startsWith("INBOX/msg"))).toEqual([]);
    const listed = (await s.call("GET", "/api/voicemail/2901/messages")).json as VoicemailMessages;
    expect(listed.items.map((m) => [m.id, m.folder])).toEqual([
      [SECOND, "Old"],
      [FIRST, "Old"],
    ]);
    expect(listed.usage.folders.Old).toBe(2);
    // The console's own event, and the one the manager interface's MessageWaiting gives.
    await until("two voicemail-updated events", () =>
      published.slice(from).filter((e) => e.type === "voicemail-updated").length >= 2 ? true : undefined,
    );
    expect(published.slice(from).filter((e) => e.type === "voicemail-updated")).toEqual([
      { type: "voicemail-updated", data: { mailbox: "2901" } },
      { type: "voicemail-updated", data: { mailbox: "2901" } },
    ]);
    expect((await audits("voicemail.move"))[0]).toMatchObject({ objectId: FIRST, detail: "moved to Old" });
  });

  test("delete: the message's files are gone from the spool; the other message stays", async () => {
    const res = await s.call("DELETE", `/api/voicemail/2901/messages/${SECOND}`);
    expect(res.status, res.text).toBe(200);
    expect(files().filter((f) => /msg\d{4}/.test(f))).toEqual(["INBOX/msg0000.txt", "INBOX/msg0000.wav"]);
    const listed = (await s.call("GET", "/api/voicemail/2901/messages")).json as VoicemailMessages;
    expect(listed.items.map((m) => m.id)).toEqual([FIRST]);
    expect((await s.call("DELETE", `/api/voicemail/2901/messages/${SECOND}`)).status).toBe(404);
  });
});

describe("greetings", () => {
  const upload = (kind: string, bytes: Uint8Array<ArrayBuffer> | string, name = "hello.wav") => {
    const form = new FormData();
    form.append("file", new Blob([bytes], { type: "audio/wav" }), name);
    return s.call("POST", `/api/voicemail/2901/greetings/${kind}`, form);
  };

  test("an upload becomes <mailbox>/unavail.wav, 8 kHz mono 16-bit; it plays; a delete removes it", async () => {
    const res = await upload("unavail", toneWav({ rate: 44_100, channels: 2, seconds: 1.5 }));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ kind: "unavail", present: true, durationS: 1.5 });
    const stored = readFileSync(join(box, "unavail.wav"));
    expect(wavFormat(stored)).toMatchObject({ audioFormat: 1, channels: 1, rate: 8000, bits: 16 });
    const listed = (await s.call("GET", "/api/voicemail/2901/greetings")).json as VoicemailGreetings;
    expect(listed.items.map((g) => [g.kind, g.present])).toEqual([
      ["unavail", true],
      ["busy", false],
      ["greet", false],
      ["temp", false],
    ]);
    const played = await fetch(`${s.base}/api/voicemail/2901/greetings/unavail/audio`, {
      headers: { cookie: s.cookie },
    });
    expect(played.status).toBe(200);
    expect(Buffer.from(await played.arrayBuffer()).equals(stored)).toBe(true);
    expect((await audits("voicemail-greeting.play"))[0]).toMatchObject({
      objectLabel: "unavail greeting of mailbox 2901",
    });
    // A replacement takes the place of the old one and of its files in other formats.
    writeFileSync(join(box, "unavail.gsm"), new Uint8Array(33));
    expect((await upload("unavail", toneWav({ rate: 8000, channels: 1, seconds: 0.5 }))).status).toBe(200);
    expect(files().filter((f) => f.startsWith("unavail"))).toEqual(["unavail.wav"]);
    const removed = await s.call("DELETE", "/api/voicemail/2901/greetings/unavail");
    expect(removed.status, removed.text).toBe(200);
    expect(removed.json).toEqual({ mailbox: "2901", kind: "unavail", removedFiles: ["unavail.wav"] });
    expect(existsSync(join(box, "unavail.wav"))).toBe(false);
    expect((await s.call("DELETE", "/api/voicemail/2901/greetings/unavail")).status).toBe(404);
  });

  test("refused: not audio (a field message), an unknown kind or mailbox; nothing is stored", async () => {
    const notAudio = await upload("busy", "these are notes, not a sound");
    expect(notAudio.status).toBe(400);
    expect(notAudio.json.error.fields).toEqual({ file: "The file is not WAV or MP3 audio" });
    expect((await upload("welcome", toneWav({ rate: 8000, channels: 1, seconds: 0.2 }))).status).toBe(404);
    const form = new FormData();
    form.append("file", new Blob([toneWav({ rate: 8000, channels: 1, seconds: 0.2 })]), "x.wav");
    expect((await s.call("POST", "/api/voicemail/2903/greetings/busy", form)).status).toBe(404);
    expect(files().filter((f) => !f.includes("/"))).toEqual(["INBOX", "Old"]);
  });
});

describe("the call's voicemail (for the call detail page)", () => {
  test("found by the mailbox's caller channel and time; another channel or a later time is none", async () => {
    const q = {
      mailboxes: ["2901", "2902"],
      channels: ["PJSIP/2902-00000001"],
      from: new Date((AT - 20) * 1000),
      to: new Date((AT - 5) * 1000),
    };
    expect(await findCallVoicemail(s.app, q)).toEqual({
      mailbox: "2901",
      folder: "INBOX",
      id: FIRST,
      receivedAt: new Date(AT * 1000).toISOString(),
      durationS: 7,
      callerId: '"Bob" <2902>',
      url: `/api/voicemail/2901/messages/${FIRST}/audio`,
    });
    expect(await findCallVoicemail(s.app, { ...q, channels: ["PJSIP/2903-00000009"] })).toBeNull();
    expect(await findCallVoicemail(s.app, { ...q, to: new Date((AT - 61) * 1000) })).toBeNull();
    expect(await findCallVoicemail(s.app, { ...q, mailboxes: ["2902"] })).toBeNull();
  });
});

describe("without the manager interface", () => {
  test("messages are 503 with the reason; the picker lists the mailboxes, its counts unknown", async () => {
    const other = await startTestServer(pbx.consoleEnv());
    try {
      await other.setup();
      await other.call("POST", "/api/extensions", { extension: "2901", name: "Alice", voicemail: true });
      const res = await other.call("GET", "/api/voicemail/2901/messages");
      expect(res.status).toBe(503);
      expect(res.json.error.message).toStartWith("The Asterisk manager interface is not connected");
      const boxes = (await other.call("GET", "/api/voicemail")).json as VoicemailBoxes;
      expect(boxes.items).toEqual([
        { mailbox: "2901", name: "Alice", onPbx: null, newMessages: null, oldMessages: null },
      ]);
      expect(boxes.reason).toStartWith("The Asterisk manager interface is not connected");
      expect((await other.call("DELETE", `/api/voicemail/2901/messages/${FIRST}`)).status).toBe(503);
      expect(files()).toContain("INBOX/msg0000.wav");
    } finally {
      await other.stop();
    }
  });
});

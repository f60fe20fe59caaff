/**
 * System recordings over real SSH on a real FreePBX 17 copy (test/pbx-host), with sox on the host: an upload is
 * converted to 8 kHz mono 16-bit WAV under ASTVARLIBDIR/sounds/<language>/custom and gets the `recordings` row
 * FreePBX's page writes; a refused upload (not audio, over 20 MB, a bad or taken name) answers 4xx with a field
 * message and stores nothing, neither row nor file. Rename, playback, and a delete refused while an IVR plays it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SOUND_STORE_COMMAND, soundStoreInput } from "../../src/server/pbx/host/sounds";
import { storeFailure } from "../../src/server/pbx/recordings/recordings";
import { sniffAudio } from "../../src/server/pbx/recordings/sniff";
import {
  RECORDING_MAX_BYTES,
  RECORDING_NAME_RULE,
  RECORDING_NOT_AUDIO,
  RECORDING_TOO_LARGE,
} from "../../src/shared/recordings";
import { startTestServer, type TestServer } from "../helpers/server";
import { toneWav, wavFormat } from "../helpers/wav";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);
let pbx: PbxHost;
let s: TestServer;
let sounds: string;

beforeAll(async () => {
  pbx = await startPbxHost();
  const [row] = await pbx.query("SELECT value FROM freepbx_settings WHERE keyword = 'ASTVARLIBDIR'");
  sounds = join(String(row?.value), "sounds");
  s = await startTestServer(pbx.consoleEnv());
  await s.setup();
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await pbx?.stop();
});
beforeEach(async () => {
  await pbx.query("DELETE FROM recordings");
  await pbx.query("DELETE FROM ivr_details");
  Bun.spawnSync(["rm", "-rf", join(sounds, "en", "custom")]);
});

const form = (o: {
  name?: string;
  description?: string;
  file?: Uint8Array<ArrayBuffer> | string;
  filename?: string;
  type?: string;
}) => {
  const f = new FormData();
  if (o.name !== undefined) f.append("name", o.name);
  if (o.description !== undefined) f.append("description", o.description);
  if (o.file !== undefined)
    f.append("file", new Blob([o.file], { type: o.type ?? "audio/wav" }), o.filename ?? "upload.wav");
  return f;
};
/** `audio` behind an ID3v2.3 tag holding one title frame ("TIT2"), as tagging tools write it. */
function withId3(audio: Uint8Array): Uint8Array<ArrayBuffer> {
  const title = new TextEncoder().encode("\u0000Closed");
  const frame = new Uint8Array([...new TextEncoder().encode("TIT2"), 0, 0, 0, title.length, 0, 0, ...title]);
  const size = frame.length;
  const header = [0x49, 0x44, 0x33, 3, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f];
  return new Uint8Array([...header, ...frame, ...audio]);
}
const upload = (o: Parameters<typeof form>[0]) => s.call("POST", "/api/recordings", form(o));
const tone = () => toneWav({ rate: 44_100, channels: 2, seconds: 0.5 });

/** What is stored: the rows and every file under the sounds directory. */
async function stored() {
  const rows = await pbx.query("SELECT * FROM recordings ORDER BY id");
  const files = existsSync(sounds) ? (readdirSync(sounds, { recursive: true }) as string[]).sort() : [];
  return JSON.stringify({ rows, files });
}

/** A refused upload: the status, the field's message, and nothing stored. */
async function refused(o: Parameters<typeof form>[0], status: number, field: string) {
  const before = await stored();
  const res = await upload(o);
  expect(res.status, res.text).toBe(status);
  expect(typeof res.json.error.fields?.[field], res.text).toBe("string");
  expect(await stored()).toBe(before);
  return res.json.error.fields[field] as string;
}

describe("upload", () => {
  test("a 44.1 kHz stereo WAV is stored as 8 kHz mono 16-bit WAV with FreePBX's row, and plays back", async () => {
    const res = await upload({ name: "welcome", description: `Hours & "closed" <days>`, file: tone() });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      name: "welcome",
      description: `Hours & "closed" <days>`,
      files: ["custom/welcome"],
      language: "en",
      formats: ["wav"],
      playable: true,
    });
    const [row] = await pbx.query("SELECT * FROM recordings WHERE id = ?", [res.json.id]);
    expect({ ...row, filename: String(row?.filename) } as Record<string, unknown>).toEqual({
      id: res.json.id,
      displayname: "welcome",
      // As FreePBX's page stores it (FILTER_SANITIZE_FULL_SPECIAL_CHARS).
      description: "Hours &amp; &quot;closed&quot; &lt;days&gt;",
      filename: "custom/welcome",
      fcode: 0,
      fcode_pass: "",
      fcode_lang: "en",
    });
    const file = join(sounds, "en", "custom", "welcome.wav");
    const bytes = readFileSync(file);
    expect(wavFormat(bytes)).toMatchObject({ audioFormat: 1, channels: 1, rate: 8000, bits: 16 });
    // Half a second at 8 kHz, 2 bytes a sample (give or take the resampler's edge).
    expect(Math.abs(wavFormat(bytes).dataBytes - 8000)).toBeLessThan(100);
    const asterisk = Number(new TextDecoder().decode(Bun.spawnSync(["id", "-u", "asterisk"]).stdout).trim());
    expect(statSync(file).uid).toBe(asterisk);
    expect(statSync(file).mode & 0o777).toBe(0o644);

    const list = await s.call("GET", "/api/recordings");
    expect(list.json).toEqual([res.json]);
    const audio = await fetch(`${s.base}/api/recordings/${res.json.id}/audio`, { headers: { cookie: s.cookie } });
    expect(audio.status).toBe(200);
    expect(audio.headers.get("content-type")).toBe("audio/wav");
    expect(Buffer.from(await audio.arrayBuffer()).equals(bytes)).toBe(true);
  });

  test("an MP3 behind an ID3 tag is decoded on the PBX and stored as 8 kHz mono WAV", async () => {
    const dir = mkdtempSync(join(tmpdir(), "recordings-mp3-"));
    try {
      const file = join(dir, "tone.mp3");
      const made = Bun.spawnSync(["sox", "-n", "-r", "22050", "-c", "1", file, "synth", "1", "sine", "660"]);
      expect(made.exitCode, made.stderr.toString()).toBe(0);
      const mp3 = withId3(new Uint8Array(readFileSync(file)));
      expect(sniffAudio(mp3)).toBe("mp3");
      const res = await upload({ name: "closed", file: mp3, filename: "closed.mp3", type: "audio/mpeg" });
      expect(res.status, res.text).toBe(201);
      const stored = wavFormat(readFileSync(join(sounds, "en", "custom", "closed.wav")));
      expect(stored).toMatchObject({ audioFormat: 1, channels: 1, rate: 8000, bits: 16 });
      // One second at 8 kHz, 2 bytes a sample; the MP3 decoder adds its own few tens of milliseconds.
      expect(Math.abs(stored.dataBytes - 16_000)).toBeLessThan(1_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("not audio, whatever its name and type say: 400 on the file, nothing stored", async () => {
    expect(await refused({ name: "text", file: "just some text, not a sound", filename: "x.wav" }, 400, "file")).toBe(
      RECORDING_NOT_AUDIO,
    );
    // A WAV header over junk passes the first look; sox on the PBX refuses it.
    const junk = new Uint8Array(tone());
    junk.fill(0x41, 12);
    expect(await refused({ name: "junk", file: junk }, 400, "file")).toMatch(/could not be read as WAV audio/);
    expect(await refused({ name: "empty", file: new Uint8Array() }, 400, "file")).toBe("The file is empty");
    expect(await refused({ name: "none" }, 400, "file")).toBe("Choose a WAV or MP3 file");
  });

  test("over 20 MB: 400 on the file, nothing sent to the PBX", async () => {
    const big = new Uint8Array(RECORDING_MAX_BYTES + 1);
    big.set(tone().subarray(0, 44));
    expect(await refused({ name: "big", file: big }, 400, "file")).toBe(RECORDING_TOO_LARGE);
  });

  test("a name FreePBX cannot use as a file name: 400 on the name, nothing stored", async () => {
    for (const name of ["", "has space", "../up", "a.b", "-dash", "x&y", "é", "n".repeat(51)]) {
      const message = await refused({ name, file: tone() }, 400, "name");
      expect(message, name).toMatch(name === "" ? /required/ : name.length > 50 ? /at most 50/ : RECORDING_NAME_RULE);
    }
  });

  test("a name taken (in any case) or a sound file already there: 409 on the name, nothing stored", async () => {
    expect((await upload({ name: "Welcome", file: tone() })).status).toBe(201);
    expect(await refused({ name: "welcome", file: tone() }, 409, "name")).toMatch(/already exists/);
    // A file FreePBX made (another format) under the name: Asterisk would mix the two.
    Bun.spawnSync(["sh", "-c", `printf x > ${join(sounds, "en", "custom", "hold.ulaw")}`]);
    expect(await refused({ name: "hold", file: tone() }, 409, "name")).toMatch(/custom\/hold\.ulaw/);
  });

  test("the name and the file are both refused in one answer", async () => {
    const res = await upload({ name: "bad name", file: "text" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.error.fields).sort()).toEqual(["file", "name"]);
  });
});

describe("what an upload is, from its bytes", () => {
  test("WAV and MP3 (with or without an ID3 tag) are told apart from anything else", () => {
    const wav = toneWav({ rate: 8000, channels: 1, seconds: 0.01 });
    expect(sniffAudio(wav)).toBe("wav");
    // An MPEG-1 layer III frame header (128 kbit/s, 44.1 kHz: 417 bytes a frame), twice in a row.
    const frame = new Uint8Array(417);
    frame.set([0xff, 0xfb, 0x90, 0x64]);
    const twoFrames = new Uint8Array([...frame, ...frame]);
    expect(sniffAudio(twoFrames)).toBe("mp3");
    expect(sniffAudio(withId3(twoFrames))).toBe("mp3");
    // One stray sync word followed by anything else is not MP3; nor is layer II, text, or a bare RIFF.
    const stray = new Uint8Array(2000).fill(0x41);
    stray.set([0xff, 0xfb, 0x90, 0x64]);
    expect(sniffAudio(stray)).toBeNull();
    const layer2 = twoFrames.slice();
    layer2[1] = 0xfd;
    expect(sniffAudio(layer2)).toBeNull();
    expect(sniffAudio(new TextEncoder().encode("RIFF....AVI LIST"))).toBeNull();
    expect(sniffAudio(new TextEncoder().encode("ID3 not really"))).toBeNull();
  });
});

describe("a PBX host without the converter", () => {
  /** The store command run here as the PBX host runs it, with only `tools` on its PATH. */
  function storeWith(tools: Record<string, string>, format: "wav" | "mp3") {
    const dir = mkdtempSync(join(tmpdir(), "recordings-path-"));
    try {
      for (const [name, script] of Object.entries(tools)) {
        writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
      }
      const input = soundStoreInput({
        soundsDir: join(dir, "sounds"),
        language: "en",
        name: "tone",
        format,
        owner: null,
      });
      const run = Bun.spawnSync(["/bin/sh", "-c", SOUND_STORE_COMMAND], {
        stdin: Buffer.concat([Buffer.from(input), Buffer.from(tone())]),
        env: { PATH: dir },
      });
      const said = run.stderr.toString().trim().split("\n").at(-1) ?? "";
      return { code: run.exitCode, error: storeFailure(run.exitCode, said, format) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("no sox: the error says FreePBX converts with sox and to install it", () => {
    const { code, error } = storeWith({}, "wav");
    expect(code).toBe(3);
    expect(error.message).toContain("no sox");
  });

  test("a sox without MP3 and no mpg123: the error names both", () => {
    const { code, error } = storeWith(
      {
        // `sox -h` lists its formats; this one has no mp3.
        sox: 'echo "AUDIO FILE FORMATS: wav aiff"',
        grep: 'exec /usr/bin/grep "$@"',
        mktemp: 'exec /usr/bin/mktemp "$@"',
        cat: 'exec /usr/bin/cat "$@"',
        rm: 'exec /usr/bin/rm "$@"',
      },
      "mp3",
    );
    expect(code).toBe(3);
    expect(error.message).toContain("libsox-fmt-mp3");
    expect(error.message).toContain("mpg123");
  });
});

describe("rename, play and delete", () => {
  test("a rename keeps the file; a taken name is 409; the delete is refused while an IVR plays it", async () => {
    const a = (await upload({ name: "first", file: tone() })).json;
    const b = (await upload({ name: "second", file: tone() })).json;
    const renamed = await s.call("PATCH", `/api/recordings/${a.id}`, { name: "opening", description: "it's new" });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toMatchObject({ name: "opening", description: "it's new", files: ["custom/first"] });
    const [row] = await pbx.query("SELECT displayname, description FROM recordings WHERE id = ?", [a.id]);
    expect(row).toEqual({ displayname: "opening", description: "it&#039;s new" });
    const taken = await s.call("PATCH", `/api/recordings/${a.id}`, { name: "SECOND" });
    expect(taken.status).toBe(409);
    expect(taken.json.error.fields.name).toMatch(/already exists/);
    // Its old file name is still taken by its file.
    expect((await upload({ name: "first", file: tone() })).status).toBe(409);

    await pbx.query("INSERT INTO ivr_details (name, announcement) VALUES ('Main menu', ?)", [b.id]);
    const used = await s.call("DELETE", `/api/recordings/${b.id}`);
    expect(used.status).toBe(409);
    expect(used.json.error.message).toContain('IVR "Main menu"');
    expect(existsSync(join(sounds, "en", "custom", "second.wav"))).toBe(true);
    await pbx.query("DELETE FROM ivr_details");

    const gone = await s.call("DELETE", `/api/recordings/${b.id}`);
    expect(gone.status, gone.text).toBe(200);
    expect(gone.json).toEqual({ id: b.id, name: "second", removedFiles: ["en/custom/second.wav"] });
    expect(existsSync(join(sounds, "en", "custom", "second.wav"))).toBe(false);
    expect(await pbx.query("SELECT id FROM recordings WHERE id = ?", [b.id])).toEqual([]);
    expect((await s.call("GET", `/api/recordings/${b.id}/audio`)).status).toBe(404);
    expect((await s.call("DELETE", `/api/recordings/${b.id}`)).status).toBe(404);

    // Each change in the audit trail, the refused ones with their reason.
    const audit = (await s.call("GET", "/api/audit?action=recording.&limit=20")).json.items as {
      action: string;
      outcome: string;
      objectId: string | null;
      objectLabel: string | null;
      detail: string | null;
    }[];
    const mine = audit.filter((e) => e.objectId === String(a.id) || e.objectId === String(b.id)).reverse();
    expect(mine.map((e) => [e.action, e.outcome, e.objectLabel])).toEqual([
      ["recording.create", "ok", "first"],
      ["recording.create", "ok", "second"],
      ["recording.update", "ok", null],
      ["recording.update", "failed", null],
      ["recording.delete", "failed", null],
      ["recording.delete", "ok", null],
      ["recording.delete", "failed", null],
    ]);
    expect(mine[4]?.detail).toContain('IVR "Main menu"');
    expect(mine[5]?.detail).toBe('deleted "second", removed en/custom/second.wav');
  });
});

test("without the PBX host configured: 400 saying what to set up", async () => {
  const other = await startTestServer();
  try {
    await other.setup();
    const res = await other.call("GET", "/api/recordings");
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("configure the PBX host (SSH)");
  } finally {
    await other.stop();
  }
});

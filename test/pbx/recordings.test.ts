/**
 * System recordings on the real FreePBX 17 and Asterisk 22: a WAV and an MP3 (tones made here with sox) uploaded
 * through the console's API are stored on the PBX as 8 kHz mono 16-bit WAV under sounds/en/custom, with the row
 * FreePBX's own Recordings module reads back; the console plays the stored bytes back; Asterisk converts them
 * (`file convert`) and plays each into a real call to a softphone, saying PLAYBACKSTATUS=SUCCESS. Then a rename
 * FreePBX's module sees, a delete refused while an IVR plays the recording, and deletes that take the files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AmiClient, type AmiMessage } from "../../src/server/clients/ami";
import type { Recording } from "../../src/shared/recordings";
import { wavFormat } from "../helpers/wav";
import { consoleForFile } from "./console";
import { cli, freepbxPhp, sh, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const PREFIX = "pbxtest-rec";
const EXT = "2601";
const work = mkdtempSync(join(tmpdir(), "pbx-recordings-"));
let sounds = "";
const stored: Record<string, Recording> = {};

/** The files this file leaves on the PBX go with it (the testbed's reset keeps sound files). */
const removeOwnFiles = () => sh(["sh", "-c", `rm -f ${sounds}/*/custom/${PREFIX}-* /tmp/${PREFIX}-*`]);
afterAll(async () => {
  if (sounds) await removeOwnFiles();
  rmSync(work, { recursive: true, force: true });
});

/** A tone made by sox on this machine (`sox -n … synth`): 2 s, so a call that plays it lasts that long. */
async function toneFile(name: string, args: string[]): Promise<Uint8Array<ArrayBuffer>> {
  const file = join(work, name);
  await sh(["sox", "-n", ...args, file, "synth", "2", "sine", "440"]);
  return new Uint8Array(readFileSync(file));
}

async function upload(name: string, description: string, bytes: Uint8Array<ArrayBuffer>, filename: string) {
  const form = new FormData();
  form.append("name", name);
  form.append("description", description);
  form.append("file", new Blob([bytes]), filename);
  const res = await fetch(`${pbx.bin.base}/api/recordings`, {
    method: "POST",
    body: form,
    headers: { cookie: pbx.bin.cookie },
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return JSON.parse(text) as Recording;
}

/**
 * What FreePBX's own Recordings module reads of a recording (the GUI's edit page uses the same call): its row
 * with the files it found per language, or `[]` when there is none.
 */
async function freepbxRecording(id: number): Promise<Record<string, unknown> | unknown[]> {
  return JSON.parse(await freepbxPhp(`echo json_encode(FreePBX::Recordings()->getRecordingById(${id}));`));
}

describe("a recording uploaded through the console is FreePBX's and Asterisk plays it", () => {
  test("a 44.1 kHz stereo WAV and a 22 kHz MP3 are stored as 8 kHz mono 16-bit WAV with FreePBX's rows", async () => {
    sounds = `${(await sql("asterisk", "SELECT value FROM freepbx_settings WHERE keyword = 'ASTVARLIBDIR'"))[0]?.[0]}/sounds`;
    await removeOwnFiles();
    const wav = await toneFile("tone.wav", ["-r", "44100", "-c", "2", "-b", "16"]);
    const mp3 = await toneFile("tone.mp3", ["-r", "22050", "-c", "1"]);
    stored.wav = await upload(`${PREFIX}-wav`, "Welcome & hours", wav, "Welcome Tone.wav");
    stored.mp3 = await upload(`${PREFIX}-mp3`, "Closed <holiday>", mp3, "closed.mp3");

    for (const [kind, r] of Object.entries(stored)) {
      expect(r, kind).toMatchObject({ files: [`custom/${r.name}`], language: "en", formats: ["wav"], playable: true });
      const file = `${sounds}/en/custom/${r.name}.wav`;
      const format = wavFormat(readFileSync(file));
      expect(format, kind).toMatchObject({ audioFormat: 1, channels: 1, rate: 8000, bits: 16 });
      // Two seconds at 8 kHz, 2 bytes a sample (an MP3 decoder adds its own few milliseconds).
      expect(format.dataBytes / 16_000, kind).toBeGreaterThan(1.95);
      expect(format.dataBytes / 16_000, kind).toBeLessThan(2.15);
      const asterisk = Number((await sh(["id", "-u", "asterisk"])).stdout.trim());
      expect(statSync(file).uid, kind).toBe(asterisk);

      const row = await freepbxRecording(r.id);
      expect(row, kind).toMatchObject({
        displayname: r.name,
        filename: `custom/${r.name}`,
        fcode: 0,
        fcode_pass: "",
        fcode_lang: "en",
        // FreePBX's module finds the file in the language it was stored for.
        soundlist: { [`custom/${r.name}`]: { languages: ["en"], codecs: { en: ["wav"] } } },
      });
    }
    // The description as FreePBX's page stores it, and as the console shows it.
    expect(((await freepbxRecording(stored.wav?.id as number)) as { description: string }).description).toBe(
      "Welcome &amp; hours",
    );
    const listed = (await pbx.call("GET", "/api/recordings")).json as Recording[];
    expect(listed.filter((r) => r.name.startsWith(PREFIX)).map((r) => [r.name, r.description])).toEqual([
      [`${PREFIX}-mp3`, "Closed <holiday>"],
      [`${PREFIX}-wav`, "Welcome & hours"],
    ]);
    // FreePBX's list, which its IVR and announcement pages offer.
    const all = JSON.parse(
      await freepbxPhp("echo json_encode(array_column(FreePBX::Recordings()->getAllRecordings(), 'displayname'));"),
    );
    expect(all).toEqual(expect.arrayContaining([`${PREFIX}-mp3`, `${PREFIX}-wav`]));
  });

  test("the console plays back the bytes stored on the PBX", async () => {
    for (const r of Object.values(stored)) {
      const res = await fetch(`${pbx.bin.base}/api/recordings/${r.id}/audio`, { headers: { cookie: pbx.bin.cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("audio/wav");
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.equals(readFileSync(`${sounds}/en/custom/${r.name}.wav`))).toBe(true);
    }
  });

  test("Asterisk reads each file as its wav format: file convert to GSM", async () => {
    for (const r of Object.values(stored)) {
      const out = `/tmp/${r.name}.gsm`;
      const said = await cli(`file convert ${sounds}/en/custom/${r.name}.wav ${out}`);
      expect(said).toContain("Converted");
      // GSM: 33 bytes a 20 ms frame, so about 3,300 bytes for 2 s.
      expect(statSync(out).size).toBeGreaterThan(3000);
    }
  });

  test("a real call plays each recording to the end: Asterisk's Playback says SUCCESS", async () => {
    const ext = await pbx.create("/api/extensions", { extension: EXT, name: "Rec Listener" });
    await pbx.deploy("extensions");
    const listener = await phone({ user: EXT, secret: await pbx.sipSecret(ext.id), autoAnswer: true });
    const ami = new AmiClient(
      { host: pbx.env.amiHost, port: pbx.env.amiPort, username: pbx.env.amiUsername, secret: pbx.env.amiSecret },
      { reconnect: false },
    );
    const events: AmiMessage[] = [];
    ami.onEvent((e) => events.push(e));
    ami.start();
    try {
      await until("the manager interface", () => (ami.connected ? true : undefined));
      for (const r of Object.values(stored)) {
        const since = listener.events.length;
        const seen = events.length;
        await ami.action("Originate", {
          Channel: `PJSIP/${EXT}`,
          Application: "Playback",
          Data: `custom/${r.name}`,
          CallerID: `Recording <${EXT}>`,
          Async: "true",
        });
        const answered = await listener.waitFor("CALL_ESTABLISHED", { since });
        // Playback hangs up once the file has played; its status is Asterisk's own verdict on the file.
        const status = await until(
          `${r.name}'s playback status`,
          () =>
            events
              .slice(seen)
              .find(
                (e) =>
                  e.event === "VarSet" && e.variable === "PLAYBACKSTATUS" && e.channel?.startsWith(`PJSIP/${EXT}-`),
              )?.value,
          30_000,
        );
        expect(status, r.name).toBe("SUCCESS");
        const closed = await listener.waitFor("CALL_CLOSED", { since });
        // The call lasted the recording: the 2 s tone, not an early hang-up on a file Asterisk could not read.
        const lasted = Math.round(closed.at - answered.at);
        console.log(`recordings: ${r.name} played to a real call for ${lasted} ms, PLAYBACKSTATUS=${status}`);
        expect(lasted, r.name).toBeGreaterThan(1_800);
      }
    } finally {
      await ami.stop();
    }
  });
});

describe("rename and delete", () => {
  test("a rename is what FreePBX's module shows; the sound file keeps its name", async () => {
    const r = stored.wav as Recording;
    const res = await pbx.call("PATCH", `/api/recordings/${r.id}`, { name: `${PREFIX}-renamed` });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ name: `${PREFIX}-renamed`, files: [`custom/${PREFIX}-wav`], playable: true });
    expect(await freepbxRecording(r.id)).toMatchObject({
      displayname: `${PREFIX}-renamed`,
      filename: `custom/${PREFIX}-wav`,
    });
  });

  test("a recording an IVR plays is not deleted (409 naming the IVR); then both go with their files", async () => {
    const mp3 = stored.mp3 as Recording;
    await sql(
      "asterisk",
      `INSERT INTO ivr_details (name, description, announcement) VALUES ('Front desk', '', ${mp3.id})`,
    );
    try {
      const refused = await pbx.call("DELETE", `/api/recordings/${mp3.id}`);
      expect(refused.status).toBe(409);
      expect(refused.json.error.message).toContain('IVR "Front desk"');
      expect(existsSync(`${sounds}/en/custom/${mp3.name}.wav`)).toBe(true);
    } finally {
      await sql("asterisk", "DELETE FROM ivr_details WHERE name = 'Front desk'");
    }
    for (const r of Object.values(stored)) {
      const res = await pbx.call("DELETE", `/api/recordings/${r.id}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json.removedFiles).toEqual([`en/custom/${r.files[0]?.slice("custom/".length)}.wav`]);
      expect(existsSync(`${sounds}/en/custom/${r.files[0]?.slice("custom/".length)}.wav`)).toBe(false);
      expect(await freepbxRecording(r.id)).toEqual([]);
    }
    const listed = (await pbx.call("GET", "/api/recordings")).json as Recording[];
    expect(listed.filter((r) => r.name.startsWith(PREFIX))).toEqual([]);
  });
});

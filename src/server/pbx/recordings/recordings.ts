/**
 * System recordings, kept as FreePBX's Recordings module keeps them and managed on the PBX at once (not through
 * a deploy plan), as FreePBX's own page does: a `recordings` row (`displayname`, `description`, `filename` =
 * the sound files joined by `&`, `fcode` 0, `fcode_pass` '', `fcode_lang` the language; Recordings::addRecording)
 * and the sound file `<ASTVARLIBDIR>/sounds/<language>/custom/<name>.wav` (8 kHz mono 16-bit, what Asterisk's
 * `wav` format is; pbx/host/sounds.ts converts it). Every operation is one SSH session with a deadline; the
 * changes this console makes run one at a time, so two uploads of one name cannot both pass the checks.
 *
 * Nothing here sets FreePBX's "reload needed": the dialplan names a recording's files, which an upload (a new,
 * unused row) and a rename (the files keep their names, as in FreePBX) leave alone; a delete does, when it
 * removes the row's feature code (`*29<id>`, as Recordings::delRecording does).
 */
import {
  freepbxText,
  RECORDING_MAX_BYTES,
  RECORDING_NOT_AUDIO,
  RECORDING_TOO_LARGE,
  type Recording,
  type RecordingDeleted,
  type RecordingFormat,
  type RecordingPatch,
  recordingUploadSchema,
} from "../../../shared/recordings";
import { ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { Conflict, Invalid, NotFound } from "../../core/errors";
import { fieldErrors } from "../../core/validate";
import { closingWith } from "../audio";
import { type PbxRemote, withPbxHost } from "../host/host";
import { LANGUAGE_RE, parseStored, SOUND_FILE_RE, type SoundFile, STORE_EXIT, soundStoreInput } from "../host/sounds";
import { int, str } from "../host/sql";
import { type RecordingRow, type RecordingUsers, readContext, readRows, type SoundsContext, usersOf } from "./rows";
import { sniffAudio } from "./sniff";

type RecordingDeps = Pick<Deps, "credentials" | "events">;

/** Deadlines: a read or a change of rows, and an upload (sending 20 MB and converting it with sox). */
const READ_DEADLINE_MS = 60_000;
const UPLOAD_DEADLINE_MS = 180_000;
/** How long one playback may stream (a long recording on a slow link). */
const AUDIO_TIMEOUT_MS = 10 * 60_000;

/** A refusal (400), as for the routing simulator's PBX reads: the request cannot be served until the host is set. */
function requireSsh(deps: Pick<Deps, "credentials">): void {
  if (!deps.credentials.isConfigured("ssh"))
    throw new Invalid("System recordings live on the PBX: configure the PBX host (SSH) in API Settings.");
}

/** One change at a time: the checks (name free, file absent) and the write of one are not split by another's. */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

/** The languages to look in for a recording's file: the PBX's own first, then English, then the rest. */
const languageOrder = (ctx: SoundsContext) => (a: string, b: string) => {
  const rank = (l: string) => (l === ctx.language ? 0 : l === "en" ? 1 : 2);
  return rank(a) - rank(b) || a.localeCompare(b);
};

/** Each row with what the PBX holds of its first file. */
async function withFiles(host: PbxRemote, ctx: SoundsContext, rows: RecordingRow[]): Promise<Recording[]> {
  const asked = rows.map((r) => r.files[0] ?? "").filter((f) => SOUND_FILE_RE.test(f));
  const unique = [...new Set(asked)];
  const found = await host.soundFiles(ctx.soundsDir, unique);
  const byFile = new Map<string, SoundFile[]>();
  for (const f of found) {
    const file = unique[f.index] as string;
    byFile.set(file, [...(byFile.get(file) ?? []), f]);
  }
  return rows.map((r) => {
    const files = byFile.get(r.files[0] ?? "") ?? [];
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      files: r.files,
      language: r.language,
      formats: [...new Set(files.map((f) => f.format))].sort(),
      playable: files.some((f) => f.format === "wav"),
    };
  });
}

export async function listRecordings(deps: RecordingDeps): Promise<Recording[]> {
  requireSsh(deps);
  return withPbxHost(
    deps,
    async (host) => {
      const ctx = await readContext(host);
      return withFiles(host, ctx, await readRows(host));
    },
    { operation: "Reading the system recordings", deadlineMs: READ_DEADLINE_MS },
  );
}

async function recordingOf(host: PbxRemote, ctx: SoundsContext, id: number): Promise<Recording> {
  const row = (await readRows(host, id))[0];
  if (!row) throw new NotFound("Recording");
  return (await withFiles(host, ctx, [row]))[0] as Recording;
}

/** The upload as sent: the form's fields checked by the shared schema and the file by its content. */
interface Upload {
  name: string;
  description: string;
  bytes: Uint8Array;
  format: RecordingFormat;
}

const formText = (v: FormDataEntryValue | null) => (typeof v === "string" ? v : undefined);

/** Reads the multipart form; every problem (fields and file) in one refusal. */
async function readUpload(req: Request): Promise<Upload> {
  let form: FormData;
  try {
    form = await req.formData();
  } catch (err) {
    // Bun's own parse failures; anything else (the transport's 413 while the body is read) passes on.
    if (err instanceof TypeError)
      throw new Invalid("Send the recording as multipart/form-data with a file, a name and a description", {
        file: "Choose a WAV or MP3 file",
      });
    throw err;
  }
  const fields: Record<string, string> = {};
  const parsed = recordingUploadSchema.safeParse({
    name: formText(form.get("name")),
    description: formText(form.get("description")),
  });
  if (!parsed.success) Object.assign(fields, fieldErrors(parsed.error));
  const file = form.get("file");
  let bytes: Uint8Array | null = null;
  let format: RecordingFormat | null = null;
  if (!(file instanceof Blob)) fields.file = "Choose a WAV or MP3 file";
  else if (file.size > RECORDING_MAX_BYTES) fields.file = RECORDING_TOO_LARGE;
  else if (file.size === 0) fields.file = "The file is empty";
  else {
    bytes = new Uint8Array(await file.arrayBuffer());
    format = sniffAudio(bytes);
    if (!format) fields.file = RECORDING_NOT_AUDIO;
  }
  if (!parsed.success || !bytes || !format) {
    const first = Object.values(fields)[0] ?? "Invalid upload";
    throw new Invalid(`Invalid request: ${first}`, fields);
  }
  return { ...parsed.data, bytes, format };
}

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A name another recording has, or whose sound file another recording plays: 409 naming it. */
function refuseTaken(rows: RecordingRow[], name: string, exceptId: number | null, file: string | null): void {
  const named = rows.find((r) => r.id !== exceptId && sameName(r.name, name));
  if (named) {
    const message = `A recording named "${named.name}" already exists`;
    throw new Conflict(message, { name: message });
  }
  const playing = file === null ? undefined : rows.find((r) => r.files.includes(file));
  if (playing) {
    const message = `The sound file ${file} belongs to the recording "${playing.name}": choose another name`;
    throw new Conflict(message, { name: message });
  }
}

/** What the store command's failure means for the caller. */
export function storeFailure(code: number | null, said: string, format: RecordingFormat): Error {
  if (code === STORE_EXIT.missingTool) {
    const message =
      said === "mp3"
        ? "The PBX host cannot decode MP3: its sox has no MP3 support (Debian: libsox-fmt-mp3) and mpg123 is not installed"
        : "The PBX host has no sox, which FreePBX converts recordings with: install the sox package on the PBX";
    return new ServiceError("PBX host", message);
  }
  if (code === STORE_EXIT.exists) {
    const message = `A sound file ${said || "of this name"} is already on the PBX: choose another name`;
    return new Conflict(message, { name: message });
  }
  if (code === STORE_EXIT.notAudio) {
    const message = `The file could not be read as ${format === "mp3" ? "MP3" : "WAV"} audio${said ? ` (${said})` : ""}`;
    return new Invalid(message, { file: message });
  }
  return new ServiceError("PBX host", `Storing the recording failed: ${said || `exit ${code}`}`);
}

/**
 * POST /api/recordings: the multipart upload converted and stored on the PBX, then its `recordings` row, written
 * as FreePBX's page writes it. A refused upload stores nothing (a row that cannot be written removes its file).
 */
export async function createRecording(deps: RecordingDeps, req: Request): Promise<Recording> {
  requireSsh(deps);
  const upload = await readUpload(req);
  const file = `custom/${upload.name}`;
  const recording = await oneAtATime(() =>
    withPbxHost(
      deps,
      async (host) => {
        const ctx = await readContext(host);
        refuseTaken(await readRows(host), upload.name, null, file);
        const input = soundStoreInput({
          soundsDir: ctx.soundsDir,
          language: ctx.language,
          name: upload.name,
          format: upload.format,
          owner: ctx.owner,
        });
        const out = await host.storeSound(input, upload.bytes);
        const said = (out.stderr || out.stdout).trim().split("\n").at(-1) ?? "";
        if (out.code !== 0 || !parseStored(out.stdout)) throw storeFailure(out.code, said, upload.format);
        let id = 0;
        try {
          id = await insertRow(host, upload, file, ctx.language);
        } finally {
          // No row (refused, or the name taken meanwhile): the file goes too.
          if (!id) await host.removeSounds(ctx.soundsDir, [file]).catch(() => {});
        }
        if (!id) {
          const message = `A recording named "${upload.name}" already exists`;
          throw new Conflict(message, { name: message });
        }
        return recordingOf(host, ctx, id);
      },
      { operation: "Storing the recording on the PBX", deadlineMs: UPLOAD_DEADLINE_MS },
    ),
  );
  deps.events.publish({ type: "recordings-updated", data: { id: recording.id, action: "created" } });
  return recording;
}

/** The row as Recordings::addRecording writes it, unless the name was taken meanwhile; its id, or 0. */
async function insertRow(host: PbxRemote, upload: Upload, file: string, language: string): Promise<number> {
  const name = str(freepbxText(upload.name));
  const rows = await host.selectHex(
    [
      "INSERT INTO recordings (displayname, description, filename, fcode, fcode_pass, fcode_lang)",
      `SELECT ${name}, ${str(freepbxText(upload.description))}, ${str(file)}, 0, '', ${str(language)} FROM DUAL`,
      `WHERE NOT EXISTS (SELECT 1 FROM recordings WHERE displayname = ${name});`,
      "SELECT HEX(CAST(ROW_COUNT() AS CHAR)), HEX(CAST(LAST_INSERT_ID() AS CHAR));",
    ].join("\n"),
  );
  const [count, id] = rows[0] ?? [];
  return count === "1" ? Number(id) : 0;
}

/** PATCH /api/recordings/:id: the row's name and description (its files keep their names, as in FreePBX). */
export async function updateRecording(deps: RecordingDeps, id: number, patch: RecordingPatch): Promise<Recording> {
  requireSsh(deps);
  const recording = await oneAtATime(() =>
    withPbxHost(
      deps,
      async (host) => {
        const ctx = await readContext(host);
        const rows = await readRows(host);
        const row = rows.find((r) => r.id === id);
        if (!row) throw new NotFound("Recording");
        if (patch.name !== undefined) refuseTaken(rows, patch.name, id, null);
        const sets = [
          ...(patch.name !== undefined ? [`displayname = ${str(freepbxText(patch.name))}`] : []),
          ...(patch.description !== undefined ? [`description = ${str(freepbxText(patch.description))}`] : []),
        ];
        const done = await host.runScript({
          lineToItem: new Map(),
          text: `UPDATE recordings SET ${sets.join(", ")} WHERE id = ${int(id)};\n`,
        });
        if (!done.ok) throw new ServiceError("PBX host", `Saving the recording failed: ${done.message}`);
        return recordingOf(host, ctx, id);
      },
      { operation: "Saving the recording on the PBX", deadlineMs: READ_DEADLINE_MS },
    ),
  );
  deps.events.publish({ type: "recordings-updated", data: { id, action: "updated" } });
  return recording;
}

const usersText = (users: RecordingUsers) => users.map((u) => `${u.kind} "${u.label}"`).join(", ");

/**
 * DELETE /api/recordings/:id: refused (409 naming them) while an IVR, announcement, ring group or queue on the PBX
 * plays it (FreePBX's own `*_recordings_usage` checks); else the row, its feature code, and its sound files under
 * `custom/` that no other recording plays.
 */
export async function deleteRecording(deps: RecordingDeps, id: number): Promise<RecordingDeleted> {
  requireSsh(deps);
  const deleted = await oneAtATime(() =>
    withPbxHost(
      deps,
      async (host) => {
        const ctx = await readContext(host);
        const rows = await readRows(host);
        const row = rows.find((r) => r.id === id);
        if (!row) throw new NotFound("Recording");
        const users = await usersOf(host, ctx, id);
        if (users.length > 0)
          throw new Conflict(`The recording "${row.name}" is played by ${usersText(users)}: change them first`, {
            users: usersText(users),
          });
        const done = await host.runScript({
          lineToItem: new Map(),
          text: [
            "START TRANSACTION;",
            `DELETE FROM featurecodes WHERE modulename = 'recordings' AND defaultcode = ${str(`*29${id}`)};`,
            "SET @fc = ROW_COUNT();",
            `DELETE FROM recordings WHERE id = ${int(id)};`,
            "UPDATE admin SET value = 'true' WHERE variable = 'need_reload' AND @fc > 0;",
            "COMMIT;",
            "",
          ].join("\n"),
        });
        if (!done.ok) throw new ServiceError("PBX host", `Deleting the recording failed: ${done.message}`);
        const others = new Set(rows.filter((r) => r.id !== id).flatMap((r) => r.files));
        const removable = row.files.filter((f) => f.startsWith("custom/") && SOUND_FILE_RE.test(f) && !others.has(f));
        const removedFiles = await host.removeSounds(ctx.soundsDir, removable);
        return { id, name: row.name, removedFiles };
      },
      { operation: "Deleting the recording on the PBX", deadlineMs: READ_DEADLINE_MS },
    ),
  );
  deps.events.publish({ type: "recordings-updated", data: { id, action: "deleted" } });
  return deleted;
}

/**
 * GET /api/recordings/:id/audio: the WAV of the recording's first file (the PBX's language first, then English,
 * then any), streamed from the PBX as it is read; the session closes when the stream ends or is cancelled.
 */
export async function recordingAudio(
  deps: Pick<Deps, "credentials">,
  id: number,
): Promise<{ name: string; stream: ReadableStream<Uint8Array> }> {
  requireSsh(deps);
  const { host, ...found } = await withPbxHost(
    deps,
    async (host) => {
      const ctx = await readContext(host);
      const row = (await readRows(host, id))[0];
      if (!row) throw new NotFound("Recording");
      const file = row.files[0] ?? "";
      const wavs = SOUND_FILE_RE.test(file)
        ? (await host.soundFiles(ctx.soundsDir, [file])).filter((f) => f.format === "wav")
        : [];
      const best = wavs.sort((a, b) => languageOrder(ctx)(a.language, b.language))[0];
      if (!best || !LANGUAGE_RE.test(best.language))
        throw new NotFound("Recording", `The recording "${row.name}" has no WAV file on the PBX to play`);
      const stream = await host.readSound(`${ctx.soundsDir}/${best.language}/${file}.wav`, AUDIO_TIMEOUT_MS);
      return { host, name: row.name, stream };
    },
    { operation: "Reading the recording on the PBX", deadlineMs: READ_DEADLINE_MS, keepOpen: true },
  );
  return { ...found, stream: closingWith(found.stream, () => host.close()) };
}

/** The audit's one line of an upload. */
export const uploadDetail = (answer: unknown): string | undefined => {
  const r = answer as Partial<Recording> | undefined;
  return r?.files ? `stored ${r.files.join(", ")}` : undefined;
};

/** The audit's one line of a delete. */
export const deleteDetail = (answer: unknown): string | undefined => {
  const r = answer as Partial<RecordingDeleted> | undefined;
  if (!r?.removedFiles) return undefined;
  return `deleted "${r.name}", removed ${r.removedFiles.length ? r.removedFiles.join(", ") : "no sound file"}`;
};

/**
 * A mailbox's greetings (`<spool>/default/<mailbox>/{unavail,busy,greet,temp}.wav`): listed, played, replaced
 * by an upload (WAV or MP3 checked by its bytes, converted on the PBX with sox to what Asterisk plays: 8 kHz
 * mono 16-bit WAV) and deleted, on the PBX at once. The mailbox must be one app_voicemail has in `default`.
 */
import type { SessionUser } from "../../shared/auth";
import type { RecordingFormat } from "../../shared/recordings";
import {
  GREETING_KINDS,
  GREETING_MAX_BYTES,
  type GreetingKind,
  VOICEMAIL_CONTEXT,
  type VoicemailGreeting,
  type VoicemailGreetings,
} from "../../shared/voicemail";
import { assertMayListen } from "../accounts/settings";
import { ServiceError } from "../clients/http";
import { Invalid, NotFound } from "../core/errors";
import { type AudioAnswer, audioKind, findAudio } from "../pbx/audio";
import { type PbxRemote, withPbxHost } from "../pbx/host/host";
import { GREETING_STORE_EXIT, greetingRemoveInput, greetingStoreInput, parseStored } from "../pbx/host/voicemail-spool";
import { sniffAudio } from "../pbx/recordings/sniff";
import { mailboxParam, mailboxStatus, requireSsh, type SpoolContext, spoolContext, type VoicemailDeps } from "./box";

/** An upload: sending up to 20 MB and converting it with sox. */
const UPLOAD_DEADLINE_MS = 180_000;
const CHANGE_DEADLINE_MS = 60_000;

export const GREETING_NOT_AUDIO = "The file is not WAV or MP3 audio";
export const GREETING_TOO_LARGE = "The file is larger than 20 MB";

function kindParam(raw: string | undefined): GreetingKind {
  if (!raw || !(GREETING_KINDS as readonly string[]).includes(raw)) throw new NotFound("Greeting");
  return raw as GreetingKind;
}

const updated = (deps: VoicemailDeps, mailbox: string) =>
  deps.events.publish({ type: "voicemail-updated", data: { mailbox } });

/** The greetings the spool holds for the mailbox, with the length of each WAV from its header. */
async function greetingsOn(host: PbxRemote, ctx: SpoolContext, mailbox: string): Promise<VoicemailGreeting[]> {
  const { greetings } = await host.voicemailSpool(ctx.spool, VOICEMAIL_CONTEXT, [mailbox]);
  const out: VoicemailGreeting[] = [];
  for (const kind of GREETING_KINDS) {
    const wav = greetings.find((g) => g.kind === kind && g.ext === "wav");
    const any = wav ?? greetings.find((g) => g.kind === kind);
    let durationS: number | null = null;
    if (wav) {
      const info = await host.fileInfo(ctx.root, `${mailbox}/${kind}.wav`);
      if (typeof info === "object") durationS = audioKind(info.head, info.bytes, `${kind}.wav`)?.durationS ?? null;
    }
    out.push({ kind, present: any !== undefined, bytes: any?.bytes ?? null, durationS });
  }
  return out;
}

/** GET /api/voicemail/{mailbox}/greetings */
export async function listGreetings(
  deps: VoicemailDeps,
  user: SessionUser | null,
  rawMailbox: string | undefined,
): Promise<VoicemailGreetings> {
  assertMayListen(deps.db, user);
  const mailbox = mailboxParam(rawMailbox);
  requireSsh(deps);
  await mailboxStatus(deps, mailbox);
  const items = await deps.pbxFiles.use(async (host) => greetingsOn(host, await spoolContext(host), mailbox));
  return { mailbox, items };
}

/** GET /api/voicemail/{mailbox}/greetings/{kind}/audio: the greeting's WAV, for the transport to stream (ranges as for messages). */
export async function greetingAudio(
  deps: VoicemailDeps,
  user: SessionUser | null,
  rawMailbox: string | undefined,
  rawKind: string | undefined,
  download: boolean,
): Promise<AudioAnswer> {
  assertMayListen(deps.db, user);
  const mailbox = mailboxParam(rawMailbox);
  const kind = kindParam(rawKind);
  requireSsh(deps);
  await mailboxStatus(deps, mailbox);
  const file = await deps.pbxFiles.use(async (host) =>
    findAudio(host, (await spoolContext(host)).root, `${mailbox}/${kind}.wav`, "Greeting"),
  );
  return { file, filename: `greeting-${mailbox}-${kind}.wav`, download };
}

const formText = (v: FormDataEntryValue | null) => (v instanceof Blob ? v : null);

/** The multipart form's `file`, checked by its bytes. */
async function readUpload(req: Request): Promise<{ bytes: Uint8Array; format: RecordingFormat }> {
  let form: FormData;
  try {
    form = await req.formData();
  } catch (err) {
    if (err instanceof TypeError)
      throw new Invalid("Send the greeting as multipart/form-data with a file", { file: "Choose a WAV or MP3 file" });
    throw err;
  }
  const file = formText(form.get("file"));
  let message: string | null = null;
  if (!file) message = "Choose a WAV or MP3 file";
  else if (file.size > GREETING_MAX_BYTES) message = GREETING_TOO_LARGE;
  else if (file.size === 0) message = "The file is empty";
  if (message || !file) throw new Invalid(`Invalid request: ${message}`, { file: message ?? "" });
  const bytes = new Uint8Array(await file.arrayBuffer());
  const format = sniffAudio(bytes);
  if (!format) throw new Invalid(`Invalid request: ${GREETING_NOT_AUDIO}`, { file: GREETING_NOT_AUDIO });
  return { bytes, format };
}

/** What the store command's failure means for the caller. */
function storeFailure(code: number | null, said: string, format: RecordingFormat): Error {
  if (code === GREETING_STORE_EXIT.missingTool) {
    return new ServiceError(
      "PBX host",
      said === "mp3"
        ? "The PBX host cannot decode MP3: its sox has no MP3 support (Debian: libsox-fmt-mp3) and mpg123 is not installed"
        : "The PBX host has no sox, which greetings are converted with: install the sox package on the PBX",
    );
  }
  if (code === GREETING_STORE_EXIT.notAudio) {
    const message = `The file could not be read as ${format === "mp3" ? "MP3" : "WAV"} audio${said ? ` (${said})` : ""}`;
    return new Invalid(message, { file: message });
  }
  return new ServiceError("PBX host", `Storing the greeting failed: ${said || `exit ${code}`}`);
}

/**
 * POST /api/voicemail/{mailbox}/greetings/{kind} (multipart: `file`): the greeting replaced by the upload,
 * converted to 8 kHz mono 16-bit WAV, owned by FreePBX's user; its files in other formats go.
 */
export async function uploadGreeting(
  deps: VoicemailDeps,
  rawMailbox: string | undefined,
  rawKind: string | undefined,
  req: Request,
): Promise<VoicemailGreeting> {
  const mailbox = mailboxParam(rawMailbox);
  const kind = kindParam(rawKind);
  requireSsh(deps);
  await mailboxStatus(deps, mailbox);
  const upload = await readUpload(req);
  const greeting = await withPbxHost(
    deps,
    async (host) => {
      const ctx = await spoolContext(host);
      const input = greetingStoreInput({
        spool: ctx.spool,
        context: VOICEMAIL_CONTEXT,
        mailbox,
        kind,
        format: upload.format,
        owner: ctx.owner,
      });
      const out = await host.storeGreeting(input, upload.bytes);
      const said = (out.stderr || out.stdout).trim().split("\n").at(-1) ?? "";
      if (out.code !== 0 || !parseStored(out.stdout)) throw storeFailure(out.code, said, upload.format);
      return (await greetingsOn(host, ctx, mailbox)).find((g) => g.kind === kind) as VoicemailGreeting;
    },
    { operation: "Storing the greeting on the PBX", deadlineMs: UPLOAD_DEADLINE_MS },
  );
  updated(deps, mailbox);
  return greeting;
}

/** DELETE /api/voicemail/{mailbox}/greetings/{kind}: the greeting's files removed (404 when there are none). */
export async function deleteGreeting(
  deps: VoicemailDeps,
  rawMailbox: string | undefined,
  rawKind: string | undefined,
): Promise<{ mailbox: string; kind: GreetingKind; removedFiles: string[] }> {
  const mailbox = mailboxParam(rawMailbox);
  const kind = kindParam(rawKind);
  requireSsh(deps);
  await mailboxStatus(deps, mailbox);
  const removedFiles = await withPbxHost(
    deps,
    async (host) => {
      const ctx = await spoolContext(host);
      return host.removeGreeting(greetingRemoveInput(ctx.spool, VOICEMAIL_CONTEXT, mailbox, kind));
    },
    { operation: "Deleting the greeting on the PBX", deadlineMs: CHANGE_DEADLINE_MS },
  );
  if (removedFiles.length === 0) throw new NotFound("Greeting", `Mailbox ${mailbox} has no ${kind} greeting`);
  updated(deps, mailbox);
  return { mailbox, kind, removedFiles };
}

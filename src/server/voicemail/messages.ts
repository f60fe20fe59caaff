/**
 * A mailbox's messages: listed, played and downloaded, moved between folders and deleted. The list, the moves
 * and the deletes go through app_voicemail over the manager interface (it renumbers the files and updates the
 * phones' message waiting lights itself); the audio is streamed from the spool over the shared SSH session
 * (pbx/audio.ts), a range at a time, never read whole.
 */
import type { SessionUser } from "../../shared/auth";
import type { CallVoicemail } from "../../shared/calls";
import {
  messageAudioUrl,
  VOICEMAIL_CONTEXT,
  VOICEMAIL_FOLDERS,
  type VoicemailFolder,
  type VoicemailMessage,
  type VoicemailMessages,
  type VoicemailMove,
} from "../../shared/voicemail";
import { assertMayListen } from "../accounts/settings";
import type { AppContext } from "../context";
import { Conflict, NotFound } from "../core/errors";
import { type AudioAnswer, findAudio } from "../pbx/audio";
import { SPOOL_AUDIO_EXTENSIONS, type SpoolMessage } from "../pbx/host/voicemail-spool";
import {
  boxSummary,
  mailboxParam,
  mailboxStatus,
  messageIdParam,
  requireSsh,
  type SummaryMessage,
  spoolContext,
  spoolMessages,
  type VoicemailDeps,
} from "./box";

const newestFirst = (a: VoicemailMessage, b: VoicemailMessage) =>
  b.receivedAt.localeCompare(a.receivedAt) || a.id.localeCompare(b.id);

const isoOf = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());

/**
 * The summary's messages with their times; one whose date app_voicemail wrote in another form (a locale's
 * names) takes its `origtime` from the spool, else the time in its id (the second it was left).
 */
async function withTimes(deps: VoicemailDeps, mailbox: string, listed: SummaryMessage[]): Promise<VoicemailMessage[]> {
  const unknown = listed.filter((m) => m.receivedAt === null);
  let fromSpool = new Map<string, string>();
  if (unknown.length > 0 && deps.credentials.isConfigured("ssh")) {
    const spool = await deps.pbxFiles
      .use(async (host) => spoolMessages(host, await spoolContext(host), [mailbox]))
      .catch(() => [] as SpoolMessage[]);
    fromSpool = new Map(spool.flatMap((s) => (s.origTime === null ? [] : [[s.id, isoOf(s.origTime) as string]])));
  }
  return listed.map((m) => ({
    ...m,
    receivedAt: m.receivedAt ?? fromSpool.get(m.id) ?? (isoOf(Number(m.id.split("-")[0])) as string),
  }));
}

/** GET /api/voicemail/{mailbox}/messages: the messages, newest first, and how full each folder is. */
export async function listMessages(
  deps: VoicemailDeps,
  user: SessionUser | null,
  rawMailbox: string | undefined,
): Promise<VoicemailMessages> {
  assertMayListen(deps.db, user);
  const mailbox = mailboxParam(rawMailbox);
  const status = await mailboxStatus(deps, mailbox);
  const items = (await withTimes(deps, mailbox, await boxSummary(deps, mailbox))).sort(newestFirst);
  const folders = Object.fromEntries(VOICEMAIL_FOLDERS.map((f) => [f, 0])) as Record<VoicemailFolder, number>;
  for (const m of items) folders[m.folder] += 1;
  return { mailbox, items, usage: { folders, maxMessages: status.maxMessages } };
}

/** The message of the mailbox with this id, as app_voicemail lists it now, or 404. */
async function findMessage(deps: VoicemailDeps, mailbox: string, id: string): Promise<VoicemailMessage> {
  await mailboxStatus(deps, mailbox);
  const listed = (await boxSummary(deps, mailbox)).find((m) => m.id === id);
  if (!listed) throw new NotFound("Voicemail message", `Mailbox ${mailbox} has no message ${id}`);
  return (await withTimes(deps, mailbox, [listed]))[0] as VoicemailMessage;
}

/** A manager action on a message: app_voicemail answers `Success` even when it did nothing ("… failed"). */
async function messageAction(deps: VoicemailDeps, action: string, fields: Record<string, string>, done: RegExp) {
  const answer = await deps.live.managerAction(action, { Context: VOICEMAIL_CONTEXT, ...fields });
  const said = (answer.message ?? "").trim();
  if (!done.test(said)) throw new Conflict(`The PBX did not do it: ${said || `${action} failed`}`);
}

const updated = (deps: VoicemailDeps, mailbox: string) =>
  deps.events.publish({ type: "voicemail-updated", data: { mailbox } });

/**
 * PATCH /api/voicemail/{mailbox}/messages/{id}: the message moved to `folder` (e.g. Old once heard). 409 when
 * app_voicemail refuses (the folder full, or the message gone meanwhile).
 */
export async function moveMessage(
  deps: VoicemailDeps,
  rawMailbox: string | undefined,
  rawId: string | undefined,
  move: VoicemailMove,
): Promise<VoicemailMessage> {
  const mailbox = mailboxParam(rawMailbox);
  const id = messageIdParam(rawId);
  const message = await findMessage(deps, mailbox, id);
  if (message.folder === move.folder) return message;
  await messageAction(
    deps,
    "VoicemailMove",
    { Mailbox: mailbox, Folder: message.folder, ID: id, ToFolder: move.folder },
    /successful/i,
  );
  updated(deps, mailbox);
  return { ...message, folder: move.folder };
}

/** DELETE /api/voicemail/{mailbox}/messages/{id}: the message removed (its files go from the spool). */
export async function deleteMessage(
  deps: VoicemailDeps,
  rawMailbox: string | undefined,
  rawId: string | undefined,
): Promise<VoicemailMessage> {
  const mailbox = mailboxParam(rawMailbox);
  const id = messageIdParam(rawId);
  const message = await findMessage(deps, mailbox, id);
  await messageAction(deps, "VoicemailRemove", { Mailbox: mailbox, Folder: message.folder, ID: id }, /successful/i);
  updated(deps, mailbox);
  return message;
}

/** The audio file of a spool message: its browser-playable format first. */
const audioName = (m: SpoolMessage) => {
  const ext = SPOOL_AUDIO_EXTENSIONS.find((e) => m.audio.has(e));
  return ext === undefined ? null : `${m.mailbox}/${m.folder}/${m.file}.${ext}`;
};

/**
 * GET /api/voicemail/{mailbox}/messages/{id}/audio: the message's audio file on the PBX, for the transport to
 * stream (200, or 206 for a `Range`, 416 for a range that is malformed or past its end). 404 for a mailbox not
 * in `default`, a message not in it.
 */
export async function messageAudio(
  deps: VoicemailDeps,
  user: SessionUser | null,
  rawMailbox: string | undefined,
  rawId: string | undefined,
  download: boolean,
): Promise<AudioAnswer> {
  assertMayListen(deps.db, user);
  const mailbox = mailboxParam(rawMailbox);
  const id = messageIdParam(rawId);
  requireSsh(deps);
  await mailboxStatus(deps, mailbox);
  const { file, at } = await deps.pbxFiles.use(async (host) => {
    const ctx = await spoolContext(host);
    const message = (await spoolMessages(host, ctx, [mailbox])).find((m) => m.id === id);
    const name = message ? audioName(message) : null;
    if (!message || name === null) throw new NotFound("Voicemail message", `Mailbox ${mailbox} has no message ${id}`);
    return { file: await findAudio(host, ctx.root, name, "Voicemail message"), at: message.origTime };
  });
  const stamp = at === null ? id : new Date(at * 1000).toISOString().slice(0, 19).replace(/[-:]/g, "");
  return { file, filename: `voicemail-${mailbox}-${stamp}.${file.kind.format}`, download };
}

/**
 * The voicemail a call left (for the call's detail page): the message in one of `mailboxes` whose caller channel
 * is one of the call's `channels` and whose time is within [from, to + 60 s]; null when none. Read from the
 * spool, which names the channel that left each message.
 */
export async function findCallVoicemail(
  app: AppContext,
  q: { mailboxes: string[]; channels: string[]; from: Date; to: Date },
): Promise<CallVoicemail | null> {
  const mailboxes = [...new Set(q.mailboxes)].filter((m) => /^\d{1,10}$/.test(m));
  const channels = new Set(q.channels.filter(Boolean));
  if (mailboxes.length === 0 || channels.size === 0) return null;
  requireSsh(app);
  const from = Math.floor(q.from.getTime() / 1000);
  const to = Math.ceil(q.to.getTime() / 1000) + 60;
  const found = await app.pbxFiles.use(async (host) => spoolMessages(host, await spoolContext(host), mailboxes));
  const match = found
    .filter(
      (m) => m.id && channels.has(m.callerChannel) && m.origTime !== null && m.origTime >= from && m.origTime <= to,
    )
    .sort((a, b) => (a.origTime as number) - (b.origTime as number))[0];
  if (!match) return null;
  return {
    mailbox: match.mailbox,
    folder: match.folder,
    id: match.id,
    receivedAt: isoOf(match.origTime) as string,
    durationS: match.durationS ?? 0,
    callerId: match.callerId,
    url: messageAudioUrl(match.mailbox, match.id),
  };
}

/**
 * Voicemail on the PBX: the mailboxes of FreePBX's voicemail context `default` (where its extensions' mailboxes
 * are), their messages as Asterisk's app_voicemail keeps them (folders, caller, time, length), and the greetings
 * it plays. Read and changed on the PBX at once: messages through the manager interface, audio and greetings
 * over SSH.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";
import { RECORDING_ACCEPT, RECORDING_MAX_BYTES } from "./recordings";

/** The voicemail context the console's screens and routes serve: FreePBX puts every extension's mailbox there. */
export const VOICEMAIL_CONTEXT = "default";

/** A mailbox number as the routes take it; anything else is no mailbox (404). */
export const MAILBOX_RE = /^\d{1,10}$/;
/** A message's id as app_voicemail writes it (`msg_id`: seconds, a dash, 8 hex digits); anything else is 404. */
export const MESSAGE_ID_RE = /^\d{1,20}-[0-9a-f]{8}$/;

/** The folders the console shows and moves messages between (app_voicemail's own names). */
export const VOICEMAIL_FOLDERS = ["INBOX", "Old", "Urgent", "Work", "Family", "Friends"] as const;
export type VoicemailFolder = (typeof VOICEMAIL_FOLDERS)[number];

export const FOLDER_LABELS: Record<VoicemailFolder, string> = {
  INBOX: "New",
  Old: "Old",
  Urgent: "Urgent",
  Work: "Work",
  Family: "Family",
  Friends: "Friends",
};

/**
 * The greetings app_voicemail plays, by the file each is (`<mailbox dir>/<kind>.wav`): the unavailable and busy
 * messages, the recorded name, and the temporary greeting that replaces both while it exists.
 */
export const GREETING_KINDS = ["unavail", "busy", "greet", "temp"] as const;
export type GreetingKind = (typeof GREETING_KINDS)[number];

export const GREETING_LABELS: Record<GreetingKind, string> = {
  unavail: "Unavailable",
  busy: "Busy",
  greet: "Name",
  temp: "Temporary",
};

/** A greeting upload's limits: those of a system recording (WAV or MP3, converted on the PBX). */
export const GREETING_MAX_BYTES = RECORDING_MAX_BYTES;
export const GREETING_ACCEPT = RECORDING_ACCEPT;

/** PATCH /api/voicemail/{mailbox}/messages/{id}: the folder to move the message to. */
export const voicemailMoveSchema = lazySchema(() =>
  z.object({
    folder: z.enum(VOICEMAIL_FOLDERS, { error: `Folder must be one of ${VOICEMAIL_FOLDERS.join(", ")}` }),
  }),
);
export type VoicemailMove = z.output<typeof voicemailMoveSchema>;

/** The query of an audio GET: `?download=1` asks the browser to save the file. */
export const voicemailAudioQuerySchema = lazySchema(() =>
  z.object({
    download: z.enum(["0", "1"], { error: "download must be 0 or 1" }).optional(),
  }),
);
export type VoicemailAudioQuery = z.output<typeof voicemailAudioQuerySchema>;

/** One message of a mailbox. */
export interface VoicemailMessage {
  /** app_voicemail's `msg_id`: stays the same when the message moves (its file is renumbered). */
  id: string;
  folder: VoicemailFolder;
  /** The caller as Asterisk recorded it (`"Alice" <2902>`). */
  callerId: string;
  /** When the message was left (ISO). */
  receivedAt: string;
  durationS: number;
}

/** How full a mailbox is: messages per folder against app_voicemail's limit per folder (`maxmsg`). */
export interface VoicemailUsage {
  folders: Record<VoicemailFolder, number>;
  /** The most messages a folder may hold (`maxmsg`, 100 unless voicemail.conf says otherwise). */
  maxMessages: number;
}

/** GET /api/voicemail/{mailbox}/messages */
export interface VoicemailMessages {
  mailbox: string;
  /** Newest first. */
  items: VoicemailMessage[];
  usage: VoicemailUsage;
}

/** One mailbox of the picker: a console extension with voicemail on, and what Asterisk says of it. */
export interface VoicemailBox {
  mailbox: string;
  /** The extension's name in the console. */
  name: string;
  /** Whether Asterisk has this mailbox in `default` (a new extension's mailbox exists once deployed). */
  onPbx: boolean | null;
  newMessages: number | null;
  oldMessages: number | null;
}

/** GET /api/voicemail */
export interface VoicemailBoxes {
  items: VoicemailBox[];
  /** Why the counts are unknown (the manager interface is not connected), else null. */
  reason: string | null;
}

/** One greeting of a mailbox, as the PBX holds it. */
export interface VoicemailGreeting {
  kind: GreetingKind;
  present: boolean;
  bytes: number | null;
  durationS: number | null;
}

/** GET /api/voicemail/{mailbox}/greetings */
export interface VoicemailGreetings {
  mailbox: string;
  items: VoicemailGreeting[];
}

/** The URL of a message's audio (`?download=1` to save it). */
export const messageAudioUrl = (mailbox: string, id: string) =>
  `/api/voicemail/${encodeURIComponent(mailbox)}/messages/${encodeURIComponent(id)}/audio`;

/** The URL of a greeting's audio. */
export const greetingAudioUrl = (mailbox: string, kind: GreetingKind) =>
  `/api/voicemail/${encodeURIComponent(mailbox)}/greetings/${kind}/audio`;

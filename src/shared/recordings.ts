/**
 * System recordings: the sound files FreePBX's Recordings module keeps on the PBX (`recordings` rows, files
 * under `<ASTVARLIBDIR>/sounds/<language>/custom/`). The console reads and writes them on the PBX directly, as
 * FreePBX's own page does: an upload is stored at once, not through a deploy plan.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

/** The largest audio file an upload may carry (20 MB). */
export const RECORDING_MAX_BYTES = 20 * 1024 * 1024;
/** What an upload may be: decided from the file's content, not its name. */
export const RECORDING_FORMATS = ["wav", "mp3"] as const;
export type RecordingFormat = (typeof RECORDING_FORMATS)[number];
/** The browser's file picker filter (the server checks the content anyway). */
export const RECORDING_ACCEPT = ".wav,.mp3,audio/wav,audio/x-wav,audio/mpeg";

/** `recordings.displayname` is varchar(50); `recordings.description` varchar(254). */
export const RECORDING_NAME_MAX = 50;
export const RECORDING_DESCRIPTION_MAX = 254;

export const RECORDING_NAME_RULE =
  "Use letters, digits, - and _ only, starting with a letter or digit: the name is the sound file's name on the PBX (custom/<name>.wav)";
export const RECORDING_TOO_LARGE = "The file is larger than 20 MB";
export const RECORDING_NOT_AUDIO = "The file is not WAV or MP3 audio";

/**
 * FreePBX's own page saves the name and description through PHP's FILTER_SANITIZE_FULL_SPECIAL_CHARS
 * (`htmlspecialchars` with quotes): the row holds `&amp;` for `&`, and its edit form prints the value into
 * HTML as it is. The console stores text the same way, so FreePBX's page shows it right and safely.
 */
const FREEPBX_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  '"': "&quot;",
  "'": "&#039;",
  "<": "&lt;",
  ">": "&gt;",
};
export const freepbxText = (value: string): string => value.replace(/[&"'<>]/g, (c) => FREEPBX_ENTITIES[c] as string);

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL = /[\x00-\x1f\x7f]/;
/** Beyond the Basic Multilingual Plane (an emoji): the utf8mb3 columns refuse it. */
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;

const recordingName = () =>
  z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(RECORDING_NAME_MAX, `Name must be at most ${RECORDING_NAME_MAX} characters`)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, RECORDING_NAME_RULE);

const recordingDescription = () =>
  z
    .string()
    .trim()
    .refine((v) => !CONTROL.test(v), "Description contains a control character (e.g. a newline)")
    .refine((v) => !ASTRAL.test(v), "Description contains a character FreePBX cannot store (e.g. an emoji)")
    .refine(
      (v) => [...freepbxText(v)].length <= RECORDING_DESCRIPTION_MAX,
      `Description must be at most ${RECORDING_DESCRIPTION_MAX} characters (FreePBX stores & < > " ' as &amp; and the like)`,
    );

/**
 * POST /api/recordings is `multipart/form-data`: a `file` part (WAV or MP3, at most 20 MB) and these text
 * fields, checked with this schema; the file itself is checked by its content on the server.
 */
export const recordingUploadSchema = lazySchema(() =>
  z.object({
    name: recordingName(),
    description: recordingDescription().optional().default(""),
  }),
);

/** PATCH /api/recordings/:id: a new name and/or description (the sound file keeps its name, as in FreePBX). */
export const recordingPatchSchema = lazySchema(() =>
  z
    .object({
      name: recordingName().optional(),
      description: recordingDescription().optional(),
    })
    .refine((v) => v.name !== undefined || v.description !== undefined, {
      message: "Give a new name or description",
      path: ["name"],
    }),
);

export type RecordingUpload = z.output<typeof recordingUploadSchema>;
export type RecordingPatch = z.output<typeof recordingPatchSchema>;

/** A system recording as the API returns it. */
export interface Recording {
  /** `recordings.id`: what IVRs and announcements refer to. */
  id: number;
  /** `displayname`. */
  name: string;
  description: string;
  /** FreePBX's `filename`, split at `&` (a compound recording plays several): e.g. `custom/welcome`. */
  files: string[];
  /** The language the recording was saved for (`fcode_lang`), when set. */
  language: string | null;
  /** The formats the PBX holds of its first file, in any language (`wav`, `ulaw`, …). */
  formats: string[];
  /** Whether its first file has a WAV the browser can play (GET /api/recordings/:id/audio). */
  playable: boolean;
}

/** DELETE /api/recordings/:id answers what it removed. */
export interface RecordingDeleted {
  id: number;
  name: string;
  /** The sound files removed from the PBX, e.g. `en/custom/welcome.wav`. */
  removedFiles: string[];
}

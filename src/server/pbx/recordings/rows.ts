/**
 * What the recordings read of FreePBX's database: the settings that say where sound files live and who owns
 * them, the `recordings` rows, and which IVRs, announcements, ring groups and queues play a recording (the
 * columns FreePBX's own `ivr_recordings_usage`, `announcement_recordings_usage`, `ringgroups_recordings_usage`
 * and `queues_recordings_usage` check). A module that is not installed has no table, and so no users.
 */
import { ServiceError } from "../../clients/http";
import type { PbxRemote } from "../host/host";
import { LANGUAGE_RE, soundsDirOf } from "../host/sounds";
import { int, UnsafeValueError } from "../host/sql";

export interface SoundsContext {
  /** `<ASTVARLIBDIR>/sounds`. */
  soundsDir: string;
  /** Who FreePBX's files belong to (AMPASTERISKUSER / AMPASTERISKGROUP). */
  owner: { user: string; group: string };
  /** The PBX's sound language (Sound Languages' default; `en` when unset): where an upload is stored. */
  language: string;
  /** The tables of those read here that this PBX has. */
  tables: Set<string>;
}

export interface RecordingRow {
  id: number;
  name: string;
  description: string;
  files: string[];
  language: string | null;
}

const SETTINGS = ["ASTVARLIBDIR", "AMPASTERISKUSER", "AMPASTERISKGROUP"] as const;
const USER_TABLES = ["ivr_details", "announcement", "ringgroups", "queues_config"] as const;
const TABLES = ["recordings", "soundlang_settings", ...USER_TABLES] as const;
const ACCOUNT_RE = /^[a-z_][a-z0-9_-]{0,31}$/;

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

/** Text as FreePBX's page stores it (`&amp;`, `&#039;`…: shared/recordings.ts `freepbxText`), as typed. */
const ENTITIES: Record<string, string> = { amp: "&", quot: '"', "#039": "'", "#39": "'", lt: "<", gt: ">" };
export const fromFreepbxText = (value: string): string =>
  value.replace(/&(amp|quot|#0?39|lt|gt);/g, (whole, name: string) => ENTITIES[name] ?? whole);

export async function readContext(host: PbxRemote): Promise<SoundsContext> {
  const rows = await host.selectHex(
    [
      `SELECT HEX('setting'), HEX(keyword), HEX(value) FROM freepbx_settings WHERE keyword IN (${list(SETTINGS)});`,
      `SELECT HEX('table'), HEX(TABLE_NAME), HEX('') FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${list(TABLES)});`,
    ].join("\n"),
  );
  const settings = new Map<string, string>();
  const tables = new Set<string>();
  for (const [kind, key, value] of rows) {
    if (kind === "setting" && key) settings.set(key, value ?? "");
    if (kind === "table" && key) tables.add(key);
  }
  if (!tables.has("recordings"))
    throw new ServiceError("PBX host", "FreePBX's Recordings module is not installed on the PBX (no recordings table)");
  let language = "en";
  if (tables.has("soundlang_settings")) {
    const set = await host.selectHex("SELECT HEX(value) FROM soundlang_settings WHERE keyword = 'language';");
    language = set[0]?.[0]?.trim() || "en";
  }
  if (!LANGUAGE_RE.test(language))
    throw new ServiceError("PBX host", `FreePBX's sound language "${language}" is not a plain language code`);
  const user = settings.get("AMPASTERISKUSER")?.trim() || "asterisk";
  const group = settings.get("AMPASTERISKGROUP")?.trim() || user;
  if (!ACCOUNT_RE.test(user) || !ACCOUNT_RE.test(group))
    throw new ServiceError("PBX host", "FreePBX's AMPASTERISKUSER or AMPASTERISKGROUP is not a plain account name");
  let soundsDir: string;
  try {
    soundsDir = soundsDirOf(settings.get("ASTVARLIBDIR")?.trim() || "/var/lib/asterisk");
  } catch (err) {
    if (err instanceof UnsafeValueError)
      throw new ServiceError("PBX host", "FreePBX's ASTVARLIBDIR is not a plain path");
    throw err;
  }
  return { soundsDir, owner: { user, group }, language, tables };
}

/** The recordings (one when `id` is given), in FreePBX's order; its `__invalid` placeholder left out. */
export async function readRows(host: PbxRemote, id?: number): Promise<RecordingRow[]> {
  const rows = await host.selectHex(
    [
      "SELECT HEX(CAST(id AS CHAR)), HEX(displayname), HEX(description), HEX(filename), HEX(fcode_lang)",
      "FROM recordings WHERE (displayname IS NULL OR displayname <> '__invalid')",
      id === undefined ? "" : `AND id = ${int(id)}`,
      "ORDER BY displayname, id;",
    ].join(" "),
  );
  return rows.map(([rowId, name, description, filename, language]) => ({
    id: Number(rowId),
    name: fromFreepbxText(name ?? ""),
    description: fromFreepbxText(description ?? ""),
    files: (filename ?? "").split("&").filter(Boolean),
    language: language || null,
  }));
}

export type RecordingUsers = { kind: string; label: string }[];

/** Per table: what it is called, and the SELECT of (kind, label) of its rows that play recording `id`. */
const USERS: Record<(typeof USER_TABLES)[number], (id: string) => string> = {
  ivr_details: (id) =>
    `SELECT HEX('IVR'), HEX(COALESCE(NULLIF(name, ''), CAST(id AS CHAR))) FROM ivr_details WHERE announcement = ${id} OR invalid_retry_recording = '${id}' OR invalid_recording = '${id}' OR timeout_recording = '${id}' OR timeout_retry_recording = '${id}';`,
  announcement: (id) =>
    `SELECT HEX('Announcement'), HEX(COALESCE(NULLIF(description, ''), CAST(announcement_id AS CHAR))) FROM announcement WHERE recording_id = ${id};`,
  ringgroups: (id) =>
    `SELECT HEX('Ring group'), HEX(COALESCE(NULLIF(description, ''), grpnum)) FROM ringgroups WHERE annmsg_id = ${id} OR remotealert_id = ${id} OR toolate_id = ${id};`,
  queues_config: (id) =>
    `SELECT HEX('Queue'), HEX(COALESCE(NULLIF(descr, ''), extension)) FROM queues_config WHERE callconfirm_id = ${id} OR agentannounce_id = ${id} OR joinannounce_id = ${id};`,
};

/** The IVRs, announcements, ring groups and queues on the PBX that play recording `id`. */
export async function usersOf(host: PbxRemote, ctx: SoundsContext, id: number): Promise<RecordingUsers> {
  const checks = USER_TABLES.filter((t) => ctx.tables.has(t)).map((t) => USERS[t](int(id)));
  if (checks.length === 0) return [];
  const rows = await host.selectHex(checks.join("\n"));
  return rows.map(([kind, label]) => ({ kind: kind ?? "", label: fromFreepbxText(label ?? "") }));
}

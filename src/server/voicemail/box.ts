/**
 * One mailbox of FreePBX's voicemail context `default`, as Asterisk's app_voicemail has it: whether it exists
 * (`VoicemailUserStatus`: what voicemail.conf held at Asterisk's last voicemail reload), its limit, and its
 * messages (`VoicemailBoxSummary`), read over the live monitor's one manager connection. The spool on the PBX
 * host (over SSH) is read only for what the manager interface does not say: a message's audio file and the
 * channel that left it.
 */
import {
  MAILBOX_RE,
  MESSAGE_ID_RE,
  VOICEMAIL_CONTEXT,
  VOICEMAIL_FOLDERS,
  type VoicemailFolder,
  type VoicemailMessage,
} from "../../shared/voicemail";
import { ServiceError } from "../clients/http";
import type { AppContext } from "../context";
import { Invalid, NotFound } from "../core/errors";
import type { PbxRemote } from "../pbx/host/host";
import { type SpoolMessage, voicemailSpoolOf } from "../pbx/host/voicemail-spool";

/** What the voicemail functions use of the app. */
export type VoicemailDeps = Pick<AppContext, "live" | "pbxFiles" | "credentials" | "events" | "db">;

/** app_voicemail's `maxmsg` when voicemail.conf sets none. */
export const DEFAULT_MAX_MESSAGES = 100;

/** A mailbox number of the path, or 404: a number that cannot be a mailbox is none. */
export function mailboxParam(raw: string | undefined): string {
  if (!raw || !MAILBOX_RE.test(raw)) throw new NotFound("Mailbox");
  return raw;
}

/** A message id of the path, or 404. */
export function messageIdParam(raw: string | undefined): string {
  if (!raw || !MESSAGE_ID_RE.test(raw)) throw new NotFound("Voicemail message");
  return raw;
}

const isFolder = (f: string): f is VoicemailFolder => (VOICEMAIL_FOLDERS as readonly string[]).includes(f);

/** What `VoicemailUserStatus` says of a mailbox. */
export interface MailboxStatus {
  maxMessages: number;
  newMessages: number;
  oldMessages: number;
}

const count = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : null);

/**
 * The mailbox's status, or 404 when app_voicemail has no such mailbox in `default` (it answers with no list:
 * "There is no voicemail user of the given info."). 503 while the manager interface is not connected.
 */
export async function mailboxStatus(deps: Pick<VoicemailDeps, "live">, mailbox: string): Promise<MailboxStatus> {
  const items = await deps.live.managerList("VoicemailUserStatus", { Context: VOICEMAIL_CONTEXT, Mailbox: mailbox });
  const detail = items.find((m) => (m.event ?? "").toLowerCase() === "voicemailuserdetail");
  if (!detail) throw new NotFound("Mailbox", `Mailbox ${mailbox} is not in the PBX's voicemail (context default)`);
  return {
    maxMessages: count(detail.maxmessagecount) || DEFAULT_MAX_MESSAGES,
    newMessages: count(detail.newmessagecount) ?? 0,
    oldMessages: count(detail.oldmessagecount) ?? 0,
  };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A message's `Date` as app_voicemail writes it (`origdate`: `%a %b %e %r UTC %Y`, always in UTC, e.g.
 * `Mon Dec  7 12:21:41 AM UTC 2026`) → ISO, or null for another form (a locale's names).
 */
export function parseVoicemailDate(text: string): string | null {
  const m = /^\w{3} (\w{3}) +(\d{1,2}) (\d{1,2}):(\d{2}):(\d{2}) (AM|PM) UTC (\d{4})$/.exec(text.trim());
  if (!m) return null;
  const month = MONTHS.indexOf(m[1] as string);
  if (month < 0) return null;
  const hour12 = Number(m[3]);
  if (hour12 < 1 || hour12 > 12) return null;
  const hour = (hour12 % 12) + (m[6] === "PM" ? 12 : 0);
  const at = Date.UTC(Number(m[7]), month, Number(m[2]), hour, Number(m[4]), Number(m[5]));
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/** A message as `VoicemailBoxSummary` lists it; `receivedAt` null when its date could not be read. */
export interface SummaryMessage extends Omit<VoicemailMessage, "receivedAt"> {
  receivedAt: string | null;
}

/** The mailbox's messages in the console's folders, as app_voicemail lists them (no list: no such mailbox). */
export async function boxSummary(deps: Pick<VoicemailDeps, "live">, mailbox: string): Promise<SummaryMessage[]> {
  const items = await deps.live.managerList("VoicemailBoxSummary", { Context: VOICEMAIL_CONTEXT, Mailbox: mailbox });
  const out: SummaryMessage[] = [];
  for (const m of items) {
    if ((m.event ?? "").toLowerCase() !== "voicemailboxdetail") continue;
    const folder = m.folder ?? "";
    const id = m.id ?? "";
    if (!isFolder(folder) || !MESSAGE_ID_RE.test(id)) continue;
    out.push({
      id,
      folder,
      callerId: m.callerid ?? "",
      receivedAt: parseVoicemailDate(m.date ?? ""),
      durationS: count(m.duration) ?? 0,
    });
  }
  return out;
}

/** A refusal (400) while the PBX host is not set: messages' audio and greetings are files on it. */
export function requireSsh(deps: Pick<VoicemailDeps, "credentials">): void {
  if (!deps.credentials.isConfigured("ssh"))
    throw new Invalid("Voicemail audio lives on the PBX: configure the PBX host (SSH) in API Settings.");
}

/** Where voicemail is on the PBX host, and who FreePBX's files belong to. */
export interface SpoolContext {
  /** `<ASTSPOOLDIR>/voicemail`. */
  spool: string;
  /** `<spool>/default`: the directory under which the audio read here must be. */
  root: string;
  owner: { user: string; group: string };
}

const ACCOUNT = /^[a-z_][a-z0-9_-]{0,31}$/;

export async function spoolContext(host: PbxRemote): Promise<SpoolContext> {
  const settings = await host.freepbxSettings(["ASTSPOOLDIR", "AMPASTERISKUSER", "AMPASTERISKGROUP"]);
  const spool = voicemailSpoolOf(settings.get("ASTSPOOLDIR") ?? "");
  const user = settings.get("AMPASTERISKUSER")?.trim() || "asterisk";
  const group = settings.get("AMPASTERISKGROUP")?.trim() || user;
  if (!ACCOUNT.test(user) || !ACCOUNT.test(group))
    throw new ServiceError("PBX host", "FreePBX's AMPASTERISKUSER or AMPASTERISKGROUP is not a plain account name");
  return { spool, root: `${spool}/${VOICEMAIL_CONTEXT}`, owner: { user, group } };
}

/** The spool's messages of these mailboxes, in the console's folders. */
export async function spoolMessages(host: PbxRemote, ctx: SpoolContext, mailboxes: string[]): Promise<SpoolMessage[]> {
  const { messages } = await host.voicemailSpool(ctx.spool, VOICEMAIL_CONTEXT, mailboxes);
  return messages.filter((m) => isFolder(m.folder));
}

/**
 * One call on one page (`GET /api/calls/{linkedid}`): its CDR legs and CEL events from the call records
 * database, its recordings and voicemail from the PBX host, and the AI assistant's side from the console's own
 * records, on one time axis. What cannot be read (the PBX host down, no SSH configured) is said in `problems`
 * while the rest still shows; a call the records do not have is 404 (one in progress shows from AMI).
 *
 * Recordings: only the files the call's own CDR rows name are read, each resolved under FreePBX's monitor
 * directory (`MIXMON_DIR`, else `<ASTSPOOLDIR>/monitor`) and checked there by the host (no `..`, no symlink out,
 * a regular file whose content is audio). Nothing of a request's URL becomes a path.
 */
import { and, desc, eq, gte, inArray, lte } from "drizzle-orm";
import { aiAssistants, aiCallLogs, callTranscripts } from "../../db/schema";
import {
  CALL_ID_RE,
  type CallAi,
  type CallDetail,
  type CallEvent,
  type CallRecording,
  type CallVoicemail,
} from "../../shared/calls";
import type { ActiveCall } from "../../shared/live";
import { assertMayListen } from "../accounts/settings";
import { buildCall, localIso } from "../cdr/calls";
import type { CallRecords, DetailLeg } from "../cdr/detail";
import type { AppContext } from "../context";
import { Invalid, NotFound } from "../core/errors";
import { type AudioAnswer, type AudioFile, findAudio } from "../pbx/audio";
import { plainDir } from "../pbx/host/files";
import type { PbxRemote } from "../pbx/host/host";
import { findCallVoicemail } from "../voicemail/messages";
import {
  aiEvents,
  aiLines,
  answeredBy,
  byTime,
  celEvents,
  celTransfers,
  legEvents,
  monitorName,
  recordingFiles,
  toCallLeg,
  voicemailLegs,
} from "./timeline";

type DetailDeps = Pick<AppContext, "db" | "cdr" | "credentials" | "pbxFiles" | "live">;

/** An AI call is looked for this long around the call's legs (OpenAI's webhook comes as the call is set up). */
const AI_MARGIN_MS = 15_000;

export function checkCallId(linkedid: string | undefined): string {
  if (!linkedid || !CALL_ID_RE.test(linkedid)) throw new NotFound("Call", "This call is not in the call records");
  return linkedid;
}

/** `url` of a call's `n`th recording. */
const recordingUrl = (linkedid: string, n: number) =>
  `/api/calls/${encodeURIComponent(linkedid)}/recording${n > 0 ? `?n=${n}` : ""}`;

/** FreePBX's monitor directory on the host: `MIXMON_DIR`, else `<ASTSPOOLDIR>/monitor`. */
export async function monitorRoot(host: PbxRemote): Promise<string> {
  const s = await host.freepbxSettings(["ASTSPOOLDIR", "MIXMON_DIR"]);
  const dir = (
    s.get("MIXMON_DIR")?.trim() || `${s.get("ASTSPOOLDIR")?.trim() || "/var/spool/asterisk"}/monitor`
  ).replace(/\/+$/, "");
  if (!plainDir(dir)) throw new Invalid("FreePBX's monitor directory (MIXMON_DIR) is not a plain directory path");
  return dir;
}

/** The recording files of the call, found and sniffed on the host (a file that is not there is left out, said). */
async function readRecordings(
  app: DetailDeps,
  linkedid: string,
  legs: readonly DetailLeg[],
  problems: string[],
): Promise<CallRecording[]> {
  const files = recordingFiles(legs);
  if (files.length === 0) return [];
  if (!app.credentials.isConfigured("ssh")) {
    problems.push("The call has a recording: set the PBX host's SSH in API Settings to play it.");
    return [];
  }
  try {
    return await app.pbxFiles.use(async (host) => {
      const root = await monitorRoot(host);
      const out: CallRecording[] = [];
      for (const [n, file] of files.entries()) {
        const found = await resolveRecording(host, root, file, legs);
        if (typeof found === "string") {
          problems.push(found);
          continue;
        }
        out.push({
          url: recordingUrl(linkedid, n),
          file,
          durationS: found.kind.durationS,
          bytes: found.bytes,
          format: found.kind.format,
        });
      }
      return out;
    });
  } catch (err) {
    problems.push(`The recording could not be read from the PBX host: ${(err as Error).message}`);
    return [];
  }
}

/** One recording file found under the monitor directory, or why not (a sentence for `problems`). */
async function resolveRecording(
  host: PbxRemote,
  root: string,
  file: string,
  legs: readonly DetailLeg[],
): Promise<AudioFile | string> {
  const leg = legs.find((l) => l.recordingfile.trim() === file);
  const name = monitorName(file, root, leg?.calldate ?? "");
  if (!name) return `The recording ${file} is not a file name the console reads.`;
  try {
    return await findAudio(host, root, name, "Recording");
  } catch (err) {
    if (err instanceof NotFound) return `${file}: ${err.message}`;
    throw err;
  }
}

/** The AI call tied to these legs: by the linkedid its INVITE carried, else by caller number within the call's time. */
function findAi(
  app: DetailDeps,
  linkedid: string,
  legs: readonly DetailLeg[],
  span: { from: number; to: number },
): { ai: CallAi; notes: { at: string; text: string }[] } | null {
  const candidates = app.db
    .select()
    .from(aiCallLogs)
    .where(
      and(
        gte(aiCallLogs.createdAt, new Date(span.from - AI_MARGIN_MS)),
        lte(aiCallLogs.createdAt, new Date(span.to + AI_MARGIN_MS)),
        inArray(aiCallLogs.outcome, ["accept", "refer", "reject"]),
      ),
    )
    .orderBy(desc(aiCallLogs.id))
    .limit(50)
    .all();
  const digits = (v: string | null) => (v ?? "").replace(/\D/g, "");
  const numbers = new Set(legs.flatMap((l) => [digits(l.cnum), digits(l.src)]).filter((n) => n.length >= 2));
  const sameNumber = (n: string | null) => {
    const d = digits(n);
    if (d.length < 2) return false;
    for (const own of numbers)
      if (own === d || (own.length >= 7 && d.length >= 7 && own.slice(-7) === d.slice(-7))) return true;
    return false;
  };
  const byHeader = candidates.find((c) => c.linkedid === linkedid);
  const row = byHeader ?? candidates.find((c) => c.linkedid === null && sameNumber(c.callerNumber));
  if (!row) return null;
  const transcript = app.db.select().from(callTranscripts).where(eq(callTranscripts.callId, row.callId)).get();
  const assistant =
    row.assistantId === null
      ? undefined
      : app.db.select({ name: aiAssistants.name }).from(aiAssistants).where(eq(aiAssistants.id, row.assistantId)).get();
  const { tools, notes } = aiLines(row.events);
  const turns =
    transcript && transcript.turns.length > 0
      ? transcript.turns.map((t) => ({ at: t.at, speaker: t.speaker, text: t.text }))
      : (transcript?.transcript ?? "")
          .split("\n")
          .map((line) => /^(Caller|Assistant): ([\s\S]*)$/.exec(line))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => ({
            at: null,
            speaker: m[1] === "Caller" ? ("caller" as const) : ("assistant" as const),
            text: m[2] as string,
          }));
  const ai: CallAi = {
    callId: row.callId,
    assistantId: row.assistantId,
    assistantName: assistant?.name ?? null,
    startedAt: row.createdAt.toISOString(),
    outcome: transcript?.outcome ?? row.outcome,
    turns,
    tools,
    classification: transcript
      ? { sentiment: transcript.sentiment, intent: transcript.intent, summary: transcript.summary }
      : null,
    ruleDecision: transcript?.ruleDecision ?? null,
    matchedBy: byHeader ? "header" : "caller-and-time",
  };
  return { ai, notes };
}

/** A call still in progress (no CDR row yet): what AMI shows of it now. */
function liveDetail(linkedid: string, call: ActiveCall): CallDetail {
  const events: CallEvent[] = call.channels.map((c) => ({
    at: c.startedAt,
    source: "ami",
    type: "CHANNEL",
    channel: c.channel,
    uniqueid: "",
    text: `${c.channel} ${c.state.toLowerCase()}${c.connectedNumber ? ` with ${c.connectedNumber}` : ""}`,
  }));
  if (call.answeredAt)
    events.push({ at: call.answeredAt, source: "ami", type: "ANSWER", channel: "", uniqueid: "", text: "Answered" });
  return {
    linkedid,
    live: true,
    startedAt: call.startedAt,
    endedAt: new Date().toISOString(),
    from: call.caller,
    to: call.callee,
    did: "",
    direction: call.direction,
    disposition: call.state === "up" ? "ANSWERED" : "UNKNOWN",
    durationSec: Math.max(0, Math.round((Date.now() - Date.parse(call.startedAt)) / 1000)),
    talkSec: call.answeredAt ? Math.max(0, Math.round((Date.now() - Date.parse(call.answeredAt)) / 1000)) : 0,
    answeredBy: call.state === "up" ? call.callee.number || null : null,
    legs: [],
    events: byTime(events),
    eventSource: "ami",
    transfers: [],
    recordings: [],
    problems: ["The call is in progress: its call records are written when it ends."],
  };
}

/** GET /api/calls/{linkedid} */
export async function callDetail(app: DetailDeps, rawId: string | undefined): Promise<CallDetail> {
  const linkedid = checkCallId(rawId);
  const records: CallRecords & { trunks: ReadonlySet<string> } = await app.cdr.callRecords(linkedid);
  const { legs, cel, trunks } = records;
  if (legs.length === 0) {
    const live = app.live.activeCalls().calls.find((c) => c.id === linkedid);
    if (live) return liveDetail(linkedid, live);
    throw new NotFound("Call", "This call is not in the call records");
  }
  const call = buildCall(linkedid, legs, trunks);
  const callLegs = legs.map(toCallLeg);
  const start = Date.parse(call.startedAt);
  const end = Math.max(start, ...callLegs.map((l) => Date.parse(l.endedAt)));
  const problems: string[] = [];
  if (legs.length >= 500) problems.push("The call has more legs than the page shows (500).");

  const fromCel = cel !== null && cel.length > 0;
  const events: CallEvent[] = fromCel ? celEvents(cel) : legEvents(legs);
  const recordings = await readRecordings(app, linkedid, legs, problems);

  let voicemail: CallVoicemail | null = null;
  const vm = voicemailLegs(legs, cel);
  if (vm.mailboxes.length > 0) {
    try {
      voicemail = await findCallVoicemail(app as AppContext, {
        mailboxes: vm.mailboxes,
        channels: vm.channels,
        from: new Date(start),
        to: new Date(end),
      });
    } catch (err) {
      problems.push(`The voicemail could not be read: ${(err as Error).message}`);
    }
    if (voicemail)
      events.push({
        at: voicemail.receivedAt,
        source: "voicemail",
        type: "VOICEMAIL",
        channel: "",
        uniqueid: "",
        text: `Voicemail left in ${voicemail.mailbox} (${voicemail.durationS} s)`,
      });
  }

  const found = findAi(app, linkedid, legs, { from: start, to: end });
  const ai = found?.ai;
  if (found) events.push(...aiEvents(found.ai, found.notes));

  return {
    linkedid,
    live: false,
    startedAt: call.startedAt,
    endedAt: localIso(new Date(end)),
    from: call.from,
    to: call.to,
    did: call.did,
    direction: call.direction,
    disposition: call.disposition,
    durationSec: call.durationSec,
    talkSec: call.talkSec,
    answeredBy: answeredBy(legs),
    legs: callLegs,
    events: byTime(events),
    eventSource: fromCel ? "cel" : "cdr",
    transfers: cel ? celTransfers(cel) : [],
    ...(recordings[0] ? { recording: recordings[0] } : {}),
    recordings,
    ...(voicemail ? { voicemail } : {}),
    ...(ai ? { ai } : {}),
    problems,
  };
}

/**
 * GET /api/calls/{linkedid}/recording[?n=N][&download=1]: the call's `n`th recording file (of those its CDR
 * rows name), found on the PBX host. Viewers only when an administrator allows listening.
 */
export async function callRecording(
  app: DetailDeps,
  url: URL,
  rawId: string | undefined,
  user: Parameters<typeof assertMayListen>[1],
): Promise<AudioAnswer> {
  assertMayListen(app.db, user);
  const linkedid = checkCallId(rawId);
  const nText = url.searchParams.get("n") ?? "0";
  const n = /^\d{1,3}$/.test(nText) ? Number(nText) : -1;
  const { legs } = await app.cdr.callRecords(linkedid);
  if (legs.length === 0) throw new NotFound("Call", "This call is not in the call records");
  const file = recordingFiles(legs)[n];
  if (file === undefined) throw new NotFound("Recording", "The call has no such recording");
  if (!app.credentials.isConfigured("ssh"))
    throw new Invalid("Recordings are read from the PBX host: configure its SSH in API Settings.");
  const found = await app.pbxFiles.use(async (host) => {
    const resolved = await resolveRecording(host, await monitorRoot(host), file, legs);
    if (typeof resolved === "string") throw new NotFound("Recording", resolved);
    return resolved;
  });
  return {
    file: found,
    filename: found.name.split("/").at(-1) ?? "recording",
    download: url.searchParams.get("download") === "1",
  };
}

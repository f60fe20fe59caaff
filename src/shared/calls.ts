/**
 * One call on one page (`GET /api/calls/{linkedid}`): every CDR leg of the call, the channel events in
 * order (FreePBX's CEL table when it records them, else what the legs themselves say), who answered, the
 * transfers, the recording, the voicemail it left and, for a call that reached an AI assistant, the
 * assistant's turns and tool calls, on one time axis. Wire types only (no zod): the page imports this.
 */
import type { CallDirection, CallParty, CdrDisposition } from "./live";

/**
 * A call's id as Asterisk writes it (`linkedid`, the `uniqueid` of its first channel): `1733520000.12`, or
 * with a system name before it (`pbx1-1733520000.12`). Anything else is not a call of this PBX (404).
 */
export const CALL_ID_RE = /^[A-Za-z0-9_-]{0,40}?\d{9,11}\.\d{1,10}$/;

/** One CDR row of the call. Times are ISO (CDR times are the PBX's local time; ADR 0027). */
export interface CallLeg {
  uniqueid: string;
  /** The row's order within the call (`sequence`), 0 on a table without it. */
  sequence: number;
  startedAt: string;
  /** When the leg was answered (`start + duration - billsec`), null when it never was. */
  answeredAt: string | null;
  endedAt: string;
  durationSec: number;
  talkSec: number;
  disposition: CdrDisposition | "UNKNOWN";
  /** The calling channel (`PJSIP/2901-00000003`) and the one it dialled, empty when none. */
  channel: string;
  dstChannel: string;
  from: CallParty;
  /** The number dialled (`dst`) and its name (`dst_cnam`). */
  to: CallParty;
  did: string;
  context: string;
  /** The last application the leg ran (`Dial`, `VoiceMail`, `Queue`, …) and its arguments. */
  lastApp: string;
  lastData: string;
  /** The recording file the leg names (`recordingfile`), empty when none. */
  recordingFile: string;
}

/** Where an event of the timeline comes from. */
export type CallEventSource = "cel" | "cdr" | "ami" | "voicemail" | "ai";

/** One moment of the call, on the same axis as every other. */
export interface CallEvent {
  at: string;
  source: CallEventSource;
  /**
   * CEL's event type (`CHAN_START`, `ANSWER`, `BRIDGE_ENTER`, `BLINDTRANSFER`, `HANGUP`, …) as Asterisk names
   * it; for the others: `LEG_START`, `LEG_ANSWER`, `LEG_END` (cdr), `CHANNEL`, `ANSWER` (ami: a call in
   * progress, from the channels AMI lists now), `VOICEMAIL` (voicemail), `AI_START`,
   * `AI_TURN`, `AI_TOOL`, `AI_NOTE`, `AI_END` (ai).
   */
  type: string;
  /** The channel it happened on (empty for the AI's events). */
  channel: string;
  /** The leg it belongs to (`uniqueid`), empty when none. */
  uniqueid: string;
  /** One line for a person: "2901 answered", "Caller: I want to book a table", "lookup_order: done". */
  text: string;
}

/** A transfer within the call, as CEL records it. */
export interface CallTransfer {
  at: string;
  kind: "blind" | "attended";
  /** Who transferred (the channel's caller number) and where to (the extension or number). */
  by: string;
  to: string;
}

/** A recording of the call: the file the CDR names, streamed from the PBX's monitor directory. */
export interface CallRecording {
  /** `GET` it for the audio (answers `Range` with 206); add `?download=1` to save it. */
  url: string;
  /** The file's name as the CDR names it. */
  file: string;
  /** Length of the audio from its header, null when the header does not say. */
  durationS: number | null;
  bytes: number;
  format: string;
}

/** The voicemail message the call left (matched by the mailbox's caller channel and time). */
export interface CallVoicemail {
  mailbox: string;
  folder: string;
  /** The message's `msg_id`: what `/api/voicemail/{mailbox}/messages/{id}` takes. */
  id: string;
  receivedAt: string;
  durationS: number;
  callerId: string;
  url: string;
}

/** One turn of an AI assistant's conversation; `at` is null for turns stored before turns had times. */
export interface CallAiTurn {
  at: string | null;
  speaker: "caller" | "assistant";
  text: string;
}

/** A tool the assistant called during the call, with what came of it. */
export interface CallAiTool {
  at: string;
  name: string;
  result: string;
}

/** The AI leg of a call: the assistant's side of it, from the console's own records. */
export interface CallAi {
  /** OpenAI's call id (`rtc_…`): the AI call's own page. */
  callId: string;
  assistantId: number | null;
  assistantName: string | null;
  startedAt: string;
  outcome: string | null;
  turns: CallAiTurn[];
  tools: CallAiTool[];
  classification: { sentiment: string | null; intent: string | null; summary: string | null } | null;
  /** What the routing rules did ("rule 'Angry' (#3) route_to_extension → 200: done"), null when none acted. */
  ruleDecision: string | null;
  /** How the AI call was tied to this call: the linkedid header the PBX sent, or caller number and time. */
  matchedBy: "header" | "caller-and-time";
}

/** GET /api/calls/{linkedid} */
export interface CallDetail {
  linkedid: string;
  /** The call is still in progress: no call records yet, what AMI shows of it now (no legs). */
  live: boolean;
  startedAt: string;
  endedAt: string;
  from: CallParty;
  to: CallParty;
  did: string;
  direction: CallDirection;
  disposition: CdrDisposition | "UNKNOWN";
  durationSec: number;
  talkSec: number;
  /** The extension or number that answered (the answered leg's destination channel), null when nobody did. */
  answeredBy: string | null;
  legs: CallLeg[];
  /** Every event in time order (ties keep CEL's own order). */
  events: CallEvent[];
  /** Whether `events` came from CEL, only from the legs (no CEL table, or CEL recorded nothing), or from AMI (live). */
  eventSource: "cel" | "cdr" | "ami";
  transfers: CallTransfer[];
  /** The first recording; `recordings` lists every distinct file when legs name several. */
  recording?: CallRecording;
  recordings: CallRecording[];
  voicemail?: CallVoicemail;
  ai?: CallAi;
  /** What could not be read (the PBX host down for the recording, the mailbox): the rest still shows. */
  problems: string[];
}

/** The SIP header a PBX may send to OpenAI with the call's linkedid, tying the AI call to it exactly. */
export const LINKEDID_HEADER = "X-Linkedid";

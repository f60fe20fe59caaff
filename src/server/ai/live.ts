/**
 * AI calls in progress (ADR 0044): the live list read from the call sessions in memory
 * (`AppContext.aiCalls`), one coalesced `ai-live-updated` event from their in-process events so a browser
 * never polls, and an operator's take-over: transfer to an extension (REST refer) or end the call (REST
 * hangup). A refused refer or hangup is an error answer, never a success that did not happen. An operator's
 * whisper: an instruction only the assistant receives, as a system item on the sideband (ADR 0070).
 */

import {
  type AiHangupAnswer,
  type AiTransferAnswer,
  LIVE_TURNS_MAX,
  type LiveAiCall,
  type LiveAiClassification,
} from "../../shared/ai/live";
import type { AiWhisperAnswer } from "../../shared/ai/measures";
import { sipSettings } from "../accounts/settings";
import { ServiceError } from "../clients/http";
import type { AppContext } from "../context";
import type { Events } from "../core/deps";
import { Conflict, Invalid, NotFound, Unavailable } from "../core/errors";
import { clients } from "../integrations/outside";
import { Coalesced } from "../live/publisher";
import type { CallSession, CallSessions } from "./sideband";

type LiveDeps = Pick<AppContext, "aiCalls" | "db" | "config" | "credentials" | "events" | "now">;

/** At most one `ai-live-updated` per this interval while calls talk (a call ending is sent at once). */
export const LIVE_EVENT_INTERVAL_MS = 300;

/** The session's latest classification (ADR 0043; its "classified" note is what announces it here), or null. */
function classificationOf(session: CallSession): LiveAiClassification | null {
  const c = session.classification.latest;
  return c ? { sentiment: c.sentiment, intent: c.intent, summary: c.summary } : null;
}

function toLive(session: CallSession): LiveAiCall {
  const turns = session.transcriptTurns();
  const shown = turns.slice(-LIVE_TURNS_MAX);
  return {
    callId: session.callId,
    callerNumber: session.callerNumber,
    callerName: session.callerName,
    assistantId: session.assistant.id,
    assistantName: session.assistant.name,
    startedAt: new Date(session.startedAt).toISOString(),
    connected: session.isOpen,
    turns: shown.map((t) => ({ speaker: t.speaker, text: t.text })),
    earlierTurns: turns.length - shown.length,
    classification: classificationOf(session),
    whispers: [...session.whispers],
  };
}

/** GET /api/ai/calls/live: the calls the console follows now, the longest-running first. */
export const listLiveAiCalls = (app: Pick<AppContext, "aiCalls">): LiveAiCall[] =>
  app.aiCalls
    .list()
    .sort((a, b) => a.startedAt - b.startedAt)
    .map(toLive);

/**
 * Publishes `ai-live-updated` from the sessions' events: coalesced while calls talk, at once when one ends
 * (its card goes). Returns the stop function (the console stopping).
 */
export function publishLiveAiCalls(aiCalls: CallSessions, events: Events): () => void {
  const coalesced = new Coalesced(events, "ai-live-updated", LIVE_EVENT_INTERVAL_MS);
  const unsubscribe = aiCalls.subscribe((e) => {
    if (e.type === "ended") coalesced.flush();
    else coalesced.request();
  });
  return () => {
    unsubscribe();
    coalesced.close();
  };
}

function liveSession(app: LiveDeps, callId: string): CallSession {
  const session = callId ? app.aiCalls.get(callId) : undefined;
  if (!session) throw new NotFound("AI call", "This AI call is not in progress (it has ended)");
  return session;
}

/**
 * POST /api/ai/calls/:callId/transfer: an operator sends the call to an extension (or the assistant's IVR
 * number) through the same refer as the `transfer_call` tool. 404 when the call ended, 400 for an extension
 * that does not exist, 503 without a public SIP host, 502 with OpenAI's reason when the refer is refused.
 */
export async function transferLiveAiCall(
  app: LiveDeps,
  callId: string | undefined = "",
  extension: string,
): Promise<AiTransferAnswer> {
  const session = liveSession(app, callId);
  if (!sipSettings(app.db, app.config).effective.host.trim())
    throw new Unavailable("The PBX public SIP host is not set (Settings), so calls cannot be transferred");
  const target = session.transferTarget(extension);
  if ("error" in target) throw new Invalid(target.error, { extension: target.error });
  app.aiCalls.appendCallEvent(callId, `an operator is taking the call over: transfer to ${extension}`);
  const answer = await session.transfer(extension);
  // The session has recorded the refusal on the call's log (and in the log) without secrets.
  if (!answer.ok) throw new ServiceError("OpenAI", answer.error);
  return { callId, transferredTo: extension, targetUri: target.uri };
}

/**
 * POST /api/ai/calls/:callId/hangup: an operator ends the call (REST hangup), then the session ends with the
 * outcome "ended by an operator". A refused hangup is a 502 and the call goes on, followed as before.
 */
export async function hangupLiveAiCall(app: LiveDeps, callId: string | undefined = ""): Promise<AiHangupAnswer> {
  const session = liveSession(app, callId);
  try {
    await clients.openai(app).hangupCall(callId);
  } catch (err) {
    const why = app.aiCalls.secretFree(err instanceof Error ? err.message : "unexpected error");
    app.aiCalls.appendCallEvent(callId, `an operator's hang-up was refused: ${why}`);
    app.aiCalls.log(`ai-call ${callId} an operator's hang-up was refused: ${why}`);
    if (err instanceof ServiceError) throw new ServiceError("OpenAI", why, err.status);
    throw err;
  }
  await session.finish("ended by an operator");
  return { callId, ended: true };
}

/** Characters of a whisper kept on the call's record and in the live view. */
export const WHISPER_SHOWN_CHARS = 200;
/** Whispers kept per call for the live view. */
const WHISPERS_KEPT = 20;

/**
 * POST /api/ai/calls/:callId/whisper: an operator's instruction to the assistant of a live call, sent on the
 * sideband as a system item (`conversation.item.create`) followed by `response.create`, so the assistant acts
 * on it; the caller hears only what the assistant then says. 404 when the call is not in progress, 409 while
 * its sideband is not open (opening or reconnecting). Noted on the call (cut short) and shown live.
 */
export function whisperLiveAiCall(app: LiveDeps, callId: string | undefined = "", text: string): AiWhisperAnswer {
  const session = liveSession(app, callId);
  if (!session.isOpen || !session.instruct(text))
    throw new Conflict("The call's sideband is not open right now (it is connecting or reconnecting); try again");
  const shown = text.length > WHISPER_SHOWN_CHARS ? `${text.slice(0, WHISPER_SHOWN_CHARS)}…` : text;
  session.whispers.push({ at: new Date(app.now()).toISOString(), text: shown });
  if (session.whispers.length > WHISPERS_KEPT) session.whispers.shift();
  // The note is on the call's record and, as a session event, makes the live view refetch.
  const note = `an operator whispered: ${shown}`;
  app.aiCalls.appendCallEvent(callId, note);
  app.aiCalls.emit({ type: "note", callId, text: note });
  return { callId, delivered: true };
}

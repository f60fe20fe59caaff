/**
 * Answering `realtime.call.incoming` from OpenAI's Realtime SIP connector:
 * find the assistant for the called number, let the routing rules decide,
 * then accept, reject or refer the call through OpenAI's call-control API.
 * Every outcome is one `ai_call_logs` row and one log line (no secrets, no bodies).
 * An assistant over its daily spend cap does not take the call: it is referred to the cap's transfer target,
 * or rejected with SIP 486 Busy Here, which lets the PBX send the call on as it does a busy line (ADR 0070).
 * Why it works this way: docs/decisions/0007-ai-routing-and-webhook.md.
 */
import { and, desc, eq, ne } from "drizzle-orm";
import type { Db } from "../../db/client";
import { aiCallLogs } from "../../db/schema";
import { functionToolsOf, gaVoice } from "../../shared/ai/assistants";
import type { AiCallLog, CallOutcome } from "../../shared/ai/calls";
import type { RouteDecision } from "../../shared/ai/routing-rules";
import { ServiceError } from "../clients/http";
import type { OpenAiClient, RealtimeSession } from "../clients/openai";
import type { Deps } from "../core/deps";
import { DomainError } from "../core/errors";
import { clients } from "../integrations/outside";
import { redact } from "../redact";
import { activeAssistant, assistantForNumber } from "./assistants";
import { capTarget, othersRunning, overCapText, overDailyCap } from "./caps";
import { type AssistantRow, type RuleRow, toCallLog } from "./records";
import { referTarget } from "./refer-target";
import { decideRoute } from "./routing";
import type { CallSessions } from "./sideband";
import { calledNumberOf, displayNameOf, linkedidOf, parseSipAddress, type SipHeader, sipHeader } from "./sip";

export interface IncomingCall {
  callId: string;
  webhookId: string | null;
  sipHeaders: SipHeader[];
}

export interface CallResult {
  outcome: CallOutcome;
  detail: string;
  /** The call was already handled (a redelivered webhook): nothing was sent to OpenAI. */
  duplicate?: boolean;
}

/**
 * What answering a call needs: the database, the event hub, the clock, and the OpenAI client's settings;
 * with `aiCalls` (the app's call sessions) an accepted call is followed over its sideband (ADR 0042).
 */
export type CallDeps = Pick<Deps, "db" | "events" | "now" | "config" | "credentials"> & { aiCalls?: CallSessions };

/** Instructions for the short-lived session of a call that is accepted only to be transferred. */
export const TRANSFER_INSTRUCTIONS = "The call is being transferred. Say only: One moment, please.";
export const TRANSFER_MODEL = "gpt-realtime";

/** The last 100 handled calls, newest first. */
export const listCallLogs = (deps: Pick<Deps, "db">): AiCallLog[] =>
  deps.db.select().from(aiCallLogs).orderBy(desc(aiCallLogs.id)).limit(100).all().map(toCallLog);

/** The GA session built from an assistant; temperature is not part of it (the GA session has no such field). */
export function sessionFor(a: AssistantRow): RealtimeSession {
  const tools = functionToolsOf(a.tools);
  return {
    type: "realtime",
    model: a.model,
    instructions: a.systemPrompt,
    audio: { output: { voice: gaVoice(a.voice) } },
    ...(tools.length ? { tools } : {}),
  };
}

export { referTarget };

type Plan =
  | { kind: "reject"; statusCode: number; detail: string }
  | { kind: "accept"; assistant: AssistantRow; detail: string }
  /** `brief`: accepted with the short transfer session, not the assistant's (a call refused at its cap). */
  | { kind: "refer"; target: string; assistant: AssistantRow | null; detail: string; brief?: boolean };

/** SIP code of a call refused because its assistant is over its daily spend cap: busy, so the PBX may fail over. */
export const CAP_REJECT_CODE = 486;

/** A call its assistant would take, when that assistant is over its daily spend cap: referred or rejected. */
export function planAtCap(deps: CallDeps, plan: Plan, pbxHost: string | null): Plan {
  if (plan.kind !== "accept") return plan;
  const a = plan.assistant;
  const over = overDailyCap(deps, a, othersRunning(deps.aiCalls?.list() ?? [], { assistant: a }));
  if (!over) return plan;
  const why = `${plan.detail}; ${overCapText(a, over)}`;
  const target = capTarget(a, pbxHost);
  if (target) return { kind: "refer", target, assistant: a, brief: true, detail: `${why}: referred to ${target}` };
  const noTarget = a.capAction === "transfer" ? ` (no SIP URI for ${a.capTransferTo ?? "its transfer target"})` : "";
  return {
    kind: "reject",
    statusCode: CAP_REJECT_CODE,
    detail: `${why}${noTarget}: rejected with SIP ${CAP_REJECT_CODE}`,
  };
}

function rejectCode(params: Record<string, unknown>): number {
  const code = Number(params.statusCode ?? params.status_code);
  return Number.isInteger(code) && code >= 400 && code <= 699 ? code : 603;
}

const ruleText = (rule: RuleRow | null) => (rule ? `rule '${rule.name}' (#${rule.id})` : "no rule matched");
const who = (a: AssistantRow) => `assistant '${a.name}' (#${a.id})`;

/** Turns the routing decision into one call-control plan. */
export function planCall(
  deps: Pick<Deps, "db">,
  decision: RouteDecision,
  rule: RuleRow | null,
  assistant: AssistantRow | null,
  called: string | null,
  pbxHost: string | null,
): Plan {
  const why = ruleText(rule);
  const params = decision.actionParams;
  const notes: string[] = [];
  switch (decision.action) {
    case "hangup": {
      const code = rejectCode(params);
      return { kind: "reject", statusCode: code, detail: `${why}: hangup, rejected with SIP ${code}` };
    }
    case "route_to_extension":
    case "route_to_ivr":
    case "send_voicemail": {
      const target = referTarget(decision.action, params, pbxHost);
      if (target)
        return { kind: "refer", target, assistant, detail: `${why}: ${decision.action}, referred to ${target}` };
      notes.push(`${why}: ${decision.action} has no usable target in its parameters; answered as transfer_to_ai`);
      break;
    }
    case "transfer_to_ai": {
      const id = Number(params.assistantId);
      if (Number.isInteger(id) && id > 0) {
        const chosen = activeAssistant(deps, id);
        if (chosen) return { kind: "accept", assistant: chosen, detail: `${why}: accepted by ${who(chosen)}` };
        notes.push(`${why}: assistant #${id} is not an active assistant`);
      }
      break;
    }
    default:
      if (rule) notes.push(`${why}: unknown action '${decision.action}'; answered as transfer_to_ai`);
  }
  const prefix = notes.length ? `${notes.join("; ")}; ` : rule ? `${why}; ` : "";
  if (assistant) return { kind: "accept", assistant, detail: `${prefix}accepted by ${who(assistant)}` };
  return {
    kind: "reject",
    statusCode: 603,
    detail: `${prefix}no active assistant for ${called ? `called number ${called}` : "an unknown called number"}, rejected with SIP 603`,
  };
}

async function execute(client: OpenAiClient, callId: string, plan: Plan): Promise<CallResult> {
  switch (plan.kind) {
    case "reject":
      await client.rejectCall(callId, plan.statusCode);
      return { outcome: "reject", detail: plan.detail };
    case "accept":
      await client.acceptCall(callId, sessionFor(plan.assistant));
      return { outcome: "accept", detail: plan.detail };
    case "refer": {
      // REFER needs an established call: accept first, then transfer at once.
      const session =
        plan.assistant && !plan.brief
          ? sessionFor(plan.assistant)
          : { type: "realtime" as const, model: TRANSFER_MODEL, instructions: TRANSFER_INSTRUCTIONS };
      await client.acceptCall(callId, session);
      try {
        await client.referCall(callId, plan.target);
      } catch (err) {
        await client.hangupCall(callId).catch(() => {});
        throw err;
      }
      return { outcome: "refer", detail: plan.detail };
    }
  }
}

/** Calls being answered right now, per database: a second delivery for the same call waits for the first. */
const inFlightByDb = new WeakMap<Db, Map<string, Promise<CallResult>>>();

/**
 * Handles one incoming call; never throws (failures become an `error` outcome).
 * A call already handled (logged), or being handled right now, is not handled
 * again; every handled call is logged and announced as `ai-calls-updated`.
 */
export function answerIncomingCall(deps: CallDeps, call: IncomingCall): Promise<CallResult> {
  const prior = deps.db
    .select()
    .from(aiCallLogs)
    .where(and(eq(aiCallLogs.callId, call.callId), ne(aiCallLogs.outcome, "error")))
    .get();
  if (prior) return Promise.resolve({ outcome: prior.outcome, detail: prior.detail ?? "", duplicate: true });
  let inFlight = inFlightByDb.get(deps.db);
  if (!inFlight) {
    inFlight = new Map();
    inFlightByDb.set(deps.db, inFlight);
  }
  const running = inFlight.get(call.callId);
  if (running) return running.then((r) => ({ ...r, duplicate: true }));
  // Claimed synchronously, before the first await.
  const map = inFlight;
  const answer = answerOnce(deps, call).finally(() => map.delete(call.callId));
  map.set(call.callId, answer);
  return answer;
}

async function answerOnce(deps: CallDeps, call: IncomingCall): Promise<CallResult> {
  const called = calledNumberOf(call.sipHeaders);
  const fromHeader = sipHeader(call.sipHeaders, "From");
  const from = parseSipAddress(fromHeader);
  const assistant = assistantForNumber(deps, called);
  const facts: Record<string, string> = { direction: "inbound" };
  if (called) Object.assign(facts, { calledNumber: called, extension: called });
  if (from.user) facts.callerNumber = from.user;
  if (assistant) facts.assistantId = String(assistant.id);
  const { decision, rule } = decideRoute(deps, facts);
  const plan = planAtCap(deps, planCall(deps, decision, rule, assistant, called, from.host), from.host);
  const planned = plan.kind === "refer" ? plan.assistant : plan.kind === "accept" ? plan.assistant : null;

  let result: CallResult;
  try {
    result = await execute(clients.openai(deps), call.callId, plan);
  } catch (err) {
    const why =
      err instanceof ServiceError || err instanceof DomainError
        ? err.message
        : `unexpected error: ${(err as Error).message}`;
    result = { outcome: "error", detail: `${plan.detail}; failed: ${why}` };
  }
  // The detail is stored and shown: no secret in any encoding (the clients redact theirs; this is the backstop).
  const openai = deps.credentials.values("openai");
  result.detail = redact(result.detail, [openai.apiKey, openai.webhookSecret]);
  const row = deps.db
    .insert(aiCallLogs)
    .values({
      callId: call.callId,
      webhookId: call.webhookId,
      assistantId: planned?.id ?? null,
      ruleId: rule?.id ?? null,
      calledNumber: called,
      callerNumber: from.user,
      linkedid: linkedidOf(call.sipHeaders),
      outcome: result.outcome,
      detail: result.detail.slice(0, 1000),
      createdAt: new Date(deps.now()),
    })
    .returning({ id: aiCallLogs.id })
    .get();
  deps.events.publish({ type: "ai-calls-updated", data: { id: row.id, action: "created", outcome: result.outcome } });
  if (deps.config.logRequests)
    console.log(`${new Date(deps.now()).toISOString()} ai-call ${call.callId} ${result.outcome}: ${result.detail}`);
  // An assistant answers: follow the call on its sideband (tools, transcript). Opens in the background.
  if (result.outcome === "accept" && plan.kind === "accept")
    deps.aiCalls?.start({
      callId: call.callId,
      assistant: plan.assistant,
      callerNumber: from.user,
      callerName: displayNameOf(fromHeader),
    });
  return result;
}

/**
 * AI assistants: the records the AI Assistants page edits, the lookups the
 * incoming-call handler makes, and what the page shows about the SIP connector.
 */
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import { aiAssistants, aiCallLogs, aiRoutingRules } from "../../db/schema";
import { type AiAssistant, aiAssistantSchema } from "../../shared/ai/assistants";
import { type SipUriInfo, sipUriFor, WEBHOOK_PATH } from "../../shared/ai/calls";
import { parseJsonObject } from "../../shared/ai/routing-rules";
import type { DeleteAnswer, Dependents } from "../../shared/safe-delete";
import type { Deps } from "../core/deps";
import { Conflict, NotFound } from "../core/errors";
import { keepForUndo } from "../core/undo";
import { parseId, validate } from "../core/validate";
import { type AssistantRow, toAssistant } from "./records";
import { normalizeNumber } from "./sip";
import { rerunOnPromptChange } from "./test-runner";

export type AssistantInput = z.output<typeof aiAssistantSchema>;

const WHAT = "AI assistant";

/** Newest first. */
export const listAssistants = (deps: Pick<Deps, "db">): AiAssistant[] =>
  deps.db
    .select()
    .from(aiAssistants)
    .orderBy(desc(aiAssistants.createdAt), desc(aiAssistants.id))
    .all()
    .map(toAssistant);

function find(deps: Pick<Deps, "db">, rawId: string | undefined): AssistantRow {
  const id = parseId(rawId, WHAT);
  const row = deps.db.select().from(aiAssistants).where(eq(aiAssistants.id, id)).get();
  if (!row) throw new NotFound(WHAT);
  return row;
}

export function createAssistant(deps: Pick<Deps, "db" | "events" | "now">, input: AssistantInput): AiAssistant {
  const now = new Date(deps.now());
  const row = deps.db
    .insert(aiAssistants)
    .values({ ...input, createdAt: now, updatedAt: now })
    .returning()
    .get();
  deps.events.publish({ type: "ai-assistants-updated", data: { id: row.id, action: "created" } });
  return toAssistant(row);
}

/** The given fields over the stored record, validated as a whole; fields left out keep their stored values. */
export function updateAssistant(
  deps: Pick<Deps, "db" | "events" | "now"> & Partial<Pick<Deps, "config" | "credentials">>,
  rawId: string | undefined,
  patch: Partial<AssistantInput>,
): AiAssistant {
  const { id, createdAt: _c, updatedAt: _u, ...current } = find(deps, rawId);
  const input = validate(aiAssistantSchema, { ...current, ...patch });
  const row = deps.db
    .update(aiAssistants)
    .set({ ...input, updatedAt: new Date(deps.now()) })
    .where(eq(aiAssistants.id, id))
    .returning()
    .get();
  deps.events.publish({ type: "ai-assistants-updated", data: { id, action: "updated" } });
  // A changed prompt, tool list or model runs the assistant's test scripts again (ADR 0072).
  rerunOnPromptChange(deps, current, row);
  return toAssistant(row);
}

/**
 * What depends on an assistant: the routing rules that transfer calls to it (`transfer_to_ai` with its
 * `assistantId`). Any of them blocks its delete: the rule would quietly fall back to another assistant.
 */
export function assistantDependents(deps: Pick<Deps, "db">, row: AssistantRow): Dependents {
  const rules = deps.db
    .select({
      id: aiRoutingRules.id,
      name: aiRoutingRules.name,
      action: aiRoutingRules.action,
      params: aiRoutingRules.actionParams,
    })
    .from(aiRoutingRules)
    .all()
    .filter(
      (r) => r.action === "transfer_to_ai" && String(parseJsonObject(r.params)?.assistantId ?? "") === String(row.id),
    );
  return {
    dependents: rules.map((r) => ({ kind: "ai-rule" as const, id: r.id, label: r.name })),
    blockedBecause: rules.length
      ? `Routing rule(s) ${rules.map((r) => r.name).join(", ")} transfer calls to ${row.name}. Change them first.`
      : null,
  };
}

/** GET /api/ai/assistants/:id/dependents. */
export const dependentsOfAssistant = (deps: Pick<Deps, "db">, rawId: string | undefined): Dependents =>
  assistantDependents(deps, find(deps, rawId));

/** Deletes an assistant no rule transfers calls to; the answer's token restores it for a few seconds. */
export function deleteAssistant(deps: Pick<Deps, "db" | "events" | "now">, rawId: string | undefined): DeleteAnswer {
  const row = find(deps, rawId);
  const { blockedBecause } = assistantDependents(deps, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  const { id } = row;
  // The call log keeps its rows (ON DELETE SET NULL); an undo links them again.
  const logIds = deps.db
    .select({ id: aiCallLogs.id })
    .from(aiCallLogs)
    .where(eq(aiCallLogs.assistantId, id))
    .all()
    .map((r) => r.id);
  deps.db.delete(aiAssistants).where(eq(aiAssistants.id, id)).run();
  deps.events.publish({ type: "ai-assistants-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "ai-assistant", (d) => {
    d.db.transaction((tx) => {
      tx.insert(aiAssistants).values(row).run();
      if (logIds.length) tx.update(aiCallLogs).set({ assistantId: id }).where(inArray(aiCallLogs.id, logIds)).run();
    });
    d.events.publish({ type: "ai-assistants-updated", data: { id, action: "created" } });
    return toAssistant(row);
  });
}

/**
 * The assistant that answers a called number: the oldest active one whose
 * extensionId equals it, compared on digits, * and # only (docs/decisions/0007).
 */
export function assistantForNumber(deps: Pick<Deps, "db">, called: string | null): AssistantRow | null {
  if (!called) return null;
  const want = normalizeNumber(called);
  const active = deps.db
    .select()
    .from(aiAssistants)
    .where(eq(aiAssistants.status, "active"))
    .orderBy(asc(aiAssistants.id))
    .all();
  return active.find((a) => a.extensionId && normalizeNumber(a.extensionId) === want) ?? null;
}

/** The assistant with this id, if it is active. */
export const activeAssistant = (deps: Pick<Deps, "db">, id: number): AssistantRow | null =>
  deps.db
    .select()
    .from(aiAssistants)
    .where(and(eq(aiAssistants.id, id), eq(aiAssistants.status, "active")))
    .get() ?? null;

/** The SIP URI the PBX dials (from the OpenAI project id) and which OpenAI settings are present. */
export function sipUriInfo(deps: Pick<Deps, "credentials">): SipUriInfo {
  const v = deps.credentials.values("openai");
  const projectId = v.projectId && /^proj_[A-Za-z0-9]+$/.test(v.projectId) ? v.projectId : null;
  return {
    uri: projectId ? sipUriFor(projectId) : null,
    webhookPath: WEBHOOK_PATH,
    apiKeySet: Boolean(v.apiKey),
    webhookSecretSet: Boolean(v.webhookSecret),
  };
}

/**
 * Scripted test conversations of an assistant (ADR 0072): the scripts (caller turns and what must happen)
 * and their runs' pass/fail history. Running them is src/server/ai/test-runner.ts. A script's change
 * publishes `ai-test-scripts-updated`; a run's start and end `ai-test-runs-updated`.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { aiAssistants, aiTestRuns, aiTestScripts } from "../../db/schema";
import type { TestRun, TestScript, TestScriptInput } from "../../shared/ai/test-scripts";
import type { Deps } from "../core/deps";
import { Invalid, NotFound } from "../core/errors";
import { parseId } from "../core/validate";
import type { AssistantRow } from "./records";

export type ScriptRow = typeof aiTestScripts.$inferSelect;
export type RunRow = typeof aiTestRuns.$inferSelect;

const SCRIPT = "Test script";
/** The history's length when `?limit=` is not given. */
export const TEST_RUNS_DEFAULT_LIMIT = 50;

export const publishScripts = (deps: Pick<Deps, "events">, assistantId: number, action: string) =>
  deps.events.publish({ type: "ai-test-scripts-updated", data: { assistantId, action } });

export const toRun = (r: RunRow, scriptName: string): TestRun => ({
  id: r.id,
  scriptId: r.scriptId,
  scriptName,
  assistantId: r.assistantId,
  trigger: r.trigger,
  promptHash: r.promptHash,
  state: r.state,
  result: r.result ?? null,
  detail: r.detail ?? null,
  startedAt: r.startedAt.toISOString(),
  finishedAt: r.finishedAt?.toISOString() ?? null,
});

const toScript = (r: ScriptRow, lastRun: TestRun | null): TestScript => ({
  id: r.id,
  assistantId: r.assistantId,
  name: r.name,
  turns: r.turns,
  expect: r.expect,
  lastRun,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export function findAssistantRow(deps: Pick<Deps, "db">, rawId: string | undefined): AssistantRow {
  const id = parseId(rawId, "AI assistant");
  const row = deps.db.select().from(aiAssistants).where(eq(aiAssistants.id, id)).get();
  if (!row) throw new NotFound("AI assistant");
  return row;
}

export function findScript(deps: Pick<Deps, "db">, rawId: string | undefined): ScriptRow {
  const id = parseId(rawId, SCRIPT);
  const row = deps.db.select().from(aiTestScripts).where(eq(aiTestScripts.id, id)).get();
  if (!row) throw new NotFound(SCRIPT);
  return row;
}

/** The scripts of an assistant (by name), each with its newest run. */
export function listScripts(deps: Pick<Deps, "db">, rawAssistantId: string | undefined): TestScript[] {
  const assistant = findAssistantRow(deps, rawAssistantId);
  const scripts = scriptsOf(deps, assistant.id);
  if (!scripts.length) return [];
  const last = deps.db
    .select()
    .from(aiTestRuns)
    .where(
      and(
        eq(aiTestRuns.assistantId, assistant.id),
        sql`${aiTestRuns.id} IN (SELECT MAX(id) FROM ai_test_runs WHERE assistant_id = ${assistant.id} GROUP BY script_id)`,
      ),
    )
    .all();
  const byScript = new Map(last.map((r) => [r.scriptId, r]));
  return scripts.map((s) => {
    const run = byScript.get(s.id);
    return toScript(s, run ? toRun(run, s.name) : null);
  });
}

export const scriptsOf = (deps: Pick<Deps, "db">, assistantId: number): ScriptRow[] =>
  deps.db
    .select()
    .from(aiTestScripts)
    .where(eq(aiTestScripts.assistantId, assistantId))
    .all()
    .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);

/** A verdict is judged by the assistant's post-call analysis against its goal: without a goal there is none. */
function checkVerdict(assistant: AssistantRow, input: TestScriptInput): void {
  if (input.expect.verdict && !(assistant.analysis?.enabled && assistant.analysis.goal.trim())) {
    const message = "A verdict needs the assistant's analysis with a goal (set it in the assistant's settings)";
    throw new Invalid(`Invalid request: ${message}`, { "expect.verdict": message });
  }
}

const scriptOut = (deps: Pick<Deps, "db">, row: ScriptRow): TestScript => {
  const found = listScripts(deps, String(row.assistantId)).find((s) => s.id === row.id);
  if (!found) throw new NotFound(SCRIPT);
  return found;
};

export function createScript(
  deps: Pick<Deps, "db" | "events" | "now">,
  rawAssistantId: string | undefined,
  input: TestScriptInput,
): TestScript {
  const assistant = findAssistantRow(deps, rawAssistantId);
  checkVerdict(assistant, input);
  const at = new Date(deps.now());
  const row = deps.db
    .insert(aiTestScripts)
    .values({ assistantId: assistant.id, ...input, createdAt: at, updatedAt: at })
    .returning()
    .get();
  publishScripts(deps, assistant.id, "created");
  return scriptOut(deps, row);
}

/** Replaces a script's name, turns and expectations; its history stays. */
export function updateScript(
  deps: Pick<Deps, "db" | "events" | "now">,
  rawId: string | undefined,
  input: TestScriptInput,
): TestScript {
  const current = findScript(deps, rawId);
  checkVerdict(findAssistantRow(deps, String(current.assistantId)), input);
  const row = deps.db
    .update(aiTestScripts)
    .set({ ...input, updatedAt: new Date(deps.now()) })
    .where(eq(aiTestScripts.id, current.id))
    .returning()
    .get();
  publishScripts(deps, row.assistantId, "updated");
  return scriptOut(deps, row);
}

/** Deletes a script and its history (a run of it still under way finds it gone and stores nothing). */
export function deleteScript(deps: Pick<Deps, "db" | "events">, rawId: string | undefined): void {
  const row = findScript(deps, rawId);
  deps.db.delete(aiTestScripts).where(eq(aiTestScripts.id, row.id)).run();
  publishScripts(deps, row.assistantId, "deleted");
}

/** The audit trail's view of a script. */
export function auditViewOfScript(deps: Pick<Deps, "db">, id: number) {
  const row = deps.db.select().from(aiTestScripts).where(eq(aiTestScripts.id, id)).get();
  return row
    ? { id: row.id, assistantId: row.assistantId, name: row.name, turns: row.turns, expect: row.expect }
    : null;
}

/** An assistant's runs, newest first, each with its script's name. */
export function listRuns(
  deps: Pick<Deps, "db">,
  rawAssistantId: string | undefined,
  limit = TEST_RUNS_DEFAULT_LIMIT,
): TestRun[] {
  const assistant = findAssistantRow(deps, rawAssistantId);
  const rows = deps.db
    .select({ run: aiTestRuns, name: aiTestScripts.name })
    .from(aiTestRuns)
    .innerJoin(aiTestScripts, eq(aiTestScripts.id, aiTestRuns.scriptId))
    .where(eq(aiTestRuns.assistantId, assistant.id))
    .orderBy(desc(aiTestRuns.id))
    .limit(limit)
    .all();
  return rows.map((r) => toRun(r.run, r.name));
}

/** Runs by id, with their scripts' names (what a run request answers). */
export function runsById(deps: Pick<Deps, "db">, ids: number[]): TestRun[] {
  if (!ids.length) return [];
  return deps.db
    .select({ run: aiTestRuns, name: aiTestScripts.name })
    .from(aiTestRuns)
    .innerJoin(aiTestScripts, eq(aiTestScripts.id, aiTestRuns.scriptId))
    .where(inArray(aiTestRuns.id, ids))
    .orderBy(aiTestRuns.id)
    .all()
    .map((r) => toRun(r.run, r.name));
}

/**
 * Test calls and their results (ADR 0068): what is dialled, in which context, how often, and how long it may
 * ring and is listened to; each run's result, one row per run (`ok` only when answered in time and audio came
 * back), which the `test-call-failed` alert rule reads. Results older than `RESULT_KEEP_DAYS` are deleted as
 * new ones come in. Every change publishes `test-calls-updated`.
 */
import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import { alertRules, testCallResults, testCalls } from "../../db/schema";
import {
  type NewTestCall,
  TEST_CALL_LIMITS,
  type TestCall,
  type TestCallPatch,
  type TestCallResult,
  type TestCallResults,
  type TestCallResultsQuery,
  testCallSchema,
} from "../../shared/test-calls";
import type { Deps } from "../core/deps";
import { Conflict, Invalid, NotFound } from "../core/errors";
import { validate } from "../core/validate";
import type { ProbeOutcome } from "./run";

type TestCallRow = typeof testCalls.$inferSelect;
type ResultRow = typeof testCallResults.$inferSelect;
type TestCallDeps = Pick<Deps, "db" | "events" | "now">;

/** Results are kept this long. */
export const RESULT_KEEP_DAYS = 90;
/** The most results one read returns (the newest of the window). */
export const RESULTS_MAX = 5_000;
const DAY_MS = 86_400_000;

export type TestCallAction = "created" | "updated" | "deleted" | "running" | "result";

export const publishTestCalls = (deps: Pick<Deps, "events">, id: number, action: TestCallAction) =>
  deps.events.publish({ type: "test-calls-updated", data: { id, action } });

export function toResult(row: ResultRow): TestCallResult {
  return {
    id: row.id,
    testCallId: row.testCallId,
    at: row.at.toISOString(),
    ok: row.ok,
    answered: row.answered,
    answerMs: row.answerMs,
    durationMs: row.durationMs,
    rxPackets: row.rxPackets,
    txPackets: row.txPackets,
    lossPercent: row.lossPercent,
    jitterMs: row.jitterMs,
    error: row.error,
  };
}

/** The settings of a test call (what the audit trail compares before and after). */
function settingsOf(row: TestCallRow) {
  return {
    id: row.id,
    name: row.name,
    number: row.number,
    context: row.context,
    intervalMinutes: row.intervalMinutes,
    answerWithinSeconds: row.answerWithinSeconds,
    listenSeconds: row.listenSeconds,
    enabled: row.enabled,
  };
}

/** The newest result of each test call, in one query. */
function lastResults(deps: Pick<Deps, "db">): Map<number, ResultRow> {
  const rows = deps.db
    .select()
    .from(testCallResults)
    .where(sql`${testCallResults.id} IN (SELECT MAX(id) FROM test_call_results GROUP BY test_call_id)`)
    .all();
  return new Map(rows.map((r) => [r.testCallId, r]));
}

/** Every test call by name, with its last result and whether a run is in progress (`running`). */
export function listTestCalls(
  deps: Pick<Deps, "db">,
  running: { isRunning(id: number): boolean } = { isRunning: () => false },
): TestCall[] {
  const last = lastResults(deps);
  return deps.db
    .select()
    .from(testCalls)
    .all()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((row) => {
      const result = last.get(row.id);
      return {
        ...settingsOf(row),
        running: running.isRunning(row.id),
        lastResult: result ? toResult(result) : null,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
      };
    });
}

export function findTestCall(deps: Pick<Deps, "db">, id: number): TestCallRow {
  const row = deps.db.select().from(testCalls).where(eq(testCalls.id, id)).get();
  if (!row) throw new NotFound("Test call");
  return row;
}

/** The audit trail's view of one test call (its settings; null when there is none). */
export function auditViewOfTestCall(deps: Pick<Deps, "db">, id: number) {
  const row = deps.db.select().from(testCalls).where(eq(testCalls.id, id)).get();
  return row ? settingsOf(row) : null;
}

const out = (deps: Pick<Deps, "db">, id: number, running?: { isRunning(id: number): boolean }): TestCall => {
  const found = listTestCalls(deps, running).find((t) => t.id === id);
  if (!found) throw new NotFound("Test call");
  return found;
};

function checkName(deps: Pick<Deps, "db">, name: string, self: number | null): void {
  const other = deps.db.select({ id: testCalls.id }).from(testCalls).where(eq(testCalls.name, name)).get();
  if (other && other.id !== self) {
    const message = `A test call named ${name} exists already`;
    throw new Conflict(message, { name: message });
  }
}

export function createTestCall(deps: TestCallDeps, input: NewTestCall): TestCall {
  checkName(deps, input.name, null);
  const at = new Date(deps.now());
  const row = deps.db
    .insert(testCalls)
    .values({ ...input, createdAt: at, updatedAt: at })
    .returning()
    .get();
  publishTestCalls(deps, row.id, "created");
  return out(deps, row.id);
}

/** PATCH: the fields given over the stored ones, checked as a whole test call. */
export function updateTestCall(
  deps: TestCallDeps,
  id: number,
  patch: TestCallPatch,
  running?: { isRunning(id: number): boolean },
): TestCall {
  const row = findTestCall(deps, id);
  const merged: Record<string, unknown> = settingsOf(row);
  delete merged.id;
  for (const [key, value] of Object.entries(patch)) if (value !== undefined) merged[key] = value;
  const input = validate(testCallSchema, merged);
  checkName(deps, input.name, id);
  deps.db
    .update(testCalls)
    .set({ ...input, updatedAt: new Date(deps.now()) })
    .where(eq(testCalls.id, id))
    .run();
  publishTestCalls(deps, id, "updated");
  return out(deps, id, running);
}

/** The alert rules that watch this test call by its id (a rule for every test call does not count). */
function rulesWatching(deps: Pick<Deps, "db">, id: number): string[] {
  return deps.db
    .select({ name: alertRules.name })
    .from(alertRules)
    .where(
      and(eq(alertRules.kind, "test-call-failed"), sql`json_extract(${alertRules.params}, '$.testCallId') = ${id}`),
    )
    .all()
    .map((r) => r.name);
}

/** Deletes a test call and its results; refused while an alert rule watches it by name. */
export function deleteTestCall(deps: TestCallDeps, id: number): void {
  const row = findTestCall(deps, id);
  const rules = rulesWatching(deps, id);
  if (rules.length > 0) {
    throw new Conflict(
      `The test call ${row.name} is watched by the alert rule${rules.length === 1 ? "" : "s"} ${rules.join(", ")}: change or delete ${rules.length === 1 ? "it" : "them"} first`,
    );
  }
  deps.db.delete(testCalls).where(eq(testCalls.id, id)).run();
  publishTestCalls(deps, id, "deleted");
}

/** A test call's results in a window (default the last day), oldest first; at most the newest `RESULTS_MAX`. */
export function listTestCallResults(
  deps: Pick<Deps, "db" | "now">,
  id: number,
  query: TestCallResultsQuery = {},
): TestCallResults {
  findTestCall(deps, id);
  const to = query.to === undefined ? deps.now() : Date.parse(query.to);
  const from = query.from === undefined ? to - DAY_MS : Date.parse(query.from);
  if (from >= to) throw new Invalid("From must be before To", { from: "From must be before To" });
  if (to - from > TEST_CALL_LIMITS.resultsDays * DAY_MS) {
    const message = `The window is at most ${TEST_CALL_LIMITS.resultsDays} days`;
    throw new Invalid(message, { from: message });
  }
  const rows = deps.db
    .select()
    .from(testCallResults)
    .where(
      and(
        eq(testCallResults.testCallId, id),
        gte(testCallResults.at, new Date(from)),
        lt(testCallResults.at, new Date(to)),
      ),
    )
    .orderBy(desc(testCallResults.at), desc(testCallResults.id))
    .limit(RESULTS_MAX)
    .all();
  return {
    testCallId: id,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    items: rows.reverse().map(toResult),
  };
}

/**
 * Stores one run's result (started at `at`) and deletes the test call's results past the keep window. Null
 * when the test call was deleted while it ran.
 */
export function recordTestCallResult(
  deps: TestCallDeps,
  id: number,
  at: number,
  outcome: ProbeOutcome,
): TestCallResult | null {
  if (!deps.db.select({ id: testCalls.id }).from(testCalls).where(eq(testCalls.id, id)).get()) return null;
  const row = deps.db
    .insert(testCallResults)
    .values({ testCallId: id, at: new Date(at), ...outcome })
    .returning()
    .get();
  deps.db
    .delete(testCallResults)
    .where(
      and(eq(testCallResults.testCallId, id), lt(testCallResults.at, new Date(deps.now() - RESULT_KEEP_DAYS * DAY_MS))),
    )
    .run();
  publishTestCalls(deps, id, "result");
  return toResult(row);
}

/** When each test call last ran (its newest result's start), for the schedule. */
export function lastRunTimes(deps: Pick<Deps, "db">): Map<number, number> {
  return new Map(
    deps.db
      .select({ id: testCallResults.testCallId, at: sql<number>`MAX(${testCallResults.at})` })
      .from(testCallResults)
      .groupBy(testCallResults.testCallId)
      .all()
      .map((r) => [r.id, Number(r.at)]),
  );
}

/** The enabled test calls, as the schedule needs them. */
export function enabledTestCalls(deps: Pick<Deps, "db">): TestCallRow[] {
  return deps.db.select().from(testCalls).where(eq(testCalls.enabled, true)).all();
}

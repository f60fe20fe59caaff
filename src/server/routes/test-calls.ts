import { testCallPatchSchema, testCallResultsQuerySchema, testCallSchema } from "../../shared/test-calls";
import { type AppContext, type RouteDef, route } from "../context";
import { json, noContent, parseId } from "../http";
import {
  auditViewOfTestCall,
  createTestCall,
  deleteTestCall,
  listTestCallResults,
  listTestCalls,
  updateTestCall,
} from "../probes/test-calls";

const load = (app: AppContext, params: Record<string, string>) =>
  params.id === undefined ? null : auditViewOfTestCall(app, Number(params.id));
const audit = (action: string) => ({ action, object: "test-call", load });

const runDetail = (answer: unknown) => {
  const r = answer as { ok?: boolean; error?: string | null } | undefined;
  return r ? (r.ok ? "passed" : `failed: ${r.error ?? ""}`) : undefined;
};

/** Test calls (synthetic probes, ADR 0068): placed through the PBX on a schedule and on demand. */
export const testCallRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/test-calls",
    summary: "List the test calls by name, each with its last result and whether a run is in progress",
    handler: ({ app }) => json(listTestCalls(app, app.testCalls)),
  }),
  route({
    method: "POST",
    path: "/api/test-calls",
    summary:
      "Create a test call: a number (digits, * or #, optionally +) dialled in a context (default from-internal) every intervalMinutes, answered within answerWithinSeconds and listened to for listenSeconds",
    body: testCallSchema,
    publishes: ["test-calls-updated"],
    audit: audit("test-call.create"),
    handler: ({ app, body }) => json(createTestCall(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/test-calls/:id",
    summary: "Edit a test call (fields left out keep their values)",
    body: testCallPatchSchema,
    publishes: ["test-calls-updated"],
    audit: audit("test-call.update"),
    handler: ({ app, params, body }) => json(updateTestCall(app, parseId(params.id, "Test call"), body, app.testCalls)),
  }),
  route({
    method: "DELETE",
    path: "/api/test-calls/:id",
    summary: "Delete a test call and its results (409 while an alert rule watches it by name)",
    publishes: ["test-calls-updated"],
    audit: audit("test-call.delete"),
    handler: ({ app, params }) => {
      deleteTestCall(app, parseId(params.id, "Test call"));
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/api/test-calls/:id/run",
    summary:
      "Run a test call now and answer its result when the call has ended (a run already in progress: its result); a failed call is a result with ok false and the reason, not an error status",
    publishes: ["test-calls-updated"],
    audit: { action: "test-call.run", object: "test-call", load, detail: runDetail },
    handler: async ({ app, params }) => json(await app.testCalls.runNow(parseId(params.id, "Test call"))),
  }),
  route({
    method: "GET",
    path: "/api/test-calls/:id/results",
    summary:
      "A test call's results between from and to (ISO 8601; default the last 24 hours), oldest first, at most the newest 5,000",
    query: testCallResultsQuerySchema,
    handler: ({ app, params, query }) => json(listTestCallResults(app, parseId(params.id, "Test call"), query)),
  }),
];

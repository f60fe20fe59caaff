import {
  type TestRun,
  type TestScriptInput,
  testRunsQuerySchema,
  testScriptSchema,
} from "../../shared/ai/test-scripts";
import { runAllScripts, runScript } from "../ai/test-runner";
import { auditViewOfScript, createScript, deleteScript, listRuns, listScripts, updateScript } from "../ai/test-scripts";
import { type AppContext, type RouteDef, route } from "../context";
import { json, noContent } from "../http";

const load = (app: AppContext, params: Record<string, string>) =>
  params.id === undefined ? null : auditViewOfScript(app, Number(params.id));
const audit = (action: string) => ({ action, object: "ai-test-script", load });
const queued = (answer: unknown) => {
  const runs = (Array.isArray(answer) ? answer : [answer]) as TestRun[];
  return `${runs.length} run(s) queued`;
};

/** An assistant's scripted test conversations and their runs (ADR 0072). */
export const aiTestScriptRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ai/assistants/:id/test-scripts",
    summary: "An AI assistant's test scripts by name, each with its newest run",
    handler: ({ app, params }) => json(listScripts(app, params.id)),
  }),
  route<TestScriptInput>({
    method: "POST",
    path: "/api/ai/assistants/:id/test-scripts",
    summary:
      "Add a test script: caller turns (1-20, each at most 1000 characters) and what must happen (a tool called with arguments, a transfer target, a verdict, words in a reply; at least one)",
    body: testScriptSchema,
    publishes: ["ai-test-scripts-updated"],
    audit: { action: "ai.test-script.create", object: "ai-test-script", load },
    handler: ({ app, params, body }) => json(createScript(app, params.id, body), 201),
  }),
  route<TestScriptInput>({
    method: "PUT",
    path: "/api/ai/test-scripts/:id",
    summary: "Replace a test script's name, caller turns and expectations (its run history stays)",
    body: testScriptSchema,
    publishes: ["ai-test-scripts-updated"],
    audit: audit("ai.test-script.update"),
    handler: ({ app, params, body }) => json(updateScript(app, params.id, body)),
  }),
  route({
    method: "DELETE",
    path: "/api/ai/test-scripts/:id",
    summary: "Delete a test script and its run history",
    publishes: ["ai-test-scripts-updated"],
    audit: audit("ai.test-script.delete"),
    handler: ({ app, params }) => {
      deleteScript(app, params.id);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/api/ai/test-scripts/:id/run",
    summary:
      "Run a test script against the assistant's model in text mode (queued: runs go one at a time); answers the run, state running until ai-test-runs-updated says it ended; 503 when OpenAI is not set up",
    publishes: ["ai-test-runs-updated"],
    audit: { ...audit("ai.test-script.run"), detail: queued },
    handler: ({ app, params }) => json(runScript(app, params.id), 202),
  }),
  route({
    method: "POST",
    path: "/api/ai/assistants/:id/test-scripts/run",
    summary: "Run every test script of an AI assistant (queued, one at a time); answers the runs",
    publishes: ["ai-test-runs-updated"],
    audit: { action: "ai.test-script.run-all", object: "ai-assistant", detail: queued },
    handler: ({ app, params }) => json(runAllScripts(app, params.id), 202),
  }),
  route({
    method: "GET",
    path: "/api/ai/assistants/:id/test-runs",
    summary:
      "An AI assistant's test runs, newest first (default 50, at most 200), each with its script's name, trigger (manual or prompt-change), state, failures and the prompt version (hash) it tested",
    query: testRunsQuerySchema,
    handler: ({ app, params, query }) => json(listRuns(app, params.id, query.limit)),
  }),
];

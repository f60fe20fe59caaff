import {
  CONFIG_DOCUMENT_MAX_BYTES,
  type ConfigPlan,
  configApplyRequestSchema,
  configExportQuerySchema,
  configPlanRequestSchema,
  STALE_CONFIG_PLAN_MESSAGE,
} from "../../shared/config-document";
import { configJsonSchema, exportConfig, toYaml } from "../config/document";
import { applyConfig, planConfig } from "../config/plan";
import { type RouteDef, route } from "../context";
import { download, json } from "../http";

const countsOf = (answer: unknown) => {
  const c = (answer as { counts?: ConfigPlan["counts"] } | null)?.counts;
  return c
    ? `${c.create} to create, ${c.update} to update, ${c.delete} to delete, ${c.unchanged} unchanged`
    : undefined;
};

let schema: object | null = null;

/** The PBX as a document (ADR 0075): export, the JSON Schema, plan and apply. */
export const configRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/config/export",
    summary:
      "Everything the console owns (extensions, trunks, routes, page groups, ring groups, queues, IVRs, announcements, time groups and conditions, AI assistants and routing rules) as one versioned document, JSON or YAML (format=yaml); secrets as references, never in clear; objects name each other by name",
    query: configExportQuerySchema,
    audit: { action: "config.export" },
    handler: ({ app, query }) => {
      const doc = exportConfig(app);
      if (query.format === "json") return json(doc, 200, { "Cache-Control": "no-store" });
      return download(new Blob([toYaml(doc)]).stream(), {
        filename: "pbx-config.yaml",
        contentType: "application/yaml;charset=utf-8",
      });
    },
  }),
  route({
    method: "GET",
    path: "/api/config/schema",
    summary: "The JSON Schema (2020-12) of the configuration document",
    handler: () => {
      schema ??= configJsonSchema();
      return json(schema);
    },
  }),
  route({
    method: "POST",
    path: "/api/config/plan",
    summary:
      "What applying a document (an object, or its YAML/JSON text) would change in the console, per object: create, update field by field (secrets masked), unchanged, and with prune the console's objects of the document's lists it does not name (delete). A document that fails its schema, names an unknown object or breaks a rule is refused (400) with each problem at its path (extensions[3].secret). The plan can be applied by its fingerprint for 30 minutes",
    // Nothing is written: a read-only token may check a document (a CI job reviewing a change).
    minRole: "viewer",
    body: configPlanRequestSchema,
    maxBody: CONFIG_DOCUMENT_MAX_BYTES + 1024,
    storesNothing: "Compares the document with the console; what it tries is rolled back",
    audit: { action: "config.plan", omitBody: true, detail: countsOf },
    handler: ({ app, body }) => json(planConfig(app, body.document, body.prune)),
  }),
  route({
    method: "POST",
    path: "/api/config/apply",
    summary:
      "Apply the reviewed plan (its fingerprint) in one transaction; 409 with the new plan when the console changed since (nothing is written), 410 when no plan has this fingerprint any more",
    body: configApplyRequestSchema,
    publishes: [
      "trunks-updated",
      "extensions-updated",
      "ptt-groups-updated",
      "ring-groups-updated",
      "queues-updated",
      "ivrs-updated",
      "announcements-updated",
      "time-conditions-updated",
      "routes-updated",
      "ai-assistants-updated",
      "ai-rules-updated",
    ],
    audit: { action: "config.apply", detail: countsOf },
    handler: ({ app, body }) => {
      const result = applyConfig(app, body.fingerprint);
      if ("stale" in result) return json({ error: { message: STALE_CONFIG_PLAN_MESSAGE }, plan: result.stale }, 409);
      return json(result.applied);
    },
  }),
];

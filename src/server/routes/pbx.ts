import {
  type DeployAllResponse,
  type DeployGroupResult,
  type DeployResponse,
  type ImportResult,
  importExtensionsSchema,
  importTrunksSchema,
} from "../../shared/pbx";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { compareExtensions, compareTrunks } from "../pbx/compare";
import { deployTarget } from "../pbx/deploy";
import { generateConfig } from "../pbx/generate";
import { importExtensions, importTrunks } from "../pbx/import";
import { pbxStatus } from "../pbx/status";

/** The audit's one line on a deployment: items written and failed, and the reload. */
function deployDetail(answer: unknown): string | undefined {
  const a = answer as (DeployResponse & Partial<DeployAllResponse>) | undefined;
  if (!a) return undefined;
  const groups: DeployGroupResult[] =
    a.results !== undefined
      ? [a]
      : [a.trunks, a.extensions, a.outboundRoutes, a.inboundRoutes].filter((g): g is DeployGroupResult => !!g);
  const deployed = groups.reduce((n, g) => n + g.deployed, 0);
  const failed = groups.reduce((n, g) => n + g.failed, 0);
  const reload = a.reload ? (a.reload.ok ? "reloaded" : "reload failed") : "not reloaded";
  return `${deployed} deployed, ${failed} failed, ${reload}`;
}

const importDetail = (answer: unknown) => {
  const a = answer as ImportResult | undefined;
  return a ? `${a.created} created, ${a.updated} updated, ${a.failed} failed` : undefined;
};

/** The Config Generator, Deployment and Sync screens: the console against the live PBX. */
export const pbxRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/config/generate",
    minRole: "operator",
    summary: "The whole configuration as one idempotent FreePBX SQL script, with the objects left out and why",
    audit: { action: "config.generate" },
    handler: ({ app }) => json(generateConfig(app)),
  }),
  route({
    method: "GET",
    path: "/api/deploy/status",
    summary: "Which ways to the PBX are configured, and whether FreePBX needs a reload",
    handler: async ({ app }) => json(await pbxStatus(app)),
  }),
  route({
    method: "POST",
    path: "/api/deploy/trunks",
    summary: "Write the trunks to the PBX and reload it",
    publishes: ["sync-status", "trunks-updated"],
    audit: { action: "deploy.trunks", detail: deployDetail },
    handler: async ({ app }) => json(await deployTarget(app, "trunks")),
  }),
  route({
    method: "POST",
    path: "/api/deploy/extensions",
    summary: "Write the extensions to the PBX and reload it",
    publishes: ["sync-status"],
    audit: { action: "deploy.extensions", detail: deployDetail },
    handler: async ({ app }) => json(await deployTarget(app, "extensions")),
  }),
  route({
    method: "POST",
    path: "/api/deploy/ptt-groups",
    summary: "Write the PTT groups to the PBX as page groups and reload it",
    publishes: ["sync-status"],
    audit: { action: "deploy.ptt-groups", detail: deployDetail },
    handler: async ({ app }) => json(await deployTarget(app, "ptt-groups")),
  }),
  route({
    method: "POST",
    path: "/api/deploy/all",
    summary: "Write trunks, extensions and outbound and inbound routes to the PBX and reload it",
    publishes: ["sync-status", "trunks-updated"],
    audit: { action: "deploy.all", detail: deployDetail },
    handler: async ({ app }) => json(await deployTarget(app, "all")),
  }),
  route({
    method: "GET",
    path: "/api/sync/extensions/compare",
    summary: "The PBX's extensions next to the console's",
    handler: async ({ app }) => json(await compareExtensions(app)),
  }),
  route({
    method: "GET",
    path: "/api/sync/trunks/compare",
    summary: "The PBX's trunks next to the console's (needs SSH)",
    handler: async ({ app }) => json(await compareTrunks(app)),
  }),
  route({
    method: "POST",
    path: "/api/sync/extensions/import",
    summary: "Import the PBX's extensions (all or the selected numbers) into the console",
    body: importExtensionsSchema,
    publishes: ["extensions-updated", "sync-status"],
    audit: { action: "sync.extensions.import", detail: importDetail },
    handler: async ({ app, body }) => json(await importExtensions(app, body)),
  }),
  route({
    method: "POST",
    path: "/api/sync/trunks/import",
    summary: "Import the PBX's trunks (all or the selected names) into the console (needs SSH)",
    body: importTrunksSchema,
    publishes: ["trunks-updated", "sync-status"],
    audit: { action: "sync.trunks.import", detail: importDetail },
    handler: async ({ app, body }) => json(await importTrunks(app, body)),
  }),
];

import { importExtensionsSchema, importTrunksSchema } from "../../shared/pbx";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { compareExtensions, compareTrunks } from "../pbx/compare";
import { deployTarget } from "../pbx/deploy";
import { generateConfig } from "../pbx/generate";
import { importExtensions, importTrunks } from "../pbx/import";
import { pbxStatus } from "../pbx/status";

/** The Config Generator, Deployment and Sync screens: the console against the live PBX. */
export const pbxRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/config/generate",
    minRole: "operator",
    summary: "The whole configuration as one idempotent FreePBX SQL script, with the objects left out and why",
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
    handler: async ({ app }) => json(await deployTarget(app, "trunks")),
  }),
  route({
    method: "POST",
    path: "/api/deploy/extensions",
    summary: "Write the extensions to the PBX and reload it",
    publishes: ["sync-status"],
    handler: async ({ app }) => json(await deployTarget(app, "extensions")),
  }),
  route({
    method: "POST",
    path: "/api/deploy/ptt-groups",
    summary: "Write the PTT groups to the PBX as page groups and reload it",
    publishes: ["sync-status"],
    handler: async ({ app }) => json(await deployTarget(app, "ptt-groups")),
  }),
  route({
    method: "POST",
    path: "/api/deploy/all",
    summary: "Write trunks, extensions and outbound and inbound routes to the PBX and reload it",
    publishes: ["sync-status", "trunks-updated"],
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
    handler: async ({ app, body }) => json(await importExtensions(app, body)),
  }),
  route({
    method: "POST",
    path: "/api/sync/trunks/import",
    summary: "Import the PBX's trunks (all or the selected names) into the console (needs SSH)",
    body: importTrunksSchema,
    publishes: ["trunks-updated", "sync-status"],
    handler: async ({ app, body }) => json(await importTrunks(app, body)),
  }),
];

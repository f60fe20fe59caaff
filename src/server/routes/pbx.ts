import type { JobStarted } from "../../shared/jobs";
import {
  generateQuerySchema,
  importExtensionsSchema,
  importQueuesSchema,
  importRingGroupsSchema,
  importTrunksSchema,
  type VoicemailPinsAnswer,
  voicemailPinsRequestSchema,
} from "../../shared/pbx";
import {
  applyRequestSchema,
  type DeployPlan,
  type ImportPlan,
  importExtensionsRequestSchema,
  importQueuesRequestSchema,
  importRingGroupsRequestSchema,
  importTrunksRequestSchema,
  planRequestSchema,
  STALE_PLAN_MESSAGE,
} from "../../shared/plan";
import { type RouteDef, route } from "../context";
import { download, json } from "../http";
import {
  startApplyJob,
  startDeployJob,
  startImportCallFlowJob,
  startImportCallGroupsJob,
  startImportExtensionsJob,
  startImportTrunksJob,
} from "../jobs/pbx-jobs";
import { generateConfigStream, scriptFileName, scriptStream } from "../pbx/generate/generate";
import { pbxStatus } from "../pbx/host/status";
import { takeNewPins } from "../pbx/host/voicemail-pins";
import { planTarget } from "../pbx/plan/plan";
import {
  importAnnouncementsRequestSchema,
  importAnnouncementsSchema,
  importIvrsRequestSchema,
  importIvrsSchema,
} from "../pbx/sync/call-flow";
import { compareCallFlowOnPbx } from "../pbx/sync/call-flow-compare";
import { compareCallGroupsOnPbx, compareExtensions, compareTrunks } from "../pbx/sync/compare";
import { syncImportPlan } from "../pbx/sync/sync-plan";
import { ownerOf } from "./jobs";

/**
 * The audit's line on a call that started a job: the job's end is recorded as `<action>.finished` by
 * the runner, with the counts (never a success the 202 did not know of).
 */
const jobStarted = (answer: unknown) => {
  const id = (answer as { jobId?: unknown } | undefined)?.jobId;
  return typeof id === "number" ? `job ${id} started` : undefined;
};

/** The audit's line on a plan: its counts. */
const planCounts = (answer: unknown) => {
  const c = (answer as DeployPlan | undefined)?.counts;
  return c
    ? `${c.create} create, ${c.update} update, ${c.delete} delete, ${c.conflict} conflict, ${c.unchanged} unchanged`
    : undefined;
};

/** The audit's line on an import plan: its counts. */
const importPlanCounts = (answer: unknown) => {
  const c = (answer as ImportPlan | undefined)?.counts;
  return c ? `${c.create} create, ${c.update} update, ${c.unchanged} unchanged, ${c.refused} refused` : undefined;
};

/** The audit's line on PINs shown: whose, never the PINs. */
const pinsShown = (answer: unknown) => {
  const pins = (answer as VoicemailPinsAnswer | undefined)?.pins;
  return pins ? `voicemail PIN shown once: ${pins.map((p) => p.extension).join(", ")}` : undefined;
};

/** Deploy and import answer 202 `{ jobId }` at once; the work runs as a job (ADR 0024). */
const ACCEPTED = 202;

/** An import's answer: 202 with the job, or 409 with the new plan when the reviewed one is stale. */
const staleOr = (started: JobStarted | { stale: ImportPlan }) =>
  "stale" in started
    ? json({ error: { message: STALE_PLAN_MESSAGE }, plan: started.stale }, 409)
    : json(started, ACCEPTED);

/** The Config Generator, Deployment and Sync screens: the console against the live PBX. */
export const pbxRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/config/generate",
    minRole: "operator",
    summary:
      "The whole configuration's SQL statements per kind, the objects left out and why, the deployment steps and script, and the counts (streamed JSON; `script=0` leaves the script out, which GET /api/config/script.sql downloads, ADR 0032)",
    query: generateQuerySchema,
    audit: { action: "config.generate" },
    handler: ({ app, query }) =>
      new Response(generateConfigStream(app, { withScript: query.script !== "0" }), {
        headers: { "Content-Type": "application/json;charset=utf-8", "Cache-Control": "no-store" },
      }),
  }),
  route({
    method: "GET",
    path: "/api/config/script.sql",
    minRole: "operator",
    summary:
      "The whole configuration as one idempotent FreePBX SQL script, naming the objects left out (a streamed download)",
    audit: { action: "config.generate" },
    handler: ({ app }) =>
      download(scriptStream(app), {
        filename: scriptFileName(new Date(app.now())),
        contentType: "application/sql;charset=utf-8",
      }),
  }),
  route({
    method: "GET",
    path: "/api/deploy/status",
    summary: "Which ways to the PBX are configured, and whether FreePBX needs a reload",
    handler: async ({ app }) => json(await pbxStatus(app)),
  }),
  route({
    method: "POST",
    path: "/api/deploy/plan",
    summary:
      "What deploying a target would do on the live PBX, per object (create, update field by field, delete, conflict, unchanged), with the plan's fingerprint",
    body: planRequestSchema,
    storesNothing: "Reads the PBX and compares it with the console; nothing is written",
    audit: { action: "deploy.plan", detail: planCounts },
    handler: async ({ app, body }) => json((await planTarget(app, body.target)).wire),
  }),
  route({
    method: "POST",
    path: "/api/deploy/apply",
    summary:
      "Start a job that applies the reviewed plan (its fingerprint) with the conflicts' resolutions (202 with the job id); 409 with the new plan when the PBX or the console changed since",
    body: applyRequestSchema,
    publishes: ["job-updated", "sync-status", "trunks-updated"],
    audit: { action: "deploy.apply", detail: jobStarted },
    handler: async (ctx) => {
      const started = await startApplyJob(ctx.app, ctx.app.jobs, ownerOf(ctx), ctx.body);
      if ("stale" in started) return json({ error: { message: STALE_PLAN_MESSAGE }, plan: started.stale }, 409);
      return json(started, ACCEPTED);
    },
  }),
  route({
    method: "POST",
    path: "/api/deploy/trunks",
    summary:
      "Without a review (API clients): start a job that plans and writes the trunks' creates and updates (conflicts not written, no deletes) and reloads (202; 409 while a job runs)",
    publishes: ["job-updated", "sync-status", "trunks-updated"],
    audit: { action: "deploy.trunks", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "trunks"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/extensions",
    summary:
      "Start a job that writes the extensions to the PBX and reloads it (202 with the job id; 409 while a job runs)",
    publishes: ["job-updated", "sync-status"],
    audit: { action: "deploy.extensions", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "extensions"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/ptt-groups",
    summary: "Start a job that writes the PTT groups to the PBX as page groups and reloads it (202 with the job id)",
    publishes: ["job-updated", "sync-status"],
    audit: { action: "deploy.ptt-groups", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "ptt-groups"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/ring-groups",
    summary:
      "Without a review (API clients): start a job that writes the ring groups' creates and updates to the PBX and reloads it (202 with the job id)",
    publishes: ["job-updated", "sync-status"],
    audit: { action: "deploy.ring-groups", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "ring-groups"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/queues",
    summary:
      "Without a review (API clients): start a job that writes the queues' creates and updates to the PBX and reloads it (202 with the job id)",
    publishes: ["job-updated", "sync-status"],
    audit: { action: "deploy.queues", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "queues"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/ivrs",
    summary:
      "Without a review (API clients): start a job that writes the IVRs' creates and updates to the PBX and reloads it (202 with the job id)",
    publishes: ["job-updated", "sync-status"],
    audit: { action: "deploy.ivrs", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "ivrs"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/announcements",
    summary:
      "Without a review (API clients): start a job that writes the announcements' creates and updates to the PBX and reloads it (202 with the job id)",
    publishes: ["job-updated", "sync-status"],
    audit: { action: "deploy.announcements", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "announcements"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/time-conditions",
    summary:
      "Without a review (API clients): start a job that writes the time groups' and time conditions' creates and updates to the PBX and reloads it (202 with the job id)",
    publishes: ["job-updated", "sync-status"],
    audit: { action: "deploy.time-conditions", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "time-conditions"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/all",
    summary:
      "Start a job that writes trunks, extensions, ring groups, queues, announcements, IVRs and outbound and inbound routes to the PBX and reloads it (202)",
    publishes: ["job-updated", "sync-status", "trunks-updated"],
    audit: { action: "deploy.all", detail: jobStarted },
    handler: (ctx) => json(startDeployJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "all"), ACCEPTED),
  }),
  route({
    method: "POST",
    path: "/api/deploy/voicemail-pins",
    summary:
      "The random PINs of the voicemail mailboxes a deployment created, by the handles its results carry: each answered once, then forgotten (410 when none is kept any more)",
    body: voicemailPinsRequestSchema,
    storesNothing: "Answers PINs kept in memory and forgets them; nothing another console shows changes",
    // The handles are one-time credentials: not recorded.
    audit: { action: "deploy.voicemail-pins.show", omitBody: true, detail: pinsShown },
    handler: ({ app, body }) => json(takeNewPins(app, body.handles)),
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
    method: "GET",
    path: "/api/sync/ring-groups/compare",
    summary: "The PBX's ring groups next to the console's (needs SSH)",
    handler: async ({ app }) => json(await compareCallGroupsOnPbx(app, "ringGroup")),
  }),
  route({
    method: "GET",
    path: "/api/sync/queues/compare",
    summary: "The PBX's queues next to the console's (needs SSH)",
    handler: async ({ app }) => json(await compareCallGroupsOnPbx(app, "queue")),
  }),
  route({
    method: "GET",
    path: "/api/sync/ivrs/compare",
    summary:
      "The PBX's IVRs next to the console's, keyed by FreePBX's id (each is the console's IVR its record names, else the one of its name; needs SSH)",
    handler: async ({ app }) => json(await compareCallFlowOnPbx(app, "ivrs")),
  }),
  route({
    method: "GET",
    path: "/api/sync/announcements/compare",
    summary:
      "The PBX's announcements next to the console's, keyed by FreePBX's id (each is the console's announcement its record names, else the one of its name; needs SSH)",
    handler: async ({ app }) => json(await compareCallFlowOnPbx(app, "announcements")),
  }),
  route({
    method: "POST",
    path: "/api/sync/extensions/plan",
    summary:
      "What importing the PBX's extensions (all or the selected numbers) would do in the console, per extension (create, update field by field, unchanged, refused with the reason; whether the console starts managing it), with the plan's fingerprint",
    body: importExtensionsSchema,
    storesNothing: "Reads the PBX and compares it with the console; nothing is written",
    audit: { action: "sync.plan", detail: importPlanCounts },
    handler: async ({ app, body }) => json((await syncImportPlan(app, "extensions", body)).wire),
  }),
  route({
    method: "POST",
    path: "/api/sync/trunks/plan",
    summary:
      "What importing the PBX's trunks (all or the selected names) would do in the console, per trunk, with the plan's fingerprint (SSH)",
    body: importTrunksSchema,
    storesNothing: "Reads the PBX and compares it with the console; nothing is written",
    audit: { action: "sync.plan", detail: importPlanCounts },
    handler: async ({ app, body }) => json((await syncImportPlan(app, "trunks", body)).wire),
  }),
  route({
    method: "POST",
    path: "/api/sync/ring-groups/plan",
    summary:
      "What importing the PBX's ring groups (all or the selected numbers) would do in the console, per ring group (members must be console extensions or external numbers, destinations objects the console holds), with the plan's fingerprint (SSH)",
    body: importRingGroupsSchema,
    storesNothing: "Reads the PBX and tries each write in a savepoint it rolls back; nothing is kept",
    audit: { action: "sync.plan", detail: importPlanCounts },
    handler: async ({ app, body }) => json((await syncImportPlan(app, "ring-groups", body)).wire),
  }),
  route({
    method: "POST",
    path: "/api/sync/queues/plan",
    summary:
      "What importing the PBX's queues (all or the selected numbers) would do in the console, per queue (static agents must be console extensions), with the plan's fingerprint (SSH)",
    body: importQueuesSchema,
    storesNothing: "Reads the PBX and tries each write in a savepoint it rolls back; nothing is kept",
    audit: { action: "sync.plan", detail: importPlanCounts },
    handler: async ({ app, body }) => json((await syncImportPlan(app, "queues", body)).wire),
  }),
  route({
    method: "POST",
    path: "/api/sync/ivrs/plan",
    summary:
      "What importing the PBX's IVRs (all or the selected FreePBX ids) would do in the console, per IVR, with the IVRs and announcements they send calls to that the console does not hold yet (imported with them; destinations map FreePBX's ids to the console's, one the console does not model refuses), with the plan's fingerprint (SSH)",
    body: importIvrsSchema,
    storesNothing: "Reads the PBX and tries each write in a savepoint it rolls back; nothing is kept",
    audit: { action: "sync.plan", detail: importPlanCounts },
    handler: async ({ app, body }) => json((await syncImportPlan(app, "ivrs", body)).wire),
  }),
  route({
    method: "POST",
    path: "/api/sync/announcements/plan",
    summary:
      "What importing the PBX's announcements (all or the selected FreePBX ids) would do in the console, per announcement, with the IVRs and announcements they send calls to that the console does not hold yet, with the plan's fingerprint (SSH)",
    body: importAnnouncementsSchema,
    storesNothing: "Reads the PBX and tries each write in a savepoint it rolls back; nothing is kept",
    audit: { action: "sync.plan", detail: importPlanCounts },
    handler: async ({ app, body }) => json((await syncImportPlan(app, "announcements", body)).wire),
  }),
  route({
    method: "POST",
    path: "/api/sync/extensions/import",
    summary:
      "Start a job that imports the PBX's extensions (all or the selected numbers) into the console (202). With the reviewed plan's `fingerprint`: 409 with the new plan when the PBX or the console changed since (nothing imported); without it, no review",
    body: importExtensionsRequestSchema,
    publishes: ["job-updated", "extensions-updated", "sync-status"],
    audit: { action: "sync.extensions.import", detail: jobStarted },
    handler: async (ctx) => staleOr(await startImportExtensionsJob(ctx.app, ctx.app.jobs, ownerOf(ctx), ctx.body)),
  }),
  route({
    method: "POST",
    path: "/api/sync/trunks/import",
    summary:
      "Start a job that imports the PBX's trunks (all or the selected names) into the console (SSH; 202). With the reviewed plan's `fingerprint`: 409 with the new plan when it changed since",
    body: importTrunksRequestSchema,
    publishes: ["job-updated", "trunks-updated", "sync-status"],
    audit: { action: "sync.trunks.import", detail: jobStarted },
    handler: async (ctx) => staleOr(await startImportTrunksJob(ctx.app, ctx.app.jobs, ownerOf(ctx), ctx.body)),
  }),
  route({
    method: "POST",
    path: "/api/sync/ring-groups/import",
    summary:
      "Start a job that imports the PBX's ring groups (all or the selected numbers) into the console (SSH; 202). With the reviewed plan's `fingerprint`: 409 with the new plan when it changed since",
    body: importRingGroupsRequestSchema,
    publishes: ["job-updated", "ring-groups-updated", "sync-status"],
    audit: { action: "sync.ring-groups.import", detail: jobStarted },
    handler: async (ctx) =>
      staleOr(await startImportCallGroupsJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "ring-groups", ctx.body)),
  }),
  route({
    method: "POST",
    path: "/api/sync/queues/import",
    summary:
      "Start a job that imports the PBX's queues (all or the selected numbers) into the console (SSH; 202). With the reviewed plan's `fingerprint`: 409 with the new plan when it changed since",
    body: importQueuesRequestSchema,
    publishes: ["job-updated", "queues-updated", "sync-status"],
    audit: { action: "sync.queues.import", detail: jobStarted },
    handler: async (ctx) =>
      staleOr(await startImportCallGroupsJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "queues", ctx.body)),
  }),
  route({
    method: "POST",
    path: "/api/sync/ivrs/import",
    summary:
      "Start a job that imports the PBX's IVRs (all or the selected FreePBX ids), with the IVRs and announcements they need, into the console (SSH; 202): all of the plan's writes or none. With the reviewed plan's `fingerprint`: 409 with the new plan when it changed since",
    body: importIvrsRequestSchema,
    publishes: ["job-updated", "ivrs-updated", "announcements-updated", "sync-status"],
    audit: { action: "sync.ivrs.import", detail: jobStarted },
    handler: async (ctx) =>
      staleOr(await startImportCallFlowJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "ivrs", ctx.body)),
  }),
  route({
    method: "POST",
    path: "/api/sync/announcements/import",
    summary:
      "Start a job that imports the PBX's announcements (all or the selected FreePBX ids), with the IVRs and announcements they need, into the console (SSH; 202): all of the plan's writes or none. With the reviewed plan's `fingerprint`: 409 with the new plan when it changed since",
    body: importAnnouncementsRequestSchema,
    publishes: ["job-updated", "ivrs-updated", "announcements-updated", "sync-status"],
    audit: { action: "sync.announcements.import", detail: jobStarted },
    handler: async (ctx) =>
      staleOr(await startImportCallFlowJob(ctx.app, ctx.app.jobs, ownerOf(ctx), "announcements", ctx.body)),
  }),
];

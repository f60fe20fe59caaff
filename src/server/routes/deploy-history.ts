import { DEPLOY_HISTORY_DEFAULT, deployHistoryQuerySchema } from "../../shared/deploy-history";
import { type RouteDef, route } from "../context";
import { parseId } from "../core/validate";
import { json } from "../http";
import { startRollbackJob } from "../jobs/rollback-jobs";
import { backupView, deployHistory } from "../pbx/backups/history";
import { ownerOf } from "./jobs";

/** The deploy history and its roll back (docs/decisions/0026). */
export const deployHistoryRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/deploy/history",
    summary:
      "Deployments and roll backs, newest first: when, who, counts, result, and each deployment's backup (restorable or restored)",
    query: deployHistoryQuerySchema,
    handler: ({ app, query }) => json(deployHistory(app, app.jobs, query.limit ?? DEPLOY_HISTORY_DEFAULT)),
  }),
  route({
    method: "POST",
    path: "/api/deploy/history/:id/rollback",
    summary:
      "Start a job that restores a deployment's backup exactly and reloads (202 with the job id; 409 when restored, blocked by a newer deployment, or while a job runs)",
    publishes: ["job-updated", "sync-status"],
    audit: {
      action: "deploy.rollback",
      object: "backup",
      load: (app, params) => {
        const id = Number(params.id);
        return Number.isSafeInteger(id) ? backupView(app, id) : null;
      },
      detail: (answer) => {
        const id = (answer as { jobId?: unknown } | undefined)?.jobId;
        return typeof id === "number" ? `job ${id} started` : undefined;
      },
    },
    handler: (ctx) =>
      json(startRollbackJob(ctx.app, ctx.app.jobs, ownerOf(ctx), parseId(ctx.params.id, "Backup")), 202),
  }),
];

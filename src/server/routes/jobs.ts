import { jobsQuerySchema } from "../../shared/jobs";
import { type AppContext, type RequestContext, type RouteDef, route } from "../context";
import { parseId } from "../core/validate";
import { json } from "../http";
import type { JobOwner } from "../jobs/runner";

/** The signed-in user as a job's starter (session routes always have one); an API token is named, with no user id. */
export const ownerOf = (ctx: Pick<RequestContext, "user" | "apiTokenId">): JobOwner => ({
  username: ctx.user?.username ?? "unknown",
  id: ctx.apiTokenId === null ? (ctx.user?.id ?? null) : null,
});

/** What the audit shows of a job: its title, state and who cancelled it. */
const jobState = (app: AppContext, params: Record<string, string>) => {
  const id = Number(params.id);
  if (!Number.isSafeInteger(id)) return null;
  try {
    const j = app.jobs.get(id);
    return { id: j.id, label: j.title, state: j.state, cancelledBy: j.cancelledBy };
  } catch {
    return null;
  }
};

/** Jobs: long work (deployments, sync imports) that runs outside the request that started it (ADR 0024). */
export const jobRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/jobs",
    summary: "The most recent jobs, newest first: kind, target, who started it, when, state, progress and results",
    query: jobsQuerySchema,
    handler: ({ app, query }) => json(app.jobs.list(query.limit)),
  }),
  route({
    method: "GET",
    path: "/api/jobs/:id",
    summary: "One job: its state, progress (item n of N, the current item), each item's result and the final summary",
    handler: ({ app, params }) => json(app.jobs.get(parseId(params.id, "Job"))),
  }),
  route({
    method: "POST",
    path: "/api/jobs/:id/cancel",
    summary: "Cancel the running job: it stops after its current item (409 when it is not running)",
    publishes: ["job-updated"],
    audit: { action: "job.cancel", object: "job", load: jobState },
    handler: (ctx) => json(ctx.app.jobs.cancel(parseId(ctx.params.id, "Job"), ownerOf(ctx))),
  }),
];

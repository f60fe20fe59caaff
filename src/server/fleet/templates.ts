/**
 * Templates (ADR 0076): a document fragment kept on the hub, planned on chosen members through each member's own
 * `POST /api/config/plan` (with that member's token), and applied there by the fingerprint of the plan the
 * administrator reviewed (`POST /api/config/apply`). The hub changes nothing on a member by itself: each member's
 * plan is its own, refused by its own rules, and applied only if unchanged since (else its 409 is the answer).
 * Members are asked in parallel under one deadline; one member's failure is its own entry, never the whole answer's.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { fleetTemplates } from "../../db/schema";
import type {
  FleetTemplate,
  FleetTemplateApplyEntry,
  FleetTemplateApplyRequest,
  FleetTemplateInput,
  FleetTemplatePlanEntry,
} from "../../shared/fleet";
import { FleetMemberError, memberRequest } from "../clients/fleet-member";
import { deadline } from "../clients/http";
import type { Deps } from "../core/deps";
import { Conflict, Invalid, NotFound } from "../core/errors";
import { parseId } from "../core/validate";
import { memberTargets } from "./members";

/** A plan or an apply on every chosen member finishes within this (each member's own call: its timeout). */
export const TEMPLATE_DEADLINE_MS = 30_000;
const MEMBER_CALL_MS = 20_000;

type Row = typeof fleetTemplates.$inferSelect;
const view = (row: Row): FleetTemplate => ({
  id: row.id,
  name: row.name,
  document: row.document,
  updatedAt: row.updatedAt.toISOString(),
});

export function listTemplates(deps: Pick<Deps, "db">): FleetTemplate[] {
  return deps.db.select().from(fleetTemplates).orderBy(fleetTemplates.name).all().map(view);
}

function rowById(db: Db, raw: string): Row {
  const row = db
    .select()
    .from(fleetTemplates)
    .where(eq(fleetTemplates.id, parseId(raw, "Template")))
    .get();
  if (!row) throw new NotFound("Template");
  return row;
}

const publish = (deps: Pick<Deps, "events">, id: number, action: string) =>
  deps.events.publish({ type: "fleet-templates-updated", data: { id, action } });

export function createTemplate(deps: Pick<Deps, "db" | "events" | "now">, input: FleetTemplateInput): FleetTemplate {
  if (deps.db.select({ id: fleetTemplates.id }).from(fleetTemplates).where(eq(fleetTemplates.name, input.name)).get())
    throw new Conflict("A template has this name", { name: "A template has this name" });
  const now = new Date(deps.now());
  const row = deps.db
    .insert(fleetTemplates)
    .values({ name: input.name, document: input.document, createdAt: now, updatedAt: now })
    .returning()
    .get();
  publish(deps, row.id, "created");
  return view(row);
}

export function deleteTemplate(deps: Pick<Deps, "db" | "events">, id: string): void {
  const row = rowById(deps.db, id);
  deps.db.delete(fleetTemplates).where(eq(fleetTemplates.id, row.id)).run();
  publish(deps, row.id, "deleted");
}

/** The chosen members (with their tokens opened), in the order asked; an unknown id is a 400 naming it. */
function chosen(deps: Pick<Deps, "db" | "box">, ids: number[]) {
  const all = new Map(memberTargets(deps).map((m) => [m.id, m]));
  const missing = ids.filter((id) => !all.has(id));
  if (missing.length) {
    const message = `Not a member of this hub: ${missing.join(", ")}`;
    throw new Invalid(message, { members: message });
  }
  return ids.map((id) => all.get(id) as NonNullable<ReturnType<typeof all.get>>);
}

const refusalsOf = (body: unknown): { path: string; message: string }[] => {
  const fields = (body as { error?: { fields?: unknown } } | undefined)?.error?.fields;
  if (typeof fields !== "object" || fields === null) return [];
  return Object.entries(fields as Record<string, unknown>)
    .filter((e): e is [string, string] => typeof e[1] === "string")
    .slice(0, 50)
    .map(([path, message]) => ({ path: path.slice(0, 200), message: message.slice(0, 300) }));
};

const countsOf = (v: unknown): FleetTemplateApplyEntry["counts"] => {
  const c = (v as { counts?: Record<string, unknown> } | undefined)?.counts;
  if (!c) return null;
  const n = (k: string) => (typeof c[k] === "number" ? (c[k] as number) : 0);
  return { create: n("create"), update: n("update"), delete: n("delete"), unchanged: n("unchanged") };
};

/** The plan a member sent, reduced to what the review shows (nothing else passes through the hub). */
function cleanPlan(v: unknown): FleetTemplatePlanEntry["plan"] {
  const p = v as { fingerprint?: unknown; items?: unknown } | undefined;
  if (typeof p?.fingerprint !== "string" || !/^[0-9a-f]{64}$/.test(p.fingerprint) || !Array.isArray(p.items))
    return null;
  const items = (p.items as Record<string, unknown>[]).slice(0, 5000).map((i) => ({
    id: String(i.id ?? ""),
    kind: String(i.kind ?? ""),
    key: String(i.key ?? ""),
    label: String(i.label ?? ""),
    action: (["create", "update", "delete", "unchanged"].includes(String(i.action)) ? i.action : "unchanged") as
      | "create"
      | "update"
      | "delete"
      | "unchanged",
    changes: Array.isArray(i.changes)
      ? (i.changes as Record<string, unknown>[]).map((c) => ({ field: String(c.field ?? ""), from: c.from, to: c.to }))
      : [],
  }));
  return {
    fingerprint: p.fingerprint,
    counts: countsOf(p) ?? { create: 0, update: 0, delete: 0, unchanged: 0 },
    items,
  };
}

/** Asks each chosen member for its plan of the template; each answer is that member's plan or why there is none. */
export async function planTemplate(
  deps: Pick<Deps, "db" | "box">,
  id: string,
  members: number[],
): Promise<{ items: FleetTemplatePlanEntry[] }> {
  const template = rowById(deps.db, id);
  const targets = chosen(deps, members);
  const signal = deadline("Planning the template", TEMPLATE_DEADLINE_MS);
  const items = await Promise.all(
    targets.map(async (m): Promise<FleetTemplatePlanEntry> => {
      const entry = { member: m.id, memberName: m.name };
      try {
        const answer = await memberRequest(m, {
          method: "POST",
          path: "/api/config/plan",
          body: { document: template.document, prune: false },
          timeoutMs: MEMBER_CALL_MS,
          signal,
        });
        const plan = cleanPlan(answer.json);
        if (!plan) return { ...entry, plan: null, error: "The member's answer is not a plan", refused: [] };
        return { ...entry, plan, error: null, refused: [] };
      } catch (err) {
        const e = err instanceof FleetMemberError ? err : null;
        return { ...entry, plan: null, error: e?.message ?? "The plan failed", refused: refusalsOf(e?.body) };
      }
    }),
  );
  return { items };
}

/**
 * Applies each reviewed plan on its member by its fingerprint. A member whose objects changed since answers 409
 * (nothing written there): its entry says so, to be planned and reviewed again.
 */
export async function applyTemplate(
  deps: Pick<Deps, "db" | "box">,
  id: string,
  request: FleetTemplateApplyRequest,
): Promise<{ items: FleetTemplateApplyEntry[] }> {
  rowById(deps.db, id);
  const targets = chosen(
    deps,
    request.plans.map((p) => p.member),
  );
  const signal = deadline("Applying the template", TEMPLATE_DEADLINE_MS);
  const items = await Promise.all(
    request.plans.map(async (p, i): Promise<FleetTemplateApplyEntry> => {
      const m = targets[i] as (typeof targets)[number];
      const entry = { member: m.id, memberName: m.name };
      try {
        const answer = await memberRequest(m, {
          method: "POST",
          path: "/api/config/apply",
          body: { fingerprint: p.fingerprint },
          timeoutMs: MEMBER_CALL_MS,
          signal,
        });
        return { ...entry, ok: true, counts: countsOf(answer.json), error: null };
      } catch (err) {
        return {
          ...entry,
          ok: false,
          counts: null,
          error: err instanceof FleetMemberError ? err.message : "The apply failed",
        };
      }
    }),
  );
  return { items };
}

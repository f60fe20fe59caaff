/**
 * The plan (ADR 0025): what deploying a target would do to the live PBX, per object, before anything is
 * written. The live PBX is read in one go (over SSH: live.ts; or through the FreePBX API for extensions and
 * inbound routes: graphql.ts), compared with the console's desired objects (desired.ts, from `ownership.ts`)
 * and with the ownership records (`managed.ts`), each pair planned by ssh.ts or graphql.ts:
 *
 * - a console object with a record: `update` (owned fields that differ, from → to) or `unchanged`;
 *   trunks and outbound routes are found by their recorded PBX id, so a rename is an update;
 * - a console object without a record: `create` when nothing on the PBX has its number/name, else
 *   `conflict` (the user adopts it, then it is an update, or skips it);
 * - a record without a console object: `delete` (the console removed it).
 *
 * The fingerprint is an HMAC of every item's action, PBX id, note and raw (unmasked) from/to values, and of
 * the refused objects: the live state of the touched rows' owned fields and the console's desired state. It
 * is computed here from the entries both ways produce, so it covers every decision. Apply plans again
 * (ADR 0053: in the session it then writes with) and needs the same fingerprint.
 */
import type { DeployKind } from "../../../shared/pbx";
import { type DeployPlan, emptyCounts, type PlanAction, type PlanRefused, type PlanTarget } from "../../../shared/plan";
import type { FreePbxClient } from "../../clients/freepbx";
import type { Deps } from "../../core/deps";
import { Invalid } from "../../core/errors";
import { type ClientDeps, clients } from "../../integrations/outside";
import { nodeCrypto } from "../../lazy-node";
import { consoleModel, pbxModel } from "../../routing/model";
import { ROUTING_KINDS, reroutedCalls } from "../../routing/routing";
import { type PbxRemote, withPbxHost } from "../host/host";
import { managedOf } from "../objects/managed";
import type { ItemKind } from "../objects/ownership";
import { desiredObjects, kindsOf } from "./desired";
import { GRAPHQL_KINDS, planGql, readGql } from "./graphql";
import { readLive } from "./live";
import { match, type PlanEntry } from "./match";
import { planSsh } from "./ssh";

export type PlanDeps = ClientDeps & Pick<Deps, "db" | "box" | "now">;

// Ring groups and queues after the extensions they ring, then announcements and IVRs, before the inbound routes
// that send calls to them; deletes run in the reverse order.
const KIND_ORDER: ItemKind[] = [
  "trunk",
  "extension",
  "ringGroup",
  "queue",
  "announcement",
  "ivr",
  "timeGroup",
  "timeCondition",
  "outboundRoute",
  "inboundRoute",
  "pttGroup",
];

/** A target's plan: its wire view, and the entries an apply writes from. */
export interface Plan {
  wire: DeployPlan;
  entries: PlanEntry[];
}

/** Each process signs its fingerprints with its own key: a fingerprint says nothing about a secret. */
const FINGERPRINT_KEY = crypto.getRandomValues(new Uint8Array(32));

function fingerprint(target: PlanTarget, via: string, entries: PlanEntry[], refused: PlanRefused[]): string {
  const h = nodeCrypto().createHmac("sha256", FINGERPRINT_KEY);
  h.update(JSON.stringify([target, via, refused]));
  for (const e of entries)
    h.update(
      JSON.stringify([
        e.item.id,
        e.item.action,
        e.item.pbxId,
        e.item.note ?? "",
        e.raw.map((c) => [c.field, c.from, c.to]),
      ]),
    );
  return h.digest("hex");
}

const ORDER: Record<PlanAction, number> = { create: 0, update: 0, conflict: 0, unchanged: 0, delete: 1 };

function assemble(
  deps: Pick<Deps, "now">,
  target: PlanTarget,
  via: "ssh" | "graphql",
  entries: PlanEntry[],
  refused: PlanRefused[],
): Plan {
  // Writes in dependency order (trunks before the routes that use them); deletes after, routes before trunks.
  entries.sort((a, b) => {
    const byAction = ORDER[a.item.action] - ORDER[b.item.action];
    if (byAction) return byAction;
    const ka = KIND_ORDER.indexOf(a.item.kind);
    const kb = KIND_ORDER.indexOf(b.item.kind);
    return a.item.action === "delete" ? kb - ka : ka - kb;
  });
  const counts = emptyCounts();
  for (const e of entries) counts[e.item.action]++;
  return {
    wire: {
      target,
      via,
      fingerprint: fingerprint(target, via, entries, refused),
      items: entries.map((e) => e.item),
      refused,
      counts,
      readAt: new Date(deps.now()).toISOString(),
    },
    entries,
  };
}

/** Which way the plan reads (and apply writes): SSH when configured, else the FreePBX API; `Invalid` with neither. */
export function planPath(deps: Pick<Deps, "credentials">): "ssh" | "graphql" {
  if (deps.credentials.isConfigured("ssh")) return "ssh";
  if (deps.credentials.isConfigured("freepbx")) return "graphql";
  throw new Invalid(
    "No way to reach the PBX: configure the PBX host (SSH) or the FreePBX GraphQL API in API Settings.",
  );
}

/** The plan of a target over an open SSH session (an apply's plan is read in the session it writes with). */
export async function planOverSsh(
  deps: Pick<Deps, "db" | "box" | "now">,
  remote: PbxRemote,
  target: PlanTarget,
): Promise<Plan> {
  const kinds = kindsOf(target);
  const records = managedOf(deps.db, kinds);
  const { desired, refused } = desiredObjects(deps, kinds, records);
  // A plan that deploys inbound routes also reads what calls pass through, to say which DIDs it reroutes.
  const routes = kinds.includes("inboundRoute");
  const live = await readLive(remote, routes ? [...new Set([...kinds, ...ROUTING_KINDS])] : kinds, desired);
  const entries: PlanEntry[] = [];
  for (const m of match(desired, records, kinds)) {
    const planned = planSsh(m, live);
    if ("item" in planned) entries.push(planned);
    else refused.push(planned);
  }
  const plan = assemble(deps, target, "ssh", entries, refused);
  if (routes) plan.wire.calls = reroutedCalls(pbxModel(live.tables), consoleModel(deps.db));
  return plan;
}

/** The plan of a target through the FreePBX API (extensions and inbound routes; the rest is refused). */
export async function planOverGraphql(deps: PlanDeps, client: FreePbxClient, target: PlanTarget): Promise<Plan> {
  const kinds = kindsOf(target);
  const records = managedOf(deps.db, kinds);
  const { desired, refused } = desiredObjects(deps, kinds, records);
  const readable = kinds.filter((k) => GRAPHQL_KINDS.includes(k));
  const live = await readGql(client, readable);
  const entries: PlanEntry[] = [];
  for (const m of match(desired, records, kinds)) {
    if (!GRAPHQL_KINDS.includes(m.kind)) {
      if (m.desired)
        refused.push({
          kind: m.kind as DeployKind,
          key: m.desired.object.key,
          reason: "FreePBX's API cannot write this: configure the PBX host (SSH) in API Settings",
        });
      continue;
    }
    const planned = planGql(m, live);
    if ("item" in planned) entries.push(planned);
    else refused.push(planned);
  }
  return assemble(deps, target, "graphql", entries, refused);
}

/**
 * The plan of a target: reads the live PBX (SSH, else the FreePBX API) and compares. An unreachable PBX
 * is a `ServiceError` (502) with the reason; no way configured is `Invalid` (400).
 */
export async function planTarget(deps: PlanDeps, target: PlanTarget): Promise<Plan> {
  const via = planPath(deps);
  if (via === "ssh") {
    return withPbxHost(deps, (remote) => planOverSsh(deps, remote, target), {
      operation: "Reading the PBX for the plan",
      deadlineMs: 120_000,
    });
  }
  return planOverGraphql(deps, clients.freepbx(deps), target);
}

/**
 * A target's plan for an apply (ADR 0053): over SSH the session it was read in stays open, so the job
 * writes in the session that read what it writes, without reading the PBX again. Whoever takes a
 * `reviewed` closes its session (`applyTarget` does, `closeReviewed` when no job takes it).
 */
export async function planForApply(deps: PlanDeps, target: PlanTarget): Promise<Reviewed> {
  if (planPath(deps) !== "ssh")
    return { plan: await planOverGraphql(deps, clients.freepbx(deps), target), remote: null };
  let remote = null as PbxRemote | null;
  const plan = await withPbxHost(
    deps,
    (r) => {
      remote = r;
      return planOverSsh(deps, r, target);
    },
    { operation: "Reading the PBX for the plan", deadlineMs: 120_000, keepOpen: true },
  );
  return { plan, remote };
}

/** A plan read for an apply, with the session it was read in (SSH) or none (the FreePBX API). */
export interface Reviewed {
  plan: Plan;
  remote: PbxRemote | null;
}

/** Closes a reviewed plan's session that no job took. */
export const closeReviewed = (r: Reviewed): Promise<void> => r.remote?.close().catch(() => {}) ?? Promise.resolve();

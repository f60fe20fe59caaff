/**
 * Applying a plan (ADR 0025). The apply writes in the session that read the plan (the route's check, ADR
 * 0053; without one it plans in its own session) and writes exactly what the plan says:
 * - creates and updates (owned keys only, ownership.ts), and conflicts the user adopted;
 * - deletes of managed objects removed in the console: their FreePBX rows (deletes.ts) and an
 *   extension's AstDB trees;
 * - nothing for unchanged objects and conflicts the user skipped (or left unresolved);
 * then records what the console manages (`pbx_objects`) as it goes, and reloads.
 *
 * Two modes:
 * - `review` (the web, `POST /api/deploy/apply`): the fingerprint the user reviewed must still be the
 *   plan's, else nothing is written ("changed since this plan").
 * - `direct` (`POST /api/deploy/<target>` for API clients, without a review): creates and updates only;
 *   a conflict is not written (failed, "review the plan to adopt it") unless the caller adopts every
 *   conflict (tests of merging into GUI-made objects); deletes never happen without a review.
 */
import type {
  DeployAllResponse,
  DeployGroupResult,
  DeployItemResult,
  DeployKind,
  DeployResponse,
} from "../../../shared/pbx";
import { type PlanTarget, type Resolution, STALE_PLAN_MESSAGE } from "../../../shared/plan";
import { ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { Conflict } from "../../core/errors";
import { type ClientDeps, clients } from "../../integrations/outside";
import type { JobProgress } from "../../jobs/progress";
import { backupBeforeApply, deletedObject } from "../backups/take";
import type { AstdbTree } from "../host/astdb";
import { type PbxRemote, withPbxHost } from "../host/host";
import { objectItem, type SqlItem } from "../objects/entities";
import { forgetManaged, recordManaged } from "../objects/managed";
import type { PbxObject } from "../objects/ownership";
import { consoleObjects } from "../plan/desired";
import type { PlanEntry } from "../plan/match";
import { closeReviewed, type Plan, planOverGraphql, planOverSsh, planPath, type Reviewed } from "../plan/plan";
import { deleteItem } from "./deletes";
import {
  type DeployDeps,
  type DeployOutcome,
  deployOverGraphql,
  itemResult,
  type WriteHooks,
  writeOverSsh,
} from "./deploy";

export type ApplyDeps = DeployDeps & ClientDeps & Pick<Deps, "now">;

export interface ApplyOptions {
  mode: "review" | "direct";
  /** review: the plan the user confirmed. */
  fingerprint?: string;
  /** `<kind>:<key>` → adopt | skip; a conflict without one is skipped. */
  resolutions?: Record<string, Resolution>;
  /** direct: adopt every conflict (merging into objects made in FreePBX without a review). */
  adoptConflicts?: boolean;
  /** review: the plan the route checked, with its open session (written in and closed here, ADR 0053). */
  reviewed?: Reviewed;
}

const KIND_NAME: Record<DeployKind, string> = {
  extension: "Extension",
  trunk: "Trunk",
  outboundRoute: "Outbound route",
  inboundRoute: "Inbound route",
  pttGroup: "PTT group",
  ringGroup: "Ring group",
  queue: "Queue",
  ivr: "IVR",
  announcement: "Announcement",
  timeGroup: "Time group",
  timeCondition: "Time condition",
};

/** What the plan's entries become: the items to write, and the results known without writing. */
interface Selected {
  writes: PlanEntry[];
  deletes: PlanEntry[];
  known: DeployItemResult[];
}

function select(plan: Plan, opts: ApplyOptions): Selected {
  const out: Selected = { writes: [], deletes: [], known: [] };
  const via = plan.wire.via;
  for (const r of plan.wire.refused)
    out.known.push(itemResult({ kind: r.kind, key: r.key, label: r.key }, "failed", r.reason, null));
  for (const e of plan.entries) {
    const { action, kind, key, label } = e.item;
    switch (action) {
      case "create":
      case "update":
        out.writes.push(e);
        break;
      case "delete":
        if (opts.mode === "review") out.deletes.push(e);
        break;
      case "conflict": {
        const adopt = opts.mode === "review" ? opts.resolutions?.[e.item.id] === "adopt" : opts.adoptConflicts;
        if (adopt) out.writes.push(e);
        else if (opts.mode === "direct")
          out.known.push({
            ...itemResult(
              { kind, key, label },
              "failed",
              `Not written: ${KIND_NAME[kind]} ${key} is on the PBX but the console does not manage it; review the plan (POST /api/deploy/plan) to adopt or skip it`,
              null,
            ),
            action,
          });
        break;
      }
      case "unchanged":
        if (opts.mode === "direct")
          out.known.push({
            ...itemResult(
              { kind, key, label },
              "success",
              `${KIND_NAME[kind]} ${key} is already up to date on the PBX`,
              via,
            ),
            action,
          });
        break;
    }
  }
  return out;
}

function sqlItems(sel: Selected): SqlItem[] {
  const writes = sel.writes.map((e) =>
    objectItem((e.desired as NonNullable<PlanEntry["desired"]>).object, {
      onPbx: e.item.action === "update" || e.item.action === "conflict",
    }),
  );
  const deletes = sel.deletes.map((e) => ({
    ...deleteItem({ kind: e.item.kind, key: e.item.key, label: e.item.label, pbxId: e.item.pbxId }),
    delete: true as const,
  }));
  return [...writes, ...deletes];
}

const idOf = (kind: string, key: string) => `${kind}:${key}`;

/** The kinds whose new objects get their PBX id from FreePBX, and where it is read back by name (the object's key). */
const FRESH_ID: Record<string, { table: string; id: string; name: string }> = {
  trunk: { table: "trunks", id: "trunkid", name: "name" },
  outboundRoute: { table: "outbound_routes", id: "route_id", name: "name" },
  ivr: { table: "ivr_details", id: "id", name: "name" },
  announcement: { table: "announcement", id: "announcement_id", name: "description" },
  timeGroup: { table: "timegroups_groups", id: "id", name: "description" },
  timeCondition: { table: "timeconditions", id: "timeconditions_id", name: "displayname" },
};

/**
 * What the backup before the write covers (backups/take.ts): the objects written (a moved inbound route under
 * its old DID too, so a roll back puts its row back there) and the ones deleted.
 */
const backupObjects = (sel: Selected) => [
  ...sel.writes.flatMap((e) => {
    const o = (e.desired as NonNullable<PlanEntry["desired"]>).object;
    const from = o.identity.kind === "number" ? o.identity.moveFrom : undefined;
    return from === undefined ? [o] : [o, deletedObject({ kind: o.kind, key: from, label: o.label, pbxId: null })];
  }),
  ...sel.deletes.map((e) =>
    deletedObject({ kind: e.item.kind, key: e.item.key, label: e.item.label, pbxId: e.item.pbxId }),
  ),
];

/**
 * After the transaction: the ownership records of what was written (new trunks' and routes' ids read
 * back), the deleted extensions' AstDB trees, the deleted objects' records gone.
 */
function afterCommit(deps: ApplyDeps, sel: Selected, remote: PbxRemote | null): WriteHooks["afterCommit"] {
  return async (results) => {
    const ok = new Map(results.filter((r) => r.status === "success").map((r) => [idOf(r.kind, r.name), r]));
    const all = new Map(results.map((r) => [idOf(r.kind, r.name), r]));
    const written = sel.writes.filter((e) => ok.has(e.item.id));
    const deleted = sel.deletes.filter((e) => ok.has(e.item.id));
    for (const e of [...sel.writes, ...sel.deletes]) {
      const r = all.get(e.item.id);
      if (r) r.action = e.item.action;
    }
    // New trunks, routes, IVRs and announcements: their ids, as the transaction allocated them.
    const ids = new Map<string, string>();
    const fresh = written.filter((e) => e.item.pbxId === null && e.item.kind in FRESH_ID);
    if (remote && fresh.length) {
      const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
      const names = (kind: string) =>
        fresh
          .filter((e) => e.item.kind === kind)
          .map((e) => `X'${hex(e.item.key)}'`)
          .join(", ");
      const sql = Object.entries(FRESH_ID)
        .filter(([kind]) => names(kind))
        .map(
          ([kind, t]) =>
            `SELECT HEX('${kind}'), HEX(${t.name}), HEX(CAST(MIN(${t.id}) AS CHAR)) FROM ${t.table} WHERE ${t.name} IN (${names(kind)}) GROUP BY ${t.name};`,
        )
        .join("\n");
      const rows = await remote.selectHex(sql).catch(() => []);
      for (const [kind, name, id] of rows) if (kind && name && id) ids.set(idOf(kind, name), id);
    }
    const now = deps.now();
    // One SQLite transaction for all the records: a deployment of hundreds commits once.
    deps.db.$client.transaction(() => {
      for (const e of written) {
        const d = e.desired as NonNullable<PlanEntry["desired"]>;
        recordManaged(deps.db, now, {
          kind: e.item.kind,
          key: e.item.key,
          pbxId: e.item.pbxId ?? ids.get(e.item.id) ?? null,
          // A page group's record keeps the members the console wrote (managed.ts `deployedMembers`).
          members: e.item.kind === "pttGroup" ? writtenMembers(d.object) : undefined,
          consoleId: d.consoleId,
          origin: e.item.action === "conflict" ? "adopt" : "deploy",
          previousKey: e.record?.key,
        });
      }
    })();
    // Deleted extensions' trees (Core's delDevice/delUser), ring groups' (Ringgroups::delete()) and queues'
    // (queues_del()).
    const withTrees = deleted.filter((e) => ["extension", "ringGroup", "queue"].includes(e.item.kind));
    const trees = withTrees.flatMap((e): AstdbTree[] => {
      if (e.item.kind === "ringGroup") return [{ family: "RINGGROUP", key: e.item.key }];
      if (e.item.kind === "queue") return [{ family: "QPENALTY", key: e.item.key }];
      return [
        { family: "DEVICE", key: e.item.key },
        { family: "AMPUSER", key: e.item.key },
        { family: "CW", key: e.item.key },
      ];
    });
    if (remote && trees.length) {
      const out = await remote.deleteAstdbTrees(trees).catch((err: unknown) => {
        if (!(err instanceof ServiceError)) throw err;
        return { ok: false as const, message: err.message };
      });
      for (const e of withTrees) {
        const r = all.get(e.item.id) as DeployItemResult;
        if (out.ok) r.message = "Deleted from the FreePBX database and Asterisk's database (AstDB)";
        else {
          r.status = "failed";
          r.message = `Deleted from the FreePBX database, but its AstDB entries were not removed: ${out.message}`;
        }
      }
    }
    for (const e of deleted) forgetManaged(deps.db, e.item.kind, (e.record?.key ?? e.item.key) as string);
  };
}

/** The members a page group's write leaves as the console's (its list's entries). */
function writtenMembers(o: PbxObject): string[] {
  const list = o.lists.find((l) => l.table === "paging_groups");
  return (list?.entries ?? []).map((e) => String(e.ext));
}

function checkFingerprint(plan: Plan, opts: ApplyOptions): void {
  if (opts.mode === "review" && plan.wire.fingerprint !== opts.fingerprint) throw new Conflict(STALE_PLAN_MESSAGE);
}

/** A target's results when the PBX could not be reached at all: every console object failed with the reason. */
function unreachable(deps: ApplyDeps, target: PlanTarget, err: ServiceError, via: "ssh" | "graphql"): DeployOutcome {
  const { desired, refused } = consoleObjects(deps, target);
  const results = [
    ...desired.map((d) => itemResult(d.object, "failed", err.message, via)),
    ...refused.map((r) => itemResult({ kind: r.kind, key: r.key, label: r.key }, "failed", r.reason, null)),
  ];
  return { results, reload: null };
}

/**
 * Applies a target's plan. Review mode: `Conflict` (409) with "changed since this plan" when the PBX or
 * the console changed since the plan the user confirmed (nothing is written). An unreachable PBX: every
 * item failed with the reason, nothing written.
 */
export async function applyTarget(
  deps: ApplyDeps,
  target: PlanTarget,
  opts: ApplyOptions,
  progress?: JobProgress,
): Promise<DeployOutcome> {
  let via: ReturnType<typeof planPath>;
  try {
    via = planPath(deps);
  } catch (err) {
    if (opts.reviewed) await closeReviewed(opts.reviewed);
    throw err;
  }
  // The plan the route checked, when it was read the way the PBX is reached now (else it is read again).
  const usable = opts.reviewed && (opts.reviewed.remote !== null) === (via === "ssh") ? opts.reviewed : undefined;
  if (opts.reviewed && !usable) await closeReviewed(opts.reviewed);
  const report = (sel: Selected) => {
    progress?.total(sel.writes.length + sel.deletes.length + sel.known.length);
    for (const r of sel.known) progress?.result(r);
  };
  try {
    if (via === "ssh") {
      if (!usable) progress?.item("Connecting to the PBX host");
      return await withPbxHost(
        deps,
        async (remote) => {
          if (!usable) progress?.item("Reading the PBX (plan)");
          const plan = usable?.plan ?? (await planOverSsh(deps, remote, target));
          checkFingerprint(plan, opts);
          const sel = select(plan, opts);
          report(sel);
          const items = sqlItems(sel);
          if (items.length === 0) return { results: sel.known, reload: null };
          // The backup of every row the plan can touch, before any write (ADR 0026).
          await backupBeforeApply(deps, remote, backupObjects(sel), {
            jobId: progress?.job?.id ?? null,
            createdBy: progress?.job?.startedBy ?? "console",
            target,
          });
          const outcome = await writeOverSsh(deps, remote, items, progress, {
            afterCommit: afterCommit(deps, sel, remote),
          });
          return { results: [...outcome.results, ...sel.known], reload: outcome.reload };
        },
        { operation: "Deploying to the PBX host", host: usable?.remote ?? undefined },
      );
    }
    if (!usable) progress?.item("Reading the PBX through the FreePBX API (plan)");
    const plan = usable?.plan ?? (await planOverGraphql(deps, clients.freepbx(deps), target));
    checkFingerprint(plan, opts);
    const sel = select(plan, opts);
    report(sel);
    const items = sqlItems(sel);
    if (items.length === 0) return { results: sel.known, reload: null };
    const outcome = await deployOverGraphql(deps, items, progress, { afterCommit: afterCommit(deps, sel, null) });
    return { results: [...outcome.results, ...sel.known], reload: outcome.reload };
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    // Could not reach (or read) the PBX: nothing was written.
    return unreachable(deps, target, err, via);
  }
}

function group(results: DeployItemResult[], kind: DeployKind): DeployGroupResult {
  const mine = results.filter((r) => r.kind === kind);
  return {
    deployed: mine.filter((r) => r.status === "success").length,
    failed: mine.filter((r) => r.status === "failed").length,
    results: mine,
  };
}

const TARGET_KIND = {
  trunks: "trunk",
  extensions: "extension",
  "ptt-groups": "pttGroup",
  "ring-groups": "ringGroup",
  queues: "queue",
  ivrs: "ivr",
  announcements: "announcement",
  "time-groups": "timeGroup",
  "time-conditions": "timeCondition",
} as const;

/**
 * Applies a target and answers with the results grouped by kind (the job's summary); tells every console
 * that the PBX changed (`sync-status`).
 */
export async function deployTarget(
  deps: ApplyDeps,
  target: "all",
  progress?: JobProgress,
  opts?: ApplyOptions,
): Promise<DeployAllResponse>;
export async function deployTarget(
  deps: ApplyDeps,
  target: Exclude<PlanTarget, "all">,
  progress?: JobProgress,
  opts?: ApplyOptions,
): Promise<DeployResponse>;
export async function deployTarget(
  deps: ApplyDeps,
  target: PlanTarget,
  progress?: JobProgress,
  opts: ApplyOptions = { mode: "direct" },
): Promise<DeployAllResponse | DeployResponse> {
  const outcome = await applyTarget(deps, target, opts, progress);
  deps.events.publish({ type: "sync-status", data: { deploy: target, reload: outcome.reload?.ok ?? null } });
  if (target === "all") {
    return {
      trunks: group(outcome.results, "trunk"),
      extensions: group(outcome.results, "extension"),
      outboundRoutes: group(outcome.results, "outboundRoute"),
      inboundRoutes: group(outcome.results, "inboundRoute"),
      ringGroups: group(outcome.results, "ringGroup"),
      queues: group(outcome.results, "queue"),
      ivrs: group(outcome.results, "ivr"),
      announcements: group(outcome.results, "announcement"),
      timeGroups: group(outcome.results, "timeGroup"),
      timeConditions: group(outcome.results, "timeCondition"),
      reload: outcome.reload,
    };
  }
  return { ...group(outcome.results, TARGET_KIND[target]), reload: outcome.reload };
}

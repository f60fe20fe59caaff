/**
 * Sync import: rows read from the live PBX become console rows, exactly as the import's plan says
 * (`sync-plan.ts`: the same decisions the review shows). A created or updated object is written with the
 * PBX's values; an unchanged one is not written; a refused one is a failed item with the reason, never a
 * partial write, and the rest of the import goes on. Every imported object becomes managed by the console
 * (`pbx_objects`, origin `import`). SIP secrets read from the PBX are stored sealed.
 *
 * With the fingerprint of a reviewed plan, the job plans again from its own read of the PBX and, when the
 * PBX or the console changed since, stops before writing anything (`Conflict`, "changed since this plan").
 */
import { eq } from "drizzle-orm";
import { extensions, trunks } from "../../../db/schema";
import type { ImportResult } from "../../../shared/pbx";
import {
  type ImportExtensionsRequest,
  type ImportKind,
  type ImportQueuesRequest,
  type ImportRequest,
  type ImportRingGroupsRequest,
  type ImportTrunksRequest,
  STALE_PLAN_MESSAGE,
} from "../../../shared/plan";
import type { Deps } from "../../core/deps";
import { Conflict, DomainError } from "../../core/errors";
import { type JobProgress, notReached } from "../../jobs/progress";
import { recordManaged } from "../objects/managed";
import { type CallFlowImportKind, flowKindOf, type ImportCallFlowRequest, isCallFlowKind } from "./call-flow";
import { importCallFlow } from "./call-flow-plan";
import { writeCallGroup } from "./call-groups";
import type { PbxReadDeps } from "./read";
import { assembleImportPlan, type ImportEntry, readForImport } from "./sync-plan";

type ImportDeps = PbxReadDeps & Pick<Deps, "db" | "events" | "box" | "now">;

/** `unchanged` appears once an object is unchanged (the summary's shape before reviews stays as it was). */
const emptyResult = (): ImportResult => ({ created: 0, updated: 0, failed: 0, errors: [] });

/** Between items of an import job: stop (the rest is not imported and the summary says so), else go on. */
async function stopHere(result: ImportResult, left: number, progress?: JobProgress): Promise<boolean> {
  if (!progress) return false;
  // Let a cancel request and the progress events through: the loop itself never waits.
  await new Promise((resolve) => setImmediate(resolve));
  const why = progress.stopped();
  if (why) result.errors?.push(`${left} not imported: ${notReached(why)}`);
  return why !== null;
}

/** Writes one planned entry into the console and records that the console manages the PBX object. */
function write(deps: ImportDeps, e: ImportEntry): void {
  const { db, box } = deps;
  let consoleId = e.item.consoleId;
  if (e.kind === "extension" && e.values) {
    const { secret, ...rest } = e.values;
    const values = { ...rest, ...(secret ? { secret: box.seal(secret) } : {}) };
    if (e.item.action === "update" && consoleId !== null)
      db.update(extensions).set(values).where(eq(extensions.id, consoleId)).run();
    if (e.item.action === "create")
      consoleId = db
        .insert(extensions)
        .values({ extension: e.item.key, ...values })
        .returning()
        .get().id;
  }
  if (e.kind === "trunk" && e.values) {
    const { secret, ...rest } = e.values;
    const values = { ...rest, ...(secret ? { secret: box.seal(secret) } : {}) };
    if (e.item.action === "update" && consoleId !== null)
      db.update(trunks).set(values).where(eq(trunks.id, consoleId)).run();
    if (e.item.action === "create") consoleId = db.insert(trunks).values(values).returning().get().id;
  }
  // A ring group or queue goes through the console's own create or update (their events included).
  if ((e.kind === "ringGroup" || e.kind === "queue") && e.item.action !== "unchanged")
    consoleId = writeCallGroup(deps, e.group);
  // The console now manages what it imported (ADR 0025); a trunk by its trunkid, so a rename stays the same object.
  recordManaged(db, deps.now(), {
    kind: e.kind,
    key: e.item.key,
    pbxId: e.item.pbxId,
    consoleId,
    origin: "import",
    previousKey: e.record?.key,
  });
}

const DONE = { create: "Created", update: "Updated", unchanged: "Unchanged" } as const;

/**
 * Imports the PBX's objects of a kind (all, or the selected keys) as the plan says. `Conflict` (nothing
 * written) when a reviewed plan's fingerprint is given and no longer matches.
 */
async function importKind(
  deps: ImportDeps,
  kind: ImportKind,
  input: ImportRequest | ImportCallFlowRequest,
  progress?: JobProgress,
): Promise<ImportResult> {
  progress?.item(`Reading the PBX's ${kind}`);
  const read = await readForImport(deps, kind);
  const plan = assembleImportPlan(deps, kind, read, input);
  if (input.fingerprint !== undefined && plan.wire.fingerprint !== input.fingerprint)
    throw new Conflict(STALE_PLAN_MESSAGE);
  const result = emptyResult();
  const { entries } = plan;
  // IVRs and announcements are written all at once (they point at one another), exactly as planned or not at all.
  const flow = isCallFlowKind(kind);
  if (flow)
    importCallFlow(
      deps,
      flowKindOf(kind),
      read.rows as Parameters<typeof importCallFlow>[2],
      input as ImportCallFlowRequest,
      entries.flatMap((e) => ("flow" in e ? [e.flow] : [])),
    );
  progress?.total(entries.length);
  for (const [i, e] of entries.entries()) {
    if (!flow && (await stopHere(result, entries.length - i, progress))) break;
    const label = e.item.label;
    progress?.item(label);
    if (e.item.action === "refused") {
      const reason = e.item.reason ?? "Cannot be imported";
      result.failed++;
      result.errors?.push(reason);
      progress?.result({ label, status: "failed", message: reason });
      continue;
    }
    if (!flow && (e.item.action !== "unchanged" || e.item.adopt)) {
      try {
        write(deps, e);
      } catch (err) {
        // The console's own rules, met after the plan (its objects changed meanwhile): this one is not imported.
        if (!(err instanceof DomainError)) throw err;
        result.failed++;
        result.errors?.push(`${label}: ${err.message}`);
        progress?.result({ label, status: "failed", message: err.message });
        continue;
      }
    }
    if (e.item.action === "create") result.created++;
    else if (e.item.action === "update") result.updated++;
    else result.unchanged = (result.unchanged ?? 0) + 1;
    const message =
      e.item.action === "unchanged" && e.item.adopt ? "Unchanged; now managed by the console" : DONE[e.item.action];
    progress?.result({ label, status: "success", message });
  }
  // Ring groups, queues, IVRs and announcements told their own events as they were written.
  if ((result.created || result.updated) && (kind === "extensions" || kind === "trunks"))
    deps.events.publish({
      type: kind === "extensions" ? "extensions-updated" : "trunks-updated",
      data: { source: "sync" },
    });
  deps.events.publish({ type: "sync-status", data: { import: kind, ...result } });
  return result;
}

/** Imports the PBX's extensions (all, or the selected numbers). */
export const importExtensions = (deps: ImportDeps, input: ImportExtensionsRequest, progress?: JobProgress) =>
  importKind(deps, "extensions", input, progress);

/** Imports the PBX's trunks (all, or the selected names); read over SSH only. */
export const importTrunks = (deps: ImportDeps, input: ImportTrunksRequest, progress?: JobProgress) =>
  importKind(deps, "trunks", input, progress);

/** Imports the PBX's ring groups (all, or the selected numbers); read over SSH only. */
export const importRingGroups = (deps: ImportDeps, input: ImportRingGroupsRequest, progress?: JobProgress) =>
  importKind(deps, "ring-groups", input, progress);

/** Imports the PBX's queues (all, or the selected numbers); read over SSH only. */
export const importQueues = (deps: ImportDeps, input: ImportQueuesRequest, progress?: JobProgress) =>
  importKind(deps, "queues", input, progress);

/** Imports the PBX's IVRs or announcements (all, or the selected FreePBX ids) with what they need; SSH only. */
export const importCallFlowKind = (
  deps: ImportDeps,
  kind: CallFlowImportKind,
  input: ImportCallFlowRequest,
  progress?: JobProgress,
) => importKind(deps, kind, input, progress);

/**
 * Deployment to the live PBX. Over SSH: all selected items in ONE MariaDB
 * transaction; when MariaDB names a failing line, that item is reported with
 * the reason and the batch is retried without it, so nothing is half-written.
 * Then `fwconsole reload`. Without SSH, extensions and inbound routes go
 * through the FreePBX GraphQL API; the results say which path each item took.
 * What is written is decided by the plan (apply.ts, ADR 0025); these are its writers.
 */
import { eq } from "drizzle-orm";
import { extensions, inboundRoutes, trunks } from "../../../db/schema";
import { trunkChannelId } from "../../../shared/inventory";
import type { DeployJobTarget } from "../../../shared/jobs";
import type { DeployItemResult, ReloadResult } from "../../../shared/pbx";
import { deadline, ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { Invalid } from "../../core/errors";
import { type ClientDeps, clients } from "../../integrations/outside";
import { withOpenSecret } from "../../inventory/sip-secrets";
import { type JobProgress, notReached } from "../../jobs/progress";
import { redact } from "../../redact";
import { type AstdbEntry, astdbEntries, type ExtensionRows, extensionRowsSql, parseExtensionRows } from "../host/astdb";
import type { PbxRemote } from "../host/host";
import { UnsafeValueError } from "../host/sql";
import { completeVoicemail, contextsBeforeDelete } from "../host/voicemail";
import { GONE_OBJECT_MARK, MISSING_REF_MARK, MISSING_TRUNK_MARK, type SqlItem } from "../objects/entities";
import { managedOf } from "../objects/managed";
import { QUEUE_ASTDB, RINGGROUP_ASTDB } from "../objects/ownership";
import { type RefBook, recordedDestination, refBook } from "../objects/refs";
import { deleteGql, deployExtensionGql, deployInboundGql, reloadGql } from "./graphql-deploy";
import { buildScript } from "./script";

/** What a deployment uses: the console's rows, the event hub, and what the FreePBX API client needs. */
export type DeployDeps = ClientDeps & Pick<Deps, "db" | "events" | "box">;

export const GRAPHQL_RELOAD_TIMEOUT_MS = 60_000;
/** The overall deadline of a deployment through the FreePBX API (every item, then the reload). */
export const GRAPHQL_DEPLOY_DEADLINE_MS = 5 * 60_000;

export interface DeployOutcome {
  results: DeployItemResult[];
  reload: ReloadResult | null;
}

export const itemResult = (
  item: Pick<SqlItem, "kind" | "key" | "label">,
  status: DeployItemResult["status"],
  message: string,
  via: DeployItemResult["via"],
): DeployItemResult => ({
  kind: item.kind,
  name: item.key,
  label: item.label,
  ...(item.kind === "trunk" ? { trunk: item.key } : {}),
  ...(item.kind === "extension" ? { extension: item.key } : {}),
  status,
  message,
  via,
});

function explain(message: string, script: string, line: number | null, item?: SqlItem): string {
  const text = line ? (script.split("\n")[line - 1] ?? "") : "";
  const ref = text.split(MISSING_REF_MARK)[1]?.trim();
  if (ref !== undefined)
    return `It ${item?.refLabels?.[ref] ?? "needs an object"}, which is not on the PBX: deploy it too (or first)`;
  if (text.includes(MISSING_TRUNK_MARK)) return "The route's trunk is not on the PBX yet: deploy the trunk first";
  if (text.includes(GONE_OBJECT_MARK))
    return "It was deleted on the PBX after the plan was read: review the plan again (POST /api/deploy/plan)";
  return message;
}

/** What an apply (ADR 0025) does inside the write: right after the transaction committed, before AstDB and the reload. */
export interface WriteHooks {
  /** `results`: every item's result so far (success = its rows are committed); may change messages and statuses. */
  afterCommit?: (results: DeployItemResult[]) => Promise<void>;
}

/**
 * Writes the items over an open session: one transaction (an item MariaDB names as failing is reported
 * and the batch retried without it), then the extensions' AstDB, then the reload.
 */
export async function writeOverSsh(
  deps: DeployDeps,
  remote: PbxRemote,
  items: SqlItem[],
  progress?: JobProgress,
  hooks: WriteHooks = {},
): Promise<DeployOutcome> {
  const results: DeployItemResult[] = [];
  // Deleted extensions' voicemail contexts, read while their users rows still exist (voicemail.ts).
  const vmContexts = await contextsBeforeDelete(
    remote,
    items.filter((i) => i.delete && i.kind === "extension").map((i) => i.key),
  );
  let pending = [...items];
  while (pending.length > 0) {
    // Cancel and deadline act before the transaction (all or nothing) or before the reload (ADR 0024).
    const stop = progress?.stopped();
    if (stop) {
      for (const item of pending) results.push(itemResult(item, "failed", notReached(stop), null));
      break;
    }
    progress?.item(`Writing ${pending.length} item(s) in one transaction`);
    const script = buildScript(pending);
    const run = await remote.runScript(script);
    if (run.ok) {
      for (const item of pending)
        results.push(
          itemResult(
            item,
            "success",
            item.delete ? "Deleted from the FreePBX database" : "Written to the FreePBX database",
            "ssh",
          ),
        );
      break;
    }
    // MariaDB may quote the failing statement, and with it a SIP secret: never passed on.
    const message = redact(
      run.message,
      pending.flatMap((i) => i.secrets ?? []),
    );
    const index = run.line === null ? undefined : script.lineToItem.get(run.line);
    if (index === undefined) {
      // Not attributable to one item (e.g. access denied): the whole batch rolled back.
      for (const item of pending) results.push(itemResult(item, "failed", message, "ssh"));
      pending = [];
      break;
    }
    const bad = pending[index] as SqlItem;
    results.push(itemResult(bad, "failed", `${explain(message, script.text, run.line, bad)} (rolled back)`, "ssh"));
    pending = pending.filter((_, i) => i !== index);
  }
  await hooks.afterCommit?.(results);
  const deleted = new Set(items.filter((i) => i.delete).map((i) => `${i.kind}:${i.key}`));
  const kept = results.filter((r) => !deleted.has(`${r.kind}:${r.name}`));
  const rows = await completeExtensions(remote, kept, items);
  await completeCallFlows(remote, kept);
  // Voicemail mailboxes in voicemail.conf (ADR 0023): created for voicemail on, removed for deleted extensions.
  await completeVoicemail(
    deps,
    remote,
    kept,
    rows,
    results.filter((r) => deleted.has(`${r.kind}:${r.name}`)),
    vmContexts,
  );
  for (const r of results) progress?.result(r);
  const wrote = results.some((r) => r.status === "success");
  let reload: ReloadResult | null = null;
  const stop = wrote ? progress?.stopped() : null;
  if (stop) for (const r of results) if (r.status === "success") r.message += `; not reloaded (${stop})`;
  if (wrote && !stop) {
    progress?.item("Reloading FreePBX (fwconsole reload)");
    const r = await remote.reload({ onWait: (item) => progress?.item(item) });
    reload = { ok: r.ok, via: "ssh", exitCode: r.exitCode, output: r.output.slice(-4000), reason: r.reason };
    if (!r.ok) {
      for (const res of results) {
        if (res.status === "success") {
          res.status = "failed";
          res.message = `Saved in the FreePBX database, but fwconsole reload failed (exit ${r.exitCode}): ${r.reason}`;
        }
      }
    } else {
      await updateTrunkStatus(deps, remote, results);
    }
  }
  return { results, reload };
}

/**
 * Completes the extensions just written (ADR 0023): their AstDB entries, derived from their
 * rows as they now are on the PBX, with the keys the console owns (its recording policy, ADR 0061) put with
 * the console's values. An extension whose AstDB could not be written is failed
 * with the reason (its rows stay merged: running the deploy again completes it).
 */
async function completeExtensions(
  remote: PbxRemote,
  results: DeployItemResult[],
  items: SqlItem[],
): Promise<ExtensionRows[]> {
  const done = results.filter((r) => r.kind === "extension" && r.status === "success");
  if (!done.length) return [];
  const fail = (r: DeployItemResult, why: string) => {
    r.status = "failed";
    r.message = `Saved in the FreePBX database, but Asterisk's database (AstDB) was not written: ${why}`;
  };
  let rows: ReturnType<typeof parseExtensionRows>;
  try {
    rows = parseExtensionRows(await remote.selectHex(extensionRowsSql(done.map((r) => r.name))));
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    for (const r of done) fail(r, err.message);
    return [];
  }
  const entries: AstdbEntry[] = [];
  const written: DeployItemResult[] = [];
  for (const r of done) {
    const row = rows.find((x) => x.id === r.name);
    if (!row) {
      fail(r, "the extension is not in the devices table");
      continue;
    }
    try {
      entries.push(
        ...withOwned(
          astdbEntries(row),
          items.find((i) => i.kind === "extension" && i.key === r.name),
        ),
      );
      written.push(r);
    } catch (err) {
      if (!(err instanceof UnsafeValueError)) throw err;
      fail(r, err.message);
    }
  }
  // Only what differs from AstDB as it is (one `database show` per family, ADR 0025): re-deploying many
  // extensions puts the few keys that changed, not every key with an `asterisk -rx` each.
  const current = await remote.astdbFamilies().catch(() => null);
  const needed = current
    ? entries
        .filter((e) => {
          const now = current.get(`/${e.family}/${e.key}`);
          if (now === undefined) return true;
          // The listing pads values with spaces: a value that itself ends in a space is always put.
          return e.mode === "set" && (e.value.endsWith(" ") || now.replace(/ +$/, "") !== e.value);
        })
        .map((e) => ({ ...e, mode: "set" as const }))
    : entries;
  const out = await remote.writeAstdb(needed).catch((err: unknown) => {
    if (!(err instanceof ServiceError)) throw err;
    return { ok: false as const, message: err.message };
  });
  if (!out.ok) for (const r of written) fail(r, out.message);
  else for (const r of written) r.message = "Written to the FreePBX database and Asterisk's database (AstDB)";
  return rows;
}

/** Core's entries of an extension with the keys its item owns put (`set`) with the console's values. */
export function withOwned(entries: AstdbEntry[], item: SqlItem | undefined): AstdbEntry[] {
  const owned = new Map((item?.astdb ?? []).map((a) => [`${a.family}/${a.key}`, a.value]));
  if (!owned.size) return entries;
  const out = entries.map((e) => {
    const value = owned.get(`${e.family}/${e.key}`);
    if (value === undefined) return e;
    owned.delete(`${e.family}/${e.key}`);
    return { ...e, value, mode: "set" as const };
  });
  for (const [path, value] of owned) {
    const [family, ...key] = path.split("/");
    out.push({ family: family as AstdbEntry["family"], key: key.join("/"), value, mode: "set" });
  }
  return out;
}

/** The AstDB keys FreePBX's own add puts for a ring group (`Ringgroups::add()`) and a queue (`queues_add()`). */
const CALL_FLOW_ASTDB = {
  ringGroup: { family: "RINGGROUP", keys: RINGGROUP_ASTDB },
  queue: { family: "QPENALTY", keys: QUEUE_ASTDB },
} as const;

/**
 * Completes the ring groups and queues just written: the AstDB keys FreePBX's own add puts
 * (`RINGGROUP/<n>/changecid` and `…/fixedcid`, `QPENALTY/<n>/dynmemberonly`: ownership.ts `RINGGROUP_ASTDB`,
 * `QUEUE_ASTDB`), in one batch, each only when absent, so a mode chosen in FreePBX survives. An object whose
 * keys could not be written is failed with the reason (its rows stay: the dialplan then reads the modes as
 * FreePBX's defaults, and the next deploy completes it).
 */
async function completeCallFlows(remote: PbxRemote, results: DeployItemResult[]): Promise<void> {
  const done = results.filter((r) => (r.kind === "ringGroup" || r.kind === "queue") && r.status === "success");
  if (!done.length) return;
  const entries: AstdbEntry[] = done.flatMap((r) => {
    const { family, keys } = CALL_FLOW_ASTDB[r.kind as keyof typeof CALL_FLOW_ASTDB];
    return keys.map(([key, value]) => ({ family, key: `${r.name}/${key}`, value, mode: "add" as const }));
  });
  const out = await remote.writeAstdb(entries).catch((err: unknown) => {
    if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
    return { ok: false as const, message: err.message };
  });
  for (const r of done) {
    if (out.ok) r.message = "Written to the FreePBX database and Asterisk's database (AstDB)";
    else {
      r.status = "failed";
      r.message = `Saved in the FreePBX database, but Asterisk's database (AstDB) was not written: ${out.message}`;
    }
  }
}

/** Trunk status becomes what the PBX reports: Asterisk's registration state, else enabled/disabled from fwconsole. */
async function updateTrunkStatus(deps: Pick<Deps, "db" | "events">, remote: PbxRemote, results: DeployItemResult[]) {
  const deployed = results.filter((r) => r.kind === "trunk" && r.status === "success").map((r) => r.name);
  if (!deployed.length) return;
  const registrations = await remote.registrations().catch(() => null);
  const listed = await remote.trunkList().catch(() => []);
  for (const name of deployed) {
    const channel = trunkChannelId(name);
    const entry = listed.find((t) => t.channelid === channel || t.channelid === name);
    const status =
      registrations?.get(channel) ?? (entry ? (entry.disabled === "on" ? "disabled" : "deployed") : "not on PBX");
    deps.db.update(trunks).set({ status }).where(eq(trunks.name, name)).run();
  }
  deps.events.publish({ type: "trunks-updated", data: { source: "deploy" } });
}

/** Writes the items through the FreePBX API, one at a time, then reloads (`afterCommit` once every item is done). */
export async function deployOverGraphql(
  deps: DeployDeps,
  items: SqlItem[],
  progress?: JobProgress,
  hooks: WriteHooks = {},
): Promise<DeployOutcome> {
  const client = clients.freepbx(
    deps,
    undefined,
    deadline("Deploying through the FreePBX API", GRAPHQL_DEPLOY_DEADLINE_MS),
  );
  const results: DeployItemResult[] = [];
  let book: RefBook | undefined;
  for (const item of items) {
    const stop = progress?.stopped();
    if (stop) {
      const skipped = itemResult(item, "failed", notReached(stop), null);
      results.push(skipped);
      progress?.result(skipped);
      continue;
    }
    progress?.item(item.label);
    try {
      if (item.delete && (item.kind === "extension" || item.kind === "inboundRoute")) {
        results.push(itemResult(item, "success", await deleteGql(client, item.kind, item.key), "graphql"));
      } else if (item.kind === "extension") {
        const row = deps.db.select().from(extensions).where(eq(extensions.extension, item.key)).get();
        if (!row) throw new ServiceError("FreePBX", "The extension was deleted meanwhile");
        const opened = withOpenSecret(deps.box, row);
        results.push(itemResult(item, "success", await deployExtensionGql(client, opened), "graphql"));
      } else if (item.kind === "inboundRoute") {
        const row = deps.db
          .select()
          .from(inboundRoutes)
          .all()
          .find((r) => (r.didNumber ?? "") === item.key);
        if (!row) throw new ServiceError("FreePBX", "The route was deleted meanwhile");
        // FreePBX's id of an IVR, announcement or time condition: the one recorded when it was deployed (ADR 0059).
        book ??= refBook(deps.db, managedOf(deps.db, ["ivr", "announcement", "timeCondition"]));
        const to = recordedDestination({ kind: row.destinationType, target: row.destination }, book);
        if ("reason" in to) throw new ServiceError("FreePBX", to.reason);
        results.push(itemResult(item, "success", await deployInboundGql(client, row, to.value), "graphql"));
      } else {
        results.push(
          itemResult(
            item,
            "failed",
            "FreePBX's API cannot write this: configure the PBX host (SSH) in API Settings",
            null,
          ),
        );
      }
    } catch (err) {
      // An object a route sends calls to deleted since the plan: that route fails with why.
      if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
      results.push(itemResult(item, "failed", err.message, "graphql"));
    }
    progress?.result(results.at(-1) as DeployItemResult);
  }
  await hooks.afterCommit?.(results);
  let reload: ReloadResult | null = null;
  const wrote = results.some((r) => r.status === "success");
  const stop = wrote ? progress?.stopped() : null;
  if (stop) for (const r of results) if (r.status === "success") r.message += `; not reloaded (${stop})`;
  if (wrote && !stop) {
    progress?.item("Reloading FreePBX (doreload)");
    const r = await reloadGql(client, GRAPHQL_RELOAD_TIMEOUT_MS).catch((err: Error) => ({
      ok: false,
      output: err.message,
    }));
    reload = { ok: r.ok, via: "graphql", exitCode: null, output: r.output, reason: r.ok ? null : r.output };
  }
  return { results, reload };
}

/** Which ways to the PBX are configured; `Invalid` when none is (checked before a deployment job starts, too). */
export function deployPaths(deps: Pick<DeployDeps, "credentials">): { ssh: boolean; graphql: boolean } {
  const ssh = deps.credentials.isConfigured("ssh");
  const graphql = deps.credentials.isConfigured("freepbx");
  if (!ssh && !graphql) {
    throw new Invalid(
      "No way to reach the PBX: configure the PBX host (SSH) or the FreePBX GraphQL API in API Settings.",
    );
  }
  return { ssh, graphql };
}

/** What the deploy routes name: one kind, or everything but PTT groups (the same as a plan's target). */
export type DeployTarget = DeployJobTarget;

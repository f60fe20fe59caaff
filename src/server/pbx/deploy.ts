/**
 * Deployment to the live PBX. Over SSH: all selected items in ONE MariaDB
 * transaction; when MariaDB names a failing line, that item is reported with
 * the reason and the batch is retried without it, so nothing is half-written.
 * Then `fwconsole reload`. Without SSH, extensions and inbound routes go
 * through the FreePBX GraphQL API; the results say which path each item took.
 */
import { eq } from "drizzle-orm";
import { extensions, inboundRoutes, trunks } from "../../db/schema";
import type {
  DeployAllResponse,
  DeployGroupResult,
  DeployItemResult,
  DeployKind,
  DeployResponse,
  ReloadResult,
} from "../../shared/pbx";
import { deadline, ServiceError } from "../clients/http";
import type { Deps } from "../domain/deps";
import { Invalid } from "../domain/errors";
import { type ClientDeps, clients } from "../integrations/outside";
import { withOpenSecret } from "../inventory/sip-secrets";
import { type JobProgress, notReached } from "../jobs/progress";
import { type AstdbEntry, astdbEntries, extensionRowsSql, parseExtensionRows } from "./astdb";
import { type ItemKind, MISSING_TRUNK_MARK, type SqlItem } from "./entities";
import { inventory, type Selection } from "./generate";
import { deployExtensionGql, deployInboundGql, reloadGql } from "./graphql-deploy";
import { type PbxRemote, withPbxHost } from "./host";
import { buildScript } from "./script";
import { UnsafeValueError } from "./sql";

/** What a deployment uses: the console's rows, the event hub, and what the FreePBX API client needs. */
export type DeployDeps = ClientDeps & Pick<Deps, "db" | "events" | "box">;

export const GRAPHQL_RELOAD_TIMEOUT_MS = 60_000;
/** The overall deadline of a deployment through the FreePBX API (every item, then the reload). */
export const GRAPHQL_DEPLOY_DEADLINE_MS = 5 * 60_000;

export interface DeployOutcome {
  results: DeployItemResult[];
  reload: ReloadResult | null;
}

const result = (
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

function group(results: DeployItemResult[], kind: DeployKind): DeployGroupResult {
  const mine = results.filter((r) => r.kind === kind);
  return {
    deployed: mine.filter((r) => r.status === "success").length,
    failed: mine.filter((r) => r.status === "failed").length,
    results: mine,
  };
}

function explain(message: string, script: string, line: number | null): string {
  const text = line ? (script.split("\n")[line - 1] ?? "") : "";
  if (text.includes(MISSING_TRUNK_MARK)) return "The route's trunk is not on the PBX yet: deploy the trunk first";
  return message;
}

function deployOverSsh(deps: DeployDeps, items: SqlItem[], progress?: JobProgress): Promise<DeployOutcome> {
  progress?.item("Connecting to the PBX host");
  return withPbxHost(
    deps,
    async (remote) => {
      const results: DeployItemResult[] = [];
      let pending = [...items];
      while (pending.length > 0) {
        // Cancel and deadline act before the transaction (all or nothing) or before the reload (ADR 0024).
        const stop = progress?.stopped();
        if (stop) {
          for (const item of pending) results.push(result(item, "failed", notReached(stop), null));
          break;
        }
        progress?.item(`Writing ${pending.length} item(s) in one transaction`);
        const script = buildScript(pending);
        const run = await remote.runScript(script);
        if (run.ok) {
          for (const item of pending) results.push(result(item, "success", "Written to the FreePBX database", "ssh"));
          break;
        }
        const index = run.line === null ? undefined : script.lineToItem.get(run.line);
        if (index === undefined) {
          // Not attributable to one item (e.g. access denied): the whole batch rolled back.
          for (const item of pending) results.push(result(item, "failed", run.message, "ssh"));
          pending = [];
          break;
        }
        const bad = pending[index] as SqlItem;
        results.push(result(bad, "failed", `${explain(run.message, script.text, run.line)} (rolled back)`, "ssh"));
        pending = pending.filter((_, i) => i !== index);
      }
      await completeExtensions(remote, results);
      for (const r of results) progress?.result(r);
      const wrote = results.some((r) => r.status === "success");
      let reload: ReloadResult | null = null;
      const stop = wrote ? progress?.stopped() : null;
      if (stop) for (const r of results) if (r.status === "success") r.message += `; not reloaded (${stop})`;
      if (wrote && !stop) {
        progress?.item("Reloading FreePBX (fwconsole reload)");
        const r = await remote.reload();
        reload = { ok: r.ok, via: "ssh", exitCode: r.exitCode, output: r.output.slice(-4000) };
        if (!r.ok) {
          for (const res of results) {
            if (res.status === "success") {
              res.status = "failed";
              res.message = `Saved in the FreePBX database, but fwconsole reload failed (exit ${r.exitCode}): ${r.output.split("\n").at(-1) ?? ""}`;
            }
          }
        } else {
          await updateTrunkStatus(deps, remote, results);
        }
      }
      return { results, reload };
    },
    { operation: "Deploying to the PBX host" },
  );
}

/**
 * Completes the extensions just written (ADR 0023): their AstDB entries, derived from their
 * rows as they now are on the PBX. An extension whose AstDB could not be written is failed
 * with the reason (its rows stay merged: running the deploy again completes it).
 */
async function completeExtensions(remote: PbxRemote, results: DeployItemResult[]) {
  const done = results.filter((r) => r.kind === "extension" && r.status === "success");
  if (!done.length) return;
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
    return;
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
      entries.push(...astdbEntries(row));
      written.push(r);
    } catch (err) {
      if (!(err instanceof UnsafeValueError)) throw err;
      fail(r, err.message);
    }
  }
  const out = await remote.writeAstdb(entries).catch((err: unknown) => {
    if (!(err instanceof ServiceError)) throw err;
    return { ok: false as const, message: err.message };
  });
  if (!out.ok) for (const r of written) fail(r, out.message);
  else for (const r of written) r.message = "Written to the FreePBX database and Asterisk's database (AstDB)";
}

/** Trunk status becomes what the PBX reports: Asterisk's registration state, else enabled/disabled from fwconsole. */
async function updateTrunkStatus(deps: Pick<Deps, "db" | "events">, remote: PbxRemote, results: DeployItemResult[]) {
  const deployed = results.filter((r) => r.kind === "trunk" && r.status === "success").map((r) => r.name);
  if (!deployed.length) return;
  const registrations = await remote.registrations().catch(() => null);
  const listed = await remote.trunkList().catch(() => []);
  for (const name of deployed) {
    const channel = name.replace(/ /g, "_");
    const entry = listed.find((t) => t.channelid === channel || t.channelid === name);
    const status =
      registrations?.get(channel) ?? (entry ? (entry.disabled === "on" ? "disabled" : "deployed") : "not on PBX");
    deps.db.update(trunks).set({ status }).where(eq(trunks.name, name)).run();
  }
  deps.events.publish({ type: "trunks-updated", data: { source: "deploy" } });
}

async function deployOverGraphql(deps: DeployDeps, items: SqlItem[], progress?: JobProgress): Promise<DeployOutcome> {
  const client = clients.freepbx(
    deps,
    undefined,
    deadline("Deploying through the FreePBX API", GRAPHQL_DEPLOY_DEADLINE_MS),
  );
  const results: DeployItemResult[] = [];
  for (const item of items) {
    const stop = progress?.stopped();
    if (stop) {
      const skipped = result(item, "failed", notReached(stop), null);
      results.push(skipped);
      progress?.result(skipped);
      continue;
    }
    progress?.item(item.label);
    try {
      if (item.kind === "extension") {
        const row = deps.db.select().from(extensions).where(eq(extensions.extension, item.key)).get();
        if (!row) throw new ServiceError("FreePBX", "The extension was deleted meanwhile");
        const opened = withOpenSecret(deps.box, row);
        results.push(result(item, "success", await deployExtensionGql(client, opened), "graphql"));
      } else if (item.kind === "inboundRoute") {
        const row = deps.db
          .select()
          .from(inboundRoutes)
          .all()
          .find((r) => (r.didNumber ?? "") === item.key);
        if (!row) throw new ServiceError("FreePBX", "The route was deleted meanwhile");
        results.push(result(item, "success", await deployInboundGql(client, row), "graphql"));
      } else {
        results.push(
          result(item, "failed", "FreePBX's API cannot write this: configure the PBX host (SSH) in API Settings", null),
        );
      }
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      results.push(result(item, "failed", err.message, "graphql"));
    }
    progress?.result(results.at(-1) as DeployItemResult);
  }
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
    reload = { ok: r.ok, via: "graphql", exitCode: null, output: r.output };
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

/** Deploys the selected kinds; refused items (values FreePBX cannot hold) fail without touching the PBX. */
export async function deploy(deps: DeployDeps, select: Selection, progress?: JobProgress): Promise<DeployOutcome> {
  const { ssh } = deployPaths(deps);
  const inv = inventory(deps.db, deps.box, select);
  const refused = inv.refused.map((r) => result({ kind: r.kind, key: r.key, label: r.key }, "failed", r.reason, null));
  progress?.total(inv.items.length + refused.length);
  for (const r of refused) progress?.result(r);
  if (inv.items.length === 0) return { results: refused, reload: null };
  try {
    const outcome = ssh
      ? await deployOverSsh(deps, inv.items, progress)
      : await deployOverGraphql(deps, inv.items, progress);
    return { results: [...outcome.results, ...refused], reload: outcome.reload };
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    // Could not reach the PBX at all: every item failed with that reason, nothing was written.
    const failed = inv.items.map((i) => result(i, "failed", err.message, ssh ? "ssh" : "graphql"));
    return { results: [...failed, ...refused], reload: null };
  }
}

/** What the deploy routes name: one kind, or everything but PTT groups. */
export type DeployTarget = "trunks" | "extensions" | "ptt-groups" | "all";

const TARGET_KINDS = {
  trunks: "trunk",
  extensions: "extension",
  "ptt-groups": "pttGroup",
} as const satisfies Record<Exclude<DeployTarget, "all">, ItemKind>;
const ALL_KINDS: ItemKind[] = ["trunk", "extension", "outboundRoute", "inboundRoute"];

/**
 * Deploys a target, tells every console that the PBX changed (`sync-status`),
 * and answers with the results grouped by kind.
 */
export async function deployTarget(deps: DeployDeps, target: "all", progress?: JobProgress): Promise<DeployAllResponse>;
export async function deployTarget(
  deps: DeployDeps,
  target: Exclude<DeployTarget, "all">,
  progress?: JobProgress,
): Promise<DeployResponse>;
export async function deployTarget(
  deps: DeployDeps,
  target: DeployTarget,
  progress?: JobProgress,
): Promise<DeployAllResponse | DeployResponse> {
  const kinds = target === "all" ? ALL_KINDS : [TARGET_KINDS[target]];
  const outcome = await deploy(deps, Object.fromEntries(kinds.map((k) => [k, true])), progress);
  deps.events.publish({ type: "sync-status", data: { deploy: target, reload: outcome.reload?.ok ?? null } });
  if (target === "all") {
    return {
      trunks: group(outcome.results, "trunk"),
      extensions: group(outcome.results, "extension"),
      outboundRoutes: group(outcome.results, "outboundRoute"),
      inboundRoutes: group(outcome.results, "inboundRoute"),
      reload: outcome.reload,
    };
  }
  return { ...group(outcome.results, TARGET_KINDS[target]), reload: outcome.reload };
}

/**
 * Roll back (ADR 0026). `rollbackBackup` (a job) deletes the current rows of a backup's scopes and re-inserts
 * the snapshot rows with UNHEX literals, in one MariaDB transaction; then it deletes the AstDB trees and puts
 * the snapshot's entries back, puts the voicemail.conf mailbox lines back, reloads FreePBX, and marks the
 * backup restored. A backup is refused (409) once restored, and while a newer, not rolled back deployment
 * touched the same objects (roll that back first).
 */
import { eq } from "drizzle-orm";
import { configBackups, jobs, pbxObjects } from "../../../db/schema";
import type { RollbackSummary } from "../../../shared/deploy-history";
import type { JobItemResult } from "../../../shared/jobs";
import type { ReloadResult } from "../../../shared/pbx";
import { ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { Conflict, Invalid } from "../../core/errors";
import type { JobProgress } from "../../jobs/progress";
import { SESSION_SETUP } from "../deploy/script";
import { type PbxRemote, withPbxHost } from "../host/host";
import { UnsafeValueError } from "../host/sql";
import { restoreVoicemail, sha256Of, type VoicemailSnapshot } from "../host/voicemail";
import { rekeyManaged } from "../objects/managed";
import { BACKUP_TABLES, conditions, ident, idsByName, type StoredAstdb, type StoredRows, type Table } from "./format";
import { type BackupRow, blocker, loadBackup } from "./history";

/**
 * Checks a roll back can start: the backup exists (404), is not restored and no newer deployment of the
 * same objects is in the way (409), and the PBX host is configured (400: a roll back needs SSH).
 */
export function checkRollback(deps: Pick<Deps, "db" | "credentials">, id: number): BackupRow {
  const b = loadBackup(deps.db, id);
  const job = b.jobId === null ? undefined : deps.db.select().from(jobs).where(eq(jobs.id, b.jobId)).get();
  const why = blocker(deps.db, b, job);
  if (why) throw new Conflict(`Backup ${id} cannot be rolled back: ${why}`);
  if (!deps.credentials.isConfigured("ssh"))
    throw new Invalid("Rolling back needs the PBX host (SSH): configure it in API Settings.");
  return b;
}

/** A recorded PBX id as the scope's condition may hold it (digits only). */
const isId = (v: unknown): v is string => typeof v === "string" && /^\d{1,9}$/.test(v);

/** Puts the backed-up mailbox lines back (one compare-and-swap write, then `voicemail reload`); the failure, or null. */
async function restoreVoicemailLines(remote: PbxRemote, snap: VoicemailSnapshot): Promise<string | null> {
  try {
    const { path, content } = await remote.readVoicemailConf();
    if (path !== snap.path) return `voicemail.conf is now ${path}, the backup has ${snap.path}`;
    if (content === null) return `${path} does not exist`;
    const restored = restoreVoicemail(content, snap);
    if (restored === content) return null;
    const out = await remote.writeVoicemailConf(path, sha256Of(content), restored);
    if (!out.ok) return out.message;
    await remote.voicemailReload().catch(() => null);
    return null;
  } catch (err) {
    if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
    return err.message;
  }
}

const CHUNK = 200;

/** The restore script: per table, delete the scope's current rows, insert the snapshot's (UNHEX). */
function restoreScript(
  stored: StoredRows,
  where: Map<Table, string>,
): { text: string; lineToItem: Map<number, number> } {
  const lines = [...SESSION_SETUP, "START TRANSACTION;"];
  for (const t of BACKUP_TABLES) {
    const cond = where.get(t);
    if (!cond) continue;
    lines.push(`DELETE FROM ${ident(t)} WHERE ${cond};`);
    const snap = stored.tables.find((x) => x.table === t);
    if (!snap?.rows.length) continue;
    const cols = snap.columns.map(ident).join(", ");
    for (let i = 0; i < snap.rows.length; i += CHUNK) {
      const values = snap.rows.slice(i, i + CHUNK).map((r) => {
        if (r.length !== snap.columns.length) throw new UnsafeValueError(`a ${t} row of the backup is damaged`);
        return `(${r
          .map((v) => {
            if (v === null) return "NULL";
            if (!/^(?:[0-9A-F]{2})*$/i.test(v)) throw new UnsafeValueError(`a ${t} value of the backup is damaged`);
            return `UNHEX('${v}')`;
          })
          .join(", ")})`;
      });
      lines.push(`INSERT INTO ${ident(t)} (${cols}) VALUES ${values.join(", ")};`);
    }
  }
  lines.push("UPDATE admin SET value = 'true' WHERE variable = 'need_reload';", "COMMIT;", "");
  return { text: lines.join("\n"), lineToItem: new Map() };
}

export type RollbackDeps = Pick<Deps, "db" | "events" | "now" | "credentials">;

/**
 * Restores a backup exactly (a job: `jobs/rollback-jobs.ts`). Never throws for a PBX that cannot be
 * reached: the summary says why and nothing was changed.
 */
export async function rollbackBackup(
  deps: RollbackDeps,
  id: number,
  by: string,
  progress?: JobProgress,
): Promise<RollbackSummary> {
  const b = checkRollback(deps, id);
  const stored = b.rows as StoredRows;
  if (stored?.version !== 1) throw new Invalid(`Backup ${id} was written by another version and cannot be restored`);
  const astdb = b.astdb as StoredAstdb | null;
  const labels = stored.objects.map((o) => o.label);
  progress?.total(labels.length);
  const results: JobItemResult[] = [];
  const finish = (status: JobItemResult["status"], message: string) => {
    for (const label of labels) results.push({ label, status, message });
  };
  let reload: ReloadResult | null = null;
  const summary = (): RollbackSummary => {
    for (const r of results) progress?.result(r);
    const failed = results.filter((r) => r.status === "failed").length;
    return { backupId: id, restored: results.length - failed, failed, results, reload };
  };
  progress?.item("Connecting to the PBX host");
  try {
    await withPbxHost(
      deps,
      async (remote) => {
        const stop = progress?.stopped();
        if (stop) {
          finish("failed", `Not done: the job stopped before the roll back (${stop})`);
          return;
        }
        // Objects the apply created have ids only now: found again the way the apply found them.
        const found = await idsByName(remote, stored.objects);
        const records = deps.db.select().from(pbxObjects).all();
        const extra = new Map<string, string[]>();
        stored.objects.forEach((o, i) => {
          if (!o.ref) return;
          const byName = o.ref.byName ? (found[o.ref.kind].get(o.ref.name) ?? []) : [];
          const record = records.find((r) => r.kind === o.kind && r.key === o.key)?.pbxId;
          extra.set(String(i), [...byName, ...(isId(record) ? [record] : [])]);
        });
        progress?.item(`Restoring ${labels.length} object(s) in one transaction`);
        const run = await remote.runScript(restoreScript(stored, conditions(stored.objects, extra)));
        if (!run.ok) {
          finish("failed", `Not restored (the transaction was rolled back): ${run.message}`);
          return;
        }
        deps.db
          .update(configBackups)
          .set({ restoredAt: new Date(deps.now()), restoredBy: by })
          .where(eq(configBackups.id, id))
          .run();
        // A moved inbound route is back on its old DID: so is its record (else the next deploy would miss it).
        for (const o of stored.objects)
          if (o.movedFrom !== undefined) rekeyManaged(deps.db, o.kind, o.key, o.movedFrom);
        const astdbFailed = new Map<string, string>();
        if (astdb) {
          const extLabels = stored.objects.filter((o) => o.extension !== null).map((o) => o.label);
          if (astdb.entries === null) {
            for (const l of extLabels)
              astdbFailed.set(l, `Asterisk's database (AstDB) was not backed up (${astdb.error}): left as it is`);
          } else {
            progress?.item("Restoring Asterisk's database (AstDB)");
            const del = await remote.deleteAstdbTrees(astdb.trees);
            const put = del.ok ? await remote.restoreAstdb(astdb.entries) : del;
            if (!put.ok)
              for (const l of extLabels)
                astdbFailed.set(l, `Asterisk's database (AstDB) was not restored: ${put.message}`);
          }
        }
        const vm = stored.voicemail;
        if (vm) {
          const extLabels = stored.objects.filter((o) => o.extension !== null).map((o) => o.label);
          let why = `it was not backed up (${vm.error}): left as it is`;
          if (vm.snapshot) {
            progress?.item("Restoring voicemail mailboxes (voicemail.conf)");
            why = (await restoreVoicemailLines(remote, vm.snapshot)) ?? "";
          }
          if (why)
            for (const l of extLabels) {
              const text = `voicemail.conf was not restored: ${why}`;
              astdbFailed.set(l, astdbFailed.has(l) ? `${astdbFailed.get(l)}; ${text}` : text);
            }
        }
        progress?.item("Reloading FreePBX (fwconsole reload)");
        const r = await remote.reload({ onWait: (item) => progress?.item(item) });
        reload = { ok: r.ok, via: "ssh", exitCode: r.exitCode, output: r.output.slice(-4000), reason: r.reason };
        for (const label of labels) {
          const why = astdbFailed.get(label);
          if (why) results.push({ label, status: "failed", message: `Rows restored, but ${why}` });
          else if (!r.ok)
            results.push({
              label,
              status: "failed",
              message: `Restored in the FreePBX database, but fwconsole reload failed (exit ${r.exitCode}): ${r.reason}`,
            });
          else results.push({ label, status: "success", message: "Restored as it was before the deployment" });
        }
      },
      { operation: "Rolling back on the PBX host" },
    );
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    // Could not reach the PBX (or it went away before the transaction committed): nothing was restored.
    results.length = 0;
    const restored = loadBackup(deps.db, id).restoredAt !== null;
    finish("failed", restored ? `Restored, but then: ${err.message}` : `Not restored: ${err.message}`);
  }
  deps.events.publish({
    type: "sync-status",
    data: { rollback: id, reload: (reload as ReloadResult | null)?.ok ?? null },
  });
  return summary();
}

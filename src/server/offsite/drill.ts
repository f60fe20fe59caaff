/**
 * The restore drill (ADR 0064): a copy is fetched back from its target and checked the way a restore would need
 * it, without touching the live database. The encrypted download goes to a temp file under DATA_DIR (0600) while
 * it is hashed; its SHA-256 must be the one recorded at upload (the target holds what was sent); it is decrypted
 * with the key of its header (every chunk's tag must pass) into a second temp file; a console database must then
 * be one this binary can run (backup/inspect.ts, on that private copy), a PBX backup a document of ours. Both temp
 * files are deleted whatever happens. The result is kept per target (and when a drill last passed).
 */
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { and, desc, eq } from "drizzle-orm";
import { backupUploads } from "../../db/schema";
import type { OffsiteDrill, OffsiteDrillRequest, OffsiteQueued } from "../../shared/offsite-backups";
import { recordAudit } from "../accounts/audit";
import { inspectDatabaseFile } from "../backup/inspect";
import { deadline } from "../clients/http";
import type { Deps } from "../core/deps";
import { Conflict, Invalid, NotFound } from "../core/errors";
import { nodeCrypto } from "../lazy-node";
import { decryptStream, readChunks } from "./envelope";
import { offsiteKeyById } from "./key";
import { offsiteQueue } from "./queue";
import { loadTargetRow, openRemote, type Remote, recordDrill, withoutSecret } from "./store";

type DrillDeps = Pick<Deps, "db" | "box" | "now" | "events" | "config">;

/** A drill may take this long in all (the download of a large copy), then it fails. */
export const DRILL_DEADLINE_MS = 60 * 60 * 1000;

/** Writes chunks to a new file (0600) and answers the byte count. */
async function writeAll(file: string, chunks: AsyncIterable<Uint8Array>, tap?: (c: Uint8Array) => void) {
  const fd = openSync(file, "wx", 0o600);
  let n = 0;
  try {
    for await (const c of chunks) {
      tap?.(c);
      writeSync(fd, c);
      n += c.length;
    }
  } finally {
    closeSync(fd);
  }
  return n;
}

/** A PBX backup document as uploads.ts writes it: its format line and the parts a roll back needs. */
function checkPbxDocument(text: string): string {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Invalid("the decrypted PBX backup is not JSON");
  }
  if (doc.format !== "pbx-console PBX backup" || doc.version !== 1 || !doc.rows || !Array.isArray(doc.objects)) {
    throw new Invalid("the decrypted file is not a PBX backup of pbx-console");
  }
  return `a PBX backup of ${(doc.objects as unknown[]).length} object(s) (${String(doc.target)}, ${String(doc.createdAt)})`;
}

/** Runs one drill of a target's copy; never throws (the result says what failed). */
export async function runDrill(
  deps: DrillDeps,
  targetId: number,
  uploadId: number | undefined,
  actor: string,
  stop?: AbortSignal,
): Promise<OffsiteDrill> {
  const row = loadTargetRow(deps, targetId);
  const at = new Date(deps.now()).toISOString();
  const upload = deps.db
    .select()
    .from(backupUploads)
    .where(
      and(
        eq(backupUploads.targetId, targetId),
        eq(backupUploads.state, "ok"),
        uploadId ? eq(backupUploads.id, uploadId) : undefined,
      ),
    )
    .orderBy(desc(backupUploads.startedAt), desc(backupUploads.id))
    .get();
  const tag = crypto.randomUUID();
  const encrypted = join(deps.config.dataDir, `.drill-${tag}.enc.tmp`);
  const plain = join(deps.config.dataDir, `.drill-${tag}.tmp`);
  let remote: Remote | null = null;
  let ok = false;
  let message: string;
  try {
    if (!upload) throw new Invalid("there is no good copy at this target to drill");
    const signal = AbortSignal.any([deadline(`The drill of ${row.name}`, DRILL_DEADLINE_MS), ...(stop ? [stop] : [])]);
    remote = await openRemote(deps, row, signal);
    const hash = nodeCrypto().createHash("sha256");
    const bytes = await writeAll(encrypted, remote.get(upload.name), (c) => hash.update(c));
    remote.close();
    const sha256 = hash.digest("hex");
    if (upload.sha256 && sha256 !== upload.sha256) {
      throw new Invalid(
        `the copy at the target is not the one sent: its SHA-256 is ${sha256.slice(0, 12)}…, ${upload.sha256.slice(0, 12)}… was recorded (${bytes} bytes)`,
      );
    }
    let content = "";
    await writeAll(
      plain,
      decryptStream(readChunks(Bun.file(encrypted).stream()), offsiteKeyById(deps), (h) => {
        content = h.content;
      }),
    );
    if (content === "console") {
      const s = inspectDatabaseFile(plain);
      message = `a pbx-console database this version can run: ${s.users} user(s), ${s.extensions} extension(s), ${s.migrations} migration(s)${s.upgraded ? ` (${s.upgraded} to apply)` : ""}`;
    } else {
      message = checkPbxDocument(await Bun.file(plain).text());
    }
    message = `${upload.name}: hash and every chunk's tag verified; ${message}`;
    ok = true;
  } catch (err) {
    message = withoutSecret(deps, row, `${upload ? `${upload.name}: ` : ""}${(err as Error).message}`);
  } finally {
    remote?.close();
    rmSync(encrypted, { force: true });
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${plain}${suffix}`, { force: true });
  }
  const result = recordDrill(deps, targetId, {
    at,
    ok,
    message,
    uploadId: upload?.id ?? null,
    name: upload?.name ?? null,
  });
  recordAudit(deps, {
    actor,
    action: "backup-target.drill.finished",
    outcome: ok ? "ok" : "failed",
    objectType: "backup-target",
    objectId: String(row.id),
    objectLabel: row.name,
    detail: message,
  });
  deps.events.publish({ type: "offsite-backups-updated", data: { targetId } });
  return result;
}

/**
 * POST /api/backups/targets/{id}/drill: queued behind any upload; the result comes as the target's `lastDrill`.
 * 404 for a copy that is not this target's good one, 409 while this target is busy.
 */
export function queueDrill(deps: DrillDeps, targetId: number, req: OffsiteDrillRequest, actor: string): OffsiteQueued {
  const row = loadTargetRow(deps, targetId);
  if (req.uploadId !== undefined) {
    const u = deps.db
      .select({ id: backupUploads.id })
      .from(backupUploads)
      .where(and(eq(backupUploads.id, req.uploadId), eq(backupUploads.targetId, row.id), eq(backupUploads.state, "ok")))
      .get();
    if (!u) throw new NotFound("Copy", `No good copy ${req.uploadId} at ${row.name}`);
  }
  const queue = offsiteQueue(deps.db);
  const busy = queue.busy(row.id);
  if (busy) throw new Conflict(`${row.name} has ${busy === "upload" ? "an upload" : "a restore drill"} under way`);
  queue.enqueue({
    targetId: row.id,
    kind: "drill",
    run: async (stop) => {
      await runDrill(deps, row.id, req.uploadId, actor, stop);
    },
  });
  deps.events.publish({ type: "offsite-backups-updated", data: { targetId: row.id } });
  return { queued: true, targetId: row.id };
}

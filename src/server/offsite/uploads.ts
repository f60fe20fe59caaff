/**
 * Off-site uploads (ADR 0064). A copy is the console's database (the daily backup's file, or a fresh snapshot for
 * "Upload now") or one PBX backup a deployment took (config_backups, as one JSON document), encrypted as it is
 * read (envelope.ts) and sent as it is encrypted: nothing is held whole and nothing unencrypted leaves the host.
 * Each try is a `backup_uploads` row (running → ok with bytes and SHA-256, or failed with the reason, which the
 * `backup-failed` alert reads). After a good copy the target keeps the newest `keep` of that source: older copies
 * the console itself sent (its rows) are deleted there; nothing else at the target is ever touched.
 */
import { basename } from "node:path";
import { and, desc, eq, ne } from "drizzle-orm";
import { backupTargets, backupUploads, configBackups } from "../../db/schema";
import type { BackupSource, BackupUpload, BackupUploadsQuery, OffsiteQueued } from "../../shared/offsite-backups";
import { recordAudit, SYSTEM_ACTOR } from "../accounts/audit";
import { BACKUP_INTERVAL_MS, backupFileName, backupForDownload, utcStamp } from "../backup/snapshot";
import { deadline } from "../clients/http";
import type { Deps } from "../core/deps";
import { Conflict, Invalid } from "../core/errors";
import { nodeCrypto } from "../lazy-node";
import { encryptStream, type OffsiteKey, readChunks } from "./envelope";
import { registerOffsiteHooks } from "./hooks";
import { currentOffsiteKey } from "./key";
import { closeOffsiteQueue, offsiteQueue } from "./queue";
import { loadTargetRow, openRemote, pathOf, type Remote, type TargetRow, whereOf, withoutSecret } from "./store";

export type OffsiteDeps = Pick<Deps, "db" | "box" | "now" | "events" | "config">;

/** One upload may take this long in all (a large database over a slow line), then it fails. */
export const UPLOAD_DEADLINE_MS = 3 * 60 * 60 * 1000;
/** A running upload's byte count is stored (and published) at most this often. */
const PROGRESS_MS = 1000;
export const NO_KEY_MESSAGE =
  "No off-site key: make one under Settings → Off-site backups (copies are encrypted with it before they leave)";

type Upload = typeof backupUploads.$inferSelect;

/** What a copy is made of. */
export type CopySource = { source: "console"; file?: string } | { source: "pbx"; backupId: number };

interface Plaintext {
  /** The file name at the target (before the target's folder). */
  name: string;
  chunks: AsyncIterable<Uint8Array>;
}

/** A PBX backup as one JSON document: every column of its config_backups row (ADR 0026's format inside). */
export function pbxBackupDocument(deps: Pick<Deps, "db">, backupId: number): { name: string; text: string } | null {
  const b = deps.db.select().from(configBackups).where(eq(configBackups.id, backupId)).get();
  if (!b) return null;
  const doc = {
    format: "pbx-console PBX backup",
    version: 1,
    id: b.id,
    jobId: b.jobId,
    createdAt: b.createdAt.toISOString(),
    createdBy: b.createdBy,
    target: b.target,
    objects: b.objects,
    restoredAt: b.restoredAt?.toISOString() ?? null,
    restoredBy: b.restoredBy,
    rows: b.rows,
    astdb: b.astdb,
  };
  return { name: `pbx-backup-${b.id}-${utcStamp(b.createdAt.getTime())}.json`, text: JSON.stringify(doc) };
}

/** The plaintext of a copy, read as it is sent. */
async function plaintextOf(deps: OffsiteDeps, src: CopySource): Promise<Plaintext> {
  if (src.source === "pbx") {
    const doc = pbxBackupDocument(deps, src.backupId);
    if (!doc) throw new Invalid(`The PBX backup ${src.backupId} is no longer stored`);
    const bytes = Buffer.from(doc.text, "utf8");
    return {
      name: doc.name,
      chunks: (async function* () {
        yield bytes;
      })(),
    };
  }
  if (src.file && (await Bun.file(src.file).exists())) {
    return { name: basename(src.file), chunks: readChunks(Bun.file(src.file).stream()) };
  }
  // A fresh snapshot, read from its unlinked temp file.
  const snapshot = backupForDownload(deps);
  return { name: snapshot.filename, chunks: readChunks(snapshot.stream) };
}

/** A name not used by another copy at this target (two copies in the same second get `-2`, `-3`…). */
function freeName(deps: Pick<Deps, "db">, targetId: number, path: string): string {
  const taken = new Set(
    deps.db
      .select({ name: backupUploads.name })
      .from(backupUploads)
      .where(and(eq(backupUploads.targetId, targetId), ne(backupUploads.state, "deleted")))
      .all()
      .map((r) => r.name),
  );
  if (!taken.has(path)) return path;
  const dot = path.indexOf(".", path.lastIndexOf("/") + 1);
  const [stem, ext] = dot > 0 ? [path.slice(0, dot), path.slice(dot)] : [path, ""];
  for (let n = 2; ; n++) if (!taken.has(`${stem}-${n}${ext}`)) return `${stem}-${n}${ext}`;
}

/** Passes chunks on while hashing and counting them. */
async function* tapped(
  chunks: AsyncIterable<Uint8Array>,
  hash: ReturnType<ReturnType<typeof nodeCrypto>["createHash"]>,
  onBytes: (n: number) => void,
): AsyncGenerator<Uint8Array> {
  for await (const c of chunks) {
    hash.update(c);
    onBytes(c.length);
    yield c;
  }
}

function changed(deps: Pick<Deps, "events">, targetId: number): void {
  deps.events.publish({ type: "offsite-backups-updated", data: { targetId } });
}

/**
 * Deletes, at the target, this source's copies beyond the newest `keep` that the console sent and has not
 * deleted yet (its own rows, newest first). A copy that cannot be deleted stays `ok` with the reason and is tried
 * again after the next upload.
 */
async function applyRetention(
  deps: OffsiteDeps,
  remote: Remote,
  row: TargetRow,
  source: BackupSource,
): Promise<number> {
  const copies = deps.db
    .select()
    .from(backupUploads)
    .where(and(eq(backupUploads.targetId, row.id), eq(backupUploads.source, source), eq(backupUploads.state, "ok")))
    .orderBy(desc(backupUploads.startedAt), desc(backupUploads.id))
    .all();
  let deleted = 0;
  for (const old of copies.slice(row.keep)) {
    try {
      await remote.remove(old.name);
      deps.db.update(backupUploads).set({ state: "deleted", error: null }).where(eq(backupUploads.id, old.id)).run();
      deleted++;
    } catch (err) {
      const error = withoutSecret(deps, row, `Kept past the retention: deleting it failed (${(err as Error).message})`);
      deps.db.update(backupUploads).set({ error }).where(eq(backupUploads.id, old.id)).run();
    }
  }
  return deleted;
}

/**
 * Sends one copy to one target and records it; never throws (a failure is the row's `failed` state and its
 * reason). `actor` is who asked (the audit's actor of the result).
 */
export async function uploadCopy(
  deps: OffsiteDeps,
  targetId: number,
  src: CopySource,
  actor: string,
  stop?: AbortSignal,
): Promise<Upload | null> {
  const row = deps.db.select().from(backupTargets).where(eq(backupTargets.id, targetId)).get();
  if (!row) return null;
  const key: OffsiteKey | null = currentOffsiteKey(deps);
  const planned =
    src.source === "pbx"
      ? `pbx-backup-${src.backupId}.json`
      : src.file
        ? basename(src.file)
        : backupFileName(deps.now());
  let upload = deps.db
    .insert(backupUploads)
    .values({
      targetId,
      source: src.source,
      name: freeName(deps, targetId, pathOf(row, `${planned}.enc`)),
      state: "running",
      startedAt: new Date(deps.now()),
      keyId: key?.id ?? null,
    })
    .returning()
    .get();
  const id = upload.id;
  changed(deps, targetId);
  let remote: Remote | null = null;
  const signal = AbortSignal.any([deadline(`The upload to ${row.name}`, UPLOAD_DEADLINE_MS), ...(stop ? [stop] : [])]);
  try {
    if (!key) throw new Invalid(NO_KEY_MESSAGE);
    const plain = await plaintextOf(deps, src);
    if (plain.name !== planned) {
      const name = freeName(deps, targetId, pathOf(row, `${plain.name}.enc`));
      upload = deps.db.update(backupUploads).set({ name }).where(eq(backupUploads.id, id)).returning().get();
    }
    remote = await openRemote(deps, row, signal);
    const hash = nodeCrypto().createHash("sha256");
    let sent = 0;
    let lastProgress = deps.now();
    const progress = (n: number) => {
      sent += n;
      if (deps.now() - lastProgress < PROGRESS_MS) return;
      lastProgress = deps.now();
      deps.db.update(backupUploads).set({ bytes: sent }).where(eq(backupUploads.id, id)).run();
      changed(deps, targetId);
    };
    const bytes = await remote.put(upload.name, tapped(encryptStream(plain.chunks, key, src.source), hash, progress));
    upload = deps.db
      .update(backupUploads)
      .set({ state: "ok", bytes, sha256: hash.digest("hex"), finishedAt: new Date(deps.now()), error: null })
      .where(eq(backupUploads.id, id))
      .returning()
      .get();
    const deleted = await applyRetention(deps, remote, row, src.source);
    recordAudit(deps, {
      actor,
      action: "backup-target.upload.finished",
      outcome: "ok",
      objectType: "backup-target",
      objectId: String(row.id),
      objectLabel: row.name,
      detail: `${basename(upload.name)} (${bytes} bytes) sent to ${whereOf(row)}${deleted ? `, ${deleted} older deleted there` : ""}`,
    });
  } catch (err) {
    const error = withoutSecret(deps, row, (err as Error).message || String(err));
    upload = deps.db
      .update(backupUploads)
      .set({ state: "failed", error, finishedAt: new Date(deps.now()) })
      .where(eq(backupUploads.id, id))
      .returning()
      .get();
    recordAudit(deps, {
      actor,
      action: "backup-target.upload.finished",
      outcome: "failed",
      objectType: "backup-target",
      objectId: String(row.id),
      objectLabel: row.name,
      detail: error,
    });
  } finally {
    remote?.close();
  }
  changed(deps, targetId);
  return upload;
}

/** Queues a copy of `src` to every enabled target (PBX backups only where `includePbx`). */
export function queueCopyToAll(deps: OffsiteDeps, src: CopySource): number {
  const targets = deps.db
    .select()
    .from(backupTargets)
    .where(eq(backupTargets.enabled, true))
    .all()
    .filter((t) => src.source === "console" || t.includePbx);
  const queue = offsiteQueue(deps.db);
  for (const t of targets) {
    queue.enqueue({
      targetId: t.id,
      kind: "upload",
      run: async (stop) => {
        await uploadCopy(deps, t.id, src, SYSTEM_ACTOR, stop);
      },
    });
  }
  return targets.length;
}

/**
 * POST /api/backups/targets/{id}/upload ("Upload now"): a fresh snapshot of the console's database to this
 * target, queued; 400 without a key, 409 while this target has an upload or drill queued or running.
 */
export function queueUploadNow(deps: OffsiteDeps, targetId: number, actor: string): OffsiteQueued {
  const row = loadTargetRow(deps, targetId);
  if (!currentOffsiteKey(deps)) throw new Invalid(NO_KEY_MESSAGE);
  const queue = offsiteQueue(deps.db);
  const busy = queue.busy(row.id);
  if (busy) throw new Conflict(`${row.name} has ${busy === "upload" ? "an upload" : "a restore drill"} under way`);
  queue.enqueue({
    targetId: row.id,
    kind: "upload",
    run: async (stop) => {
      await uploadCopy(deps, row.id, { source: "console" }, actor, stop);
    },
  });
  changed(deps, row.id);
  return { queued: true, targetId: row.id };
}

export function uploadView(u: Upload, targetName: string): BackupUpload {
  return {
    id: u.id,
    targetId: u.targetId,
    targetName,
    source: u.source,
    name: u.name,
    bytes: u.bytes,
    sha256: u.sha256,
    keyId: u.keyId,
    state: u.state,
    error: u.error,
    startedAt: u.startedAt.toISOString(),
    finishedAt: u.finishedAt?.toISOString() ?? null,
  };
}

/** GET /api/backups/uploads: the newest first, of one target or all. */
export function listUploads(deps: Pick<Deps, "db">, q: BackupUploadsQuery = {}): BackupUpload[] {
  const rows = deps.db
    .select({ u: backupUploads, targetName: backupTargets.name })
    .from(backupUploads)
    .innerJoin(backupTargets, eq(backupTargets.id, backupUploads.targetId))
    .where(q.targetId ? eq(backupUploads.targetId, q.targetId) : undefined)
    .orderBy(desc(backupUploads.startedAt), desc(backupUploads.id))
    .limit(q.limit ?? 100)
    .all();
  return rows.map((r) => uploadView(r.u, r.targetName));
}

/**
 * Starts the off-site uploads with the console: after each daily backup its file goes to every enabled target,
 * after each deployment's PBX backup that backup to those that include them. With the daily backup off
 * (BACKUP_KEEP=0) a fresh snapshot goes once a day instead. Uploads left `running` by a console that stopped are
 * marked failed. Returns the function that stops it all (the running upload is aborted).
 */
export function startOffsiteBackups(deps: OffsiteDeps): () => Promise<void> {
  deps.db
    .update(backupUploads)
    .set({ state: "failed", error: "The console stopped during the upload", finishedAt: new Date(deps.now()) })
    .where(eq(backupUploads.state, "running"))
    .run();
  const unregister = registerOffsiteHooks(deps.db, {
    consoleBackup: (file) => void queueCopyToAll(deps, { source: "console", file }),
    pbxBackup: (backupId) => void queueCopyToAll(deps, { source: "pbx", backupId }),
  });
  let timer: ReturnType<typeof setInterval> | null = null;
  if (deps.config.backupKeep < 1) {
    timer = setInterval(() => queueCopyToAll(deps, { source: "console" }), BACKUP_INTERVAL_MS);
    timer.unref?.();
  }
  return async () => {
    unregister();
    if (timer) clearInterval(timer);
    await closeOffsiteQueue(deps.db);
  };
}

/**
 * Off-site backup targets (ADR 0064): an S3-compatible bucket or an SFTP server, with what is not secret in
 * `settings` and the one secret (S3 secret access key, SFTP password or private key) sealed, never returned. A
 * stored secret only goes where it was saved for: an edit that points the target elsewhere must give it again.
 * Deleting a target forgets its uploads; the copies at the target stay where they are.
 */
import { desc, eq } from "drizzle-orm";
import { backupTargets, backupUploads } from "../../db/schema";
import {
  type BackupTarget,
  type BackupTargetCreate,
  type BackupTargetTestResult,
  type BackupTargetUpdate,
  RETYPE_TARGET_SECRET_MESSAGE,
  type S3TargetSettings,
  SECRET_REQUIRED_MESSAGE,
  type SftpTargetSettings,
} from "../../shared/offsite-backups";
import { deadline } from "../clients/http";
import { privateKeyProblem } from "../clients/sftp";
import type { Deps } from "../core/deps";
import { Conflict, Invalid } from "../core/errors";
import { offsiteQueue } from "./queue";
import { loadTargetRow, openRemote, readDrills, type TargetRow, whereOf, withoutSecret } from "./store";
import { uploadView } from "./uploads";

type TargetDeps = Pick<Deps, "db" | "box" | "now" | "events">;

const secretField = (v: BackupTargetCreate | BackupTargetUpdate) =>
  v.kind === "s3" ? "secretAccessKey" : v.auth === "password" ? "password" : "privateKey";
const secretOf = (v: BackupTargetCreate | BackupTargetUpdate): string | undefined =>
  v.kind === "s3" ? v.secretAccessKey : v.auth === "password" ? v.password : v.privateKey;

function settingsOf(v: BackupTargetCreate | BackupTargetUpdate): S3TargetSettings | SftpTargetSettings {
  if (v.kind === "s3") {
    return {
      endpoint: v.endpoint,
      region: v.region,
      bucket: v.bucket,
      prefix: v.prefix,
      accessKeyId: v.accessKeyId,
      virtualHostedStyle: v.virtualHostedStyle,
    };
  }
  return {
    host: v.host,
    port: v.port,
    username: v.username,
    directory: v.directory,
    auth: v.auth,
    hostKeyFingerprint: v.hostKeyFingerprint,
  };
}

/** A private key ssh2 cannot use is a field message, not a failure at the first upload. */
async function checkSecret(v: BackupTargetCreate | BackupTargetUpdate): Promise<void> {
  if (v.kind !== "sftp" || v.auth !== "key" || v.privateKey === undefined) return;
  const problem = await privateKeyProblem(v.privateKey);
  if (problem) throw new Invalid(problem, { privateKey: problem });
}

function nameTaken(deps: Pick<Deps, "db">, name: string, except?: number): void {
  const other = deps.db.select({ id: backupTargets.id }).from(backupTargets).where(eq(backupTargets.name, name)).get();
  if (other && other.id !== except) {
    throw new Conflict(`A backup target named ${name} exists`, { name: "Another target has this name" });
  }
}

function changed(deps: Pick<Deps, "events">, targetId: number): void {
  deps.events.publish({ type: "offsite-backups-updated", data: { targetId } });
}

/** A target as the API shows it: no secret, its last copies, last drill and whether it is busy. */
function targetView(deps: Pick<Deps, "db">, row: TargetRow): BackupTarget {
  const last = deps.db
    .select()
    .from(backupUploads)
    .where(eq(backupUploads.targetId, row.id))
    .orderBy(desc(backupUploads.startedAt), desc(backupUploads.id))
    .limit(50)
    .all();
  const lastConsole = last.find((u) => u.source === "console" && (u.state === "ok" || u.state === "deleted"));
  const common = {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    includePbx: row.includePbx,
    keep: row.keep,
    hasSecret: Boolean(row.secret),
    where: whereOf(row),
    lastSuccessAt: (lastConsole?.finishedAt ?? null)?.toISOString() ?? null,
    lastUpload: last[0] ? uploadView(last[0], row.name) : null,
    lastDrill: readDrills(deps)[String(row.id)] ?? null,
    busy: offsiteQueue(deps.db).busy(row.id),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  return row.kind === "s3"
    ? { ...common, kind: "s3", settings: row.settings as unknown as S3TargetSettings }
    : { ...common, kind: "sftp", settings: row.settings as unknown as SftpTargetSettings };
}

/** GET /api/backups/targets */
export function listTargets(deps: Pick<Deps, "db">): BackupTarget[] {
  return deps.db
    .select()
    .from(backupTargets)
    .orderBy(backupTargets.name)
    .all()
    .map((row) => targetView(deps, row));
}

/** POST /api/backups/targets: its secret is required. */
export async function createTarget(deps: TargetDeps, input: BackupTargetCreate): Promise<BackupTarget> {
  const secret = secretOf(input);
  if (secret === undefined)
    throw new Invalid(SECRET_REQUIRED_MESSAGE, { [secretField(input)]: SECRET_REQUIRED_MESSAGE });
  await checkSecret(input);
  nameTaken(deps, input.name);
  const now = new Date(deps.now());
  const row = deps.db
    .insert(backupTargets)
    .values({
      name: input.name,
      kind: input.kind,
      settings: settingsOf(input) as unknown as Record<string, unknown>,
      secret: deps.box.seal(secret),
      keep: input.keep,
      includePbx: input.includePbx,
      enabled: input.enabled,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  changed(deps, row.id);
  return targetView(deps, row);
}

/** Whether the edit sends the stored secret somewhere else (another endpoint, host or port). */
function movesSecret(row: TargetRow, v: BackupTargetUpdate): boolean {
  if (v.kind === "s3") {
    const s = row.settings as unknown as S3TargetSettings;
    return s.endpoint !== v.endpoint || s.virtualHostedStyle !== v.virtualHostedStyle || s.bucket !== v.bucket;
  }
  const s = row.settings as unknown as SftpTargetSettings;
  return s.host !== v.host || s.port !== v.port || s.username !== v.username || s.auth !== v.auth;
}

/**
 * PUT /api/backups/targets/{id}: the kind cannot change; a secret left out is kept unless the target now points
 * elsewhere (400 asking for it). An SFTP server's pin is kept unless another one is given, the server changed,
 * or `forgetHostKey` asks to pin the next one seen.
 */
export async function updateTarget(deps: TargetDeps, id: number, input: BackupTargetUpdate): Promise<BackupTarget> {
  const row = loadTargetRow(deps, id);
  if (row.kind !== input.kind) {
    throw new Invalid("A target's kind cannot change: add a new target", { kind: "The kind cannot change" });
  }
  const secret = secretOf(input);
  if (secret === undefined && movesSecret(row, input)) {
    throw new Invalid(RETYPE_TARGET_SECRET_MESSAGE, { [secretField(input)]: RETYPE_TARGET_SECRET_MESSAGE });
  }
  await checkSecret(input);
  nameTaken(deps, input.name, id);
  const settings = settingsOf(input);
  if (input.kind === "sftp") {
    const stored = row.settings as unknown as SftpTargetSettings;
    const next = settings as SftpTargetSettings;
    const sameServer = stored.host === input.host && stored.port === input.port;
    if (input.forgetHostKey) next.hostKeyFingerprint = null;
    else if (!input.hostKeyFingerprint && sameServer) next.hostKeyFingerprint = stored.hostKeyFingerprint;
  }
  const updated = deps.db
    .update(backupTargets)
    .set({
      name: input.name,
      settings: settings as unknown as Record<string, unknown>,
      ...(secret !== undefined ? { secret: deps.box.seal(secret) } : {}),
      keep: input.keep,
      includePbx: input.includePbx,
      enabled: input.enabled,
      updatedAt: new Date(deps.now()),
    })
    .where(eq(backupTargets.id, id))
    .returning()
    .get();
  changed(deps, id);
  return targetView(deps, updated);
}

/** DELETE /api/backups/targets/{id}: 409 while an upload or drill of it is under way. */
export function deleteTarget(deps: TargetDeps, id: number): void {
  const row = loadTargetRow(deps, id);
  if (offsiteQueue(deps.db).busy(id)) throw new Conflict(`${row.name} has an upload or drill under way`);
  deps.db.delete(backupTargets).where(eq(backupTargets.id, id)).run();
  changed(deps, id);
}

/** The connection test's deadline (connect, list or directory, write, delete). */
const TEST_TIMEOUT_MS = 30_000;

/**
 * POST /api/backups/targets/{id}/test: connects, writes and deletes a small file. A failure is an answer
 * (`ok: false` and why), not an error status. An SFTP server's host key is pinned by the first contact.
 */
export async function testTarget(deps: TargetDeps, id: number): Promise<BackupTargetTestResult> {
  const row = loadTargetRow(deps, id);
  const signal = deadline(`The connection test of ${row.name}`, TEST_TIMEOUT_MS);
  let result: BackupTargetTestResult;
  try {
    const remote = await openRemote(deps, row, signal);
    try {
      result = { ok: true, message: await remote.probe() };
      if (remote.pinned) {
        result.hostKeyFingerprint = remote.pinned;
        result.message += `; its host key ${remote.pinned} is now pinned`;
      }
    } finally {
      remote.close();
    }
  } catch (err) {
    result = { ok: false, message: withoutSecret(deps, row, (err as Error).message) };
  }
  changed(deps, id);
  return result;
}

/** The audit's view of a target by the route's `:id`: what an administrator sets (no secret, no activity). */
export function targetForAudit(deps: Pick<Deps, "db">, id: string | undefined): object | null {
  const n = Number(id);
  if (!Number.isInteger(n)) return null;
  const row = deps.db.select().from(backupTargets).where(eq(backupTargets.id, n)).get();
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    enabled: row.enabled,
    includePbx: row.includePbx,
    keep: row.keep,
    hasSecret: Boolean(row.secret),
    ...row.settings,
  };
}

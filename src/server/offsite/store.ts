/**
 * What the off-site parts share (ADR 0064): a target's stored row read as its settings, the connection to it
 * behind one small interface whichever kind it is, and the last restore drill per target.
 */
import { eq } from "drizzle-orm";
import { backupTargets, consoleSettings } from "../../db/schema";
import type {
  BackupTargetKind,
  OffsiteDrill,
  S3TargetSettings,
  SftpTargetSettings,
} from "../../shared/offsite-backups";
import { redact } from "../clients/http";
import { S3Store } from "../clients/s3";
import { SftpSession } from "../clients/sftp";
import type { Deps } from "../core/deps";
import { NotFound } from "../core/errors";

export type TargetRow = typeof backupTargets.$inferSelect;

export function loadTargetRow(deps: Pick<Deps, "db">, id: number): TargetRow {
  const row = deps.db.select().from(backupTargets).where(eq(backupTargets.id, id)).get();
  if (!row) throw new NotFound("Backup target");
  return row;
}

export const s3Settings = (row: TargetRow) => row.settings as unknown as S3TargetSettings;
export const sftpSettings = (row: TargetRow) => row.settings as unknown as SftpTargetSettings;

const hostOf = (endpoint: string) => {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
};

/** Where a target's copies go, in words (no secret). */
export function whereOf(row: Pick<TargetRow, "kind" | "settings">): string {
  if (row.kind === "s3") {
    const s = row.settings as unknown as S3TargetSettings;
    return `s3://${s.bucket}/${s.prefix} at ${hostOf(s.endpoint)}`;
  }
  const s = row.settings as unknown as SftpTargetSettings;
  return `sftp://${s.username}@${s.host}:${s.port} in ${s.directory === "." ? "the home directory" : s.directory}`;
}

/** The full name at the target (S3 key, SFTP path) of a copy's file name. */
export function pathOf(row: Pick<TargetRow, "kind" | "settings">, file: string): string {
  if (row.kind === "s3") return `${(row.settings as unknown as S3TargetSettings).prefix}${file}`;
  const dir = (row.settings as unknown as SftpTargetSettings).directory;
  return dir === "." ? file : `${dir}/${file}`;
}

/** One open connection to a target, whichever kind. */
export interface Remote {
  kind: BackupTargetKind;
  put(path: string, chunks: AsyncIterable<Uint8Array>): Promise<number>;
  get(path: string): AsyncGenerator<Uint8Array>;
  remove(path: string): Promise<void>;
  /** The connection test (write and delete a small file): what it proved. */
  probe(): Promise<string>;
  /** The SFTP host key pinned by this contact (the first), for the test's answer. */
  pinned: string | null;
  close(): void;
}

/** The target's secret, opened (never logged or returned). */
export function targetSecret(deps: Pick<Deps, "box">, row: TargetRow): string {
  return deps.box.open(row.secret) ?? "";
}

/** A message about a target with its secret taken out, whatever said it. */
export function withoutSecret(deps: Pick<Deps, "box">, row: TargetRow, message: string): string {
  let secret = "";
  try {
    secret = targetSecret(deps, row);
  } catch {
    // Not openable here: nothing of it can be in a message either.
  }
  return redact(message, [secret]).slice(0, 1000);
}

/**
 * Connects to a target. An SFTP server seen for the first time has its host key pinned in the target's settings
 * (and `pinned` says so); a server whose key differs from the pin is refused by the client.
 */
export async function openRemote(
  deps: Pick<Deps, "db" | "box" | "now" | "events">,
  row: TargetRow,
  signal?: AbortSignal,
): Promise<Remote> {
  const secret = targetSecret(deps, row);
  if (row.kind === "s3") {
    const s = s3Settings(row);
    const store = new S3Store({ ...s, secretAccessKey: secret });
    return {
      kind: "s3",
      put: (path, chunks) => store.put(path, chunks, { signal }),
      get: (path) => store.get(path, { signal }),
      remove: (path) => store.remove(path, { signal }),
      probe: () => store.probe(s.prefix, { signal }),
      pinned: null,
      close: () => {},
    };
  }
  const s = sftpSettings(row);
  const session = await SftpSession.connect(
    {
      host: s.host,
      port: s.port,
      username: s.username,
      ...(s.auth === "password" ? { password: secret } : { privateKey: secret }),
      hostKeyFingerprint: s.hostKeyFingerprint,
    },
    { signal },
  );
  let pinned: string | null = null;
  if (!s.hostKeyFingerprint && session.hostKey) {
    pinned = session.hostKey;
    deps.db
      .update(backupTargets)
      .set({ settings: { ...s, hostKeyFingerprint: pinned }, updatedAt: new Date(deps.now()) })
      .where(eq(backupTargets.id, row.id))
      .run();
    deps.events.publish({ type: "offsite-backups-updated", data: { targetId: row.id } });
  }
  const dir = s.directory;
  return {
    kind: "sftp",
    put: async (path, chunks) => {
      await session.ensureDirectory(dir);
      return session.put(path, chunks);
    },
    get: (path) => session.get(path),
    remove: (path) => session.remove(path),
    probe: () => session.probe(dir),
    pinned,
    close: () => session.close(),
  };
}

// ---- The last restore drill per target (console_settings `offsiteDrills`: target id → drill) ----

const DRILLS = "offsiteDrills";

export function readDrills(deps: Pick<Deps, "db">): Record<string, OffsiteDrill> {
  const row = deps.db
    .select({ value: consoleSettings.value })
    .from(consoleSettings)
    .where(eq(consoleSettings.key, DRILLS))
    .get();
  const v = row?.value;
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, OffsiteDrill>) : {};
}

/** Records a drill's result; `lastPassedAt` carries over from the last one that passed. */
export function recordDrill(
  deps: Pick<Deps, "db" | "now">,
  targetId: number,
  drill: Omit<OffsiteDrill, "lastPassedAt">,
): OffsiteDrill {
  const all = readDrills(deps);
  const before = all[String(targetId)];
  const result: OffsiteDrill = { ...drill, lastPassedAt: drill.ok ? drill.at : (before?.lastPassedAt ?? null) };
  // Drills of targets that are gone are dropped on the way.
  const ids = new Set(
    deps.db
      .select({ id: backupTargets.id })
      .from(backupTargets)
      .all()
      .map((r) => String(r.id)),
  );
  const next = Object.fromEntries(Object.entries(all).filter(([id]) => ids.has(id)));
  next[String(targetId)] = result;
  const at = new Date(deps.now());
  deps.db
    .insert(consoleSettings)
    .values({ key: DRILLS, value: next, updatedAt: at })
    .onConflictDoUpdate({ target: consoleSettings.key, set: { value: next, updatedAt: at } })
    .run();
  return result;
}

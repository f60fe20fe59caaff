/**
 * The audit trail (docs/decisions/0022): recording, reading, exporting and expiring rows of
 * `audit_log`. Rows are appended only; nothing here changes one, and only `pruneAudit` (the retention
 * sweep) deletes. The transport records every audited call (src/server/transport/audit.ts); scheduled
 * work and the binary's commands record theirs directly.
 */
import { and, desc, eq, like, lt, or, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { apiTokens, auditLog } from "../../db/schema";
import {
  AUDIT_CSV_COLUMNS,
  AUDIT_MASK,
  AUDIT_PAGE_DEFAULT,
  type AuditChange,
  type AuditEntry,
  type AuditFilter,
  type AuditOutcome,
  type AuditPage,
  type AuditQuery,
} from "../../shared/audit";
import { csvCell } from "../core/csv";
import type { Deps } from "../core/deps";

/** What a caller records; `at` defaults to now. */
export interface AuditRecord {
  actor: string;
  actorUserId?: string | null;
  clientIp?: string | null;
  action: string;
  outcome: AuditOutcome;
  objectType?: string | null;
  objectId?: string | null;
  objectLabel?: string | null;
  changes?: AuditChange[];
  detail?: string | null;
}

/** The longest text kept of one value, label or detail (the rest is cut with an ellipsis). */
const MAX_TEXT = 300;
/** The most fields one row records (a larger body is cut, and says so). */
const MAX_CHANGES = 60;

const cut = (s: string, max = MAX_TEXT) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The actor names the console uses for work no signed-in user started. */
export const SYSTEM_ACTOR = "system";
export const CLI_ACTOR = "cli";

/** What the binary's commands (create-admin, unlock) record with: the database and the real clock. */
export const cliDeps = (db: Db): Pick<Deps, "db" | "now"> => ({ db, now: Date.now });

/** Coalesces the "audit-updated" event: a burst of rows (a sign-in flood) is one refetch per open Audit screen. */
const PUBLISH_DELAY_MS = 500;
const pendingPublish = new WeakSet<object>();

function announce(events: Deps["events"] | undefined): void {
  if (!events || pendingPublish.has(events)) return;
  pendingPublish.add(events);
  const timer = setTimeout(() => {
    pendingPublish.delete(events);
    events.publish({ type: "audit-updated" });
  }, PUBLISH_DELAY_MS);
  timer.unref?.();
}

type AuditRow = typeof auditLog.$inferInsert;

/**
 * Rows waiting for the database: another connection (a CLI command, a backup reader with a write open)
 * holds the write lock. The console never waits on it (bun:sqlite would block the whole server for the
 * busy timeout); the rows are written, in order, as soon as the lock is free.
 */
const waiting = new WeakMap<Db, { rows: AuditRow[]; timer: ReturnType<typeof setTimeout> | null }>();
const RETRY_MS = 200;
/** Past this, the oldest waiting rows are dropped (and said so in the log) rather than exhausting memory. */
const MAX_WAITING = 10_000;

const isBusy = (err: unknown) => /SQLITE_BUSY|database is locked/i.test(String((err as Error)?.message ?? err));

/** Inserts without waiting for a lock: true when written, false when another connection holds it. */
function tryInsert(db: Db, rows: AuditRow[]): boolean {
  db.$client.exec("PRAGMA busy_timeout = 0;");
  try {
    db.transaction((tx) => {
      for (const row of rows) tx.insert(auditLog).values(row).run();
    });
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  } finally {
    db.$client.exec("PRAGMA busy_timeout = 5000;");
  }
}

function flushWaiting(db: Db): void {
  const queue = waiting.get(db);
  if (!queue) return;
  queue.timer = null;
  try {
    if (tryInsert(db, queue.rows)) {
      waiting.delete(db);
      return;
    }
  } catch (err) {
    console.error(`audit: ${queue.rows.length} rows could not be recorded: ${(err as Error).message}`);
    waiting.delete(db);
    return;
  }
  queue.timer = setTimeout(() => flushWaiting(db), RETRY_MS);
  queue.timer.unref?.();
}

function enqueue(db: Db, row: AuditRow): void {
  const queue = waiting.get(db) ?? { rows: [], timer: null };
  waiting.set(db, queue);
  queue.rows.push(row);
  if (queue.rows.length > MAX_WAITING) {
    queue.rows.shift();
    console.error("audit: the database stayed locked; the oldest waiting row was dropped");
  }
  if (!queue.timer) {
    queue.timer = setTimeout(() => flushWaiting(db), RETRY_MS);
    queue.timer.unref?.();
  }
}

/**
 * Appends one row. Never throws and never waits for a lock: a failure to record is logged, and the
 * action it describes still stands.
 */
export function recordAudit(deps: Pick<Deps, "db" | "now"> & Partial<Pick<Deps, "events">>, rec: AuditRecord): void {
  const row: AuditRow = {
    at: new Date(deps.now()),
    actor: cut(rec.actor, 100),
    actorUserId: rec.actorUserId ?? null,
    clientIp: rec.clientIp ?? null,
    action: rec.action,
    outcome: rec.outcome,
    objectType: rec.objectType ?? null,
    objectId: rec.objectId == null ? null : cut(rec.objectId, 100),
    objectLabel: rec.objectLabel == null ? null : cut(rec.objectLabel, 200),
    changes: (rec.changes ?? []).slice(0, MAX_CHANGES),
    detail: rec.detail == null ? null : cut(rec.detail, 500),
  };
  try {
    // Rows already waiting go first: the trail stays in order.
    if (waiting.has(deps.db) || !tryInsert(deps.db, [row])) enqueue(deps.db, row);
    announce(deps.events);
  } catch (err) {
    console.error(`audit: could not record ${rec.action}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The actor name of an API token's call: `token:<name>#<id>` (names may repeat; ids do not). */
export function apiTokenActor(deps: Pick<Deps, "db">, id: number): string {
  const row = deps.db.select({ name: apiTokens.name }).from(apiTokens).where(eq(apiTokens.id, id)).get();
  return `token:${row?.name ?? ""}#${id}`;
}

// ---------------------------------------------------------------------------------------------------
// Field-level changes with secrets masked

/**
 * Field names whose values are secrets (matched on every segment of a nested path, any case): passwords,
 * secrets, tokens, keys, authenticator and recovery codes, otpauth links, set-up codes.
 */
const SECRET_FIELD = /pass(word|wd)?|secret|token|api_?key|private_?key|^code$|recovery|otpauth|setup_?code|^key$/i;

export const isSecretField = (path: string) => path.split(".").some((segment) => SECRET_FIELD.test(segment));

/** Fields that change on their own (or are the row's identity) and say nothing about the change. */
const IGNORED_FIELDS = new Set(["id", "createdAt", "updatedAt", "lastSeenAt", "lastUsedAt", "current"]);

/** Flattens an object to `path → text` (nested objects one level per dot; arrays and others as JSON). */
export function flatten(value: unknown, prefix = "", out = new Map<string, string>(), depth = 0): Map<string, string> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || depth > 3) {
    if (prefix) out.set(prefix, valueText(value));
    return out;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || (depth === 0 && IGNORED_FIELDS.has(key))) continue;
    flatten(v, prefix ? `${prefix}.${key}` : key, out, depth + 1);
  }
  return out;
}

function valueText(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") return cut(v);
  return cut(JSON.stringify(v) ?? String(v));
}

const isEmpty = (text: string | undefined) => text === "null" || text === "" || text === "[]";

/**
 * The field-level difference between two states of an object (either may be absent: a create or a
 * delete). A secret field records only that it was set, changed or removed (`AUDIT_MASK`), never a value.
 */
export function diffFields(before: unknown, after: unknown): AuditChange[] {
  const a = before == null ? new Map<string, string>() : flatten(before);
  const b = after == null ? new Map<string, string>() : flatten(after);
  const changes: AuditChange[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const from = a.get(field);
    const to = b.get(field);
    if (from === to) continue;
    // A created or deleted object's empty fields say nothing.
    if ((from === undefined && isEmpty(to)) || (to === undefined && isEmpty(from))) continue;
    const secret = isSecretField(field);
    const change: AuditChange = { field };
    if (from !== undefined) change.from = secret ? AUDIT_MASK : from;
    if (to !== undefined) change.to = secret ? AUDIT_MASK : to;
    changes.push(change);
  }
  if (changes.length > MAX_CHANGES) {
    const more = changes.length - (MAX_CHANGES - 1);
    return [...changes.slice(0, MAX_CHANGES - 1), { field: "…", to: `${more} more fields` }];
  }
  return changes;
}

// ---------------------------------------------------------------------------------------------------
// Reading

type Row = typeof auditLog.$inferSelect;

function toEntry(r: Row): AuditEntry {
  return {
    id: r.id,
    at: r.at.toISOString(),
    actor: r.actor,
    clientIp: r.clientIp,
    action: r.action,
    outcome: r.outcome,
    objectType: r.objectType,
    objectId: r.objectId,
    objectLabel: r.objectLabel,
    changes: r.changes,
    detail: r.detail,
  };
}

/** `LIKE` that matches `text` literally (its `%`, `_` and `\` are not wildcards). */
function contains(column: AnySQLiteColumn, text: string): SQL {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`${column} LIKE ${pattern} ESCAPE '\\'`;
}

function whereOf(filter: AuditFilter, beforeId?: number): SQL | undefined {
  const conds: (SQL | undefined)[] = [];
  if (beforeId !== undefined) conds.push(lt(auditLog.id, beforeId));
  if (filter.actor) conds.push(eq(auditLog.actor, filter.actor));
  if (filter.outcome) conds.push(eq(auditLog.outcome, filter.outcome));
  if (filter.action) {
    conds.push(
      filter.action.endsWith(".")
        ? like(auditLog.action, `${filter.action.replace(/[\\%_]/g, "")}%`)
        : eq(auditLog.action, filter.action),
    );
  }
  if (filter.q) {
    const q = filter.q;
    conds.push(
      or(
        contains(auditLog.objectLabel, q),
        contains(auditLog.objectId, q),
        contains(auditLog.objectType, q),
        contains(auditLog.actor, q),
        contains(auditLog.clientIp, q),
        contains(auditLog.action, q),
        contains(auditLog.detail, q),
        contains(auditLog.changes, q),
      ),
    );
  }
  return and(...conds);
}

/** GET /api/audit: newest first, `limit` rows from before the cursor (an id: ids only grow). */
export function listAudit(deps: Pick<Deps, "db">, query: AuditQuery): AuditPage {
  const limit = query.limit ?? AUDIT_PAGE_DEFAULT;
  const rows = deps.db
    .select()
    .from(auditLog)
    .where(whereOf(query, query.cursor ? Number(query.cursor) : undefined))
    .orderBy(desc(auditLog.id))
    .limit(limit + 1)
    .all();
  const items = rows.slice(0, limit).map(toEntry);
  return { items, nextCursor: rows.length > limit ? String(items[items.length - 1]?.id) : null };
}

// ---------------------------------------------------------------------------------------------------
// CSV export

export const changesText = (changes: AuditChange[]) =>
  changes.map((c) => `${c.field}: ${c.from ?? "∅"} → ${c.to ?? "∅"}`).join("; ");

function csvLine(e: AuditEntry): string {
  const cells = [
    e.at,
    e.actor,
    e.clientIp,
    e.action,
    e.outcome,
    e.objectType,
    e.objectId,
    e.objectLabel,
    changesText(e.changes),
    e.detail,
  ];
  return `${cells.map(csvCell).join(",")}\r\n`;
}

const EXPORT_BATCH = 500;

/** GET /api/audit/export.csv: the filtered rows, newest first, streamed in batches (any size stays small in memory). */
export function auditCsvStream(deps: Pick<Deps, "db">, filter: AuditFilter): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let headerSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(`${AUDIT_CSV_COLUMNS.join(",")}\r\n`));
        return;
      }
      if (done) return controller.close();
      const page = listAudit(deps, { ...filter, limit: EXPORT_BATCH, cursor });
      // Every pull enqueues or closes: a pull that does neither is never followed by another.
      if (page.items.length === 0) return controller.close();
      controller.enqueue(encoder.encode(page.items.map(csvLine).join("")));
      if (page.nextCursor === null) done = true;
      else cursor = page.nextCursor;
    },
  });
}

// ---------------------------------------------------------------------------------------------------
// Retention

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes rows older than the retention (AUDIT_RETENTION_DAYS); the only deletion of audit rows there is. */
export function pruneAudit(deps: Pick<Deps, "db" | "now" | "config">): number {
  const cutoff = deps.now() - deps.config.auditRetentionDays * DAY_MS;
  return deps.db.$client.prepare("DELETE FROM audit_log WHERE at < ?").run(cutoff).changes;
}

/** The number of rows (tests and the Audit screen's heading use it). */
export const auditCount = (db: Db) => db.select({ n: sql<number>`count(*)` }).from(auditLog).get()?.n ?? 0;

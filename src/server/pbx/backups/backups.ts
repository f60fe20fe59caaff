/**
 * Backup before apply, and roll back (docs/decisions/0026).
 *
 * Before an apply writes, `backupBeforeApply` reads over the same SSH session every PBX row the plan's
 * objects can touch: for each object (ownership.ts) the rows of its tables found by their match keys,
 * ALL keywords of its `sip`/`pjsip` id (not only the owned ones), its list tables (patterns, route trunks,
 * page members) and the whole `outbound_route_sequence` when a route is in the plan; every column, each
 * value as HEX so every byte survives. Rows that are absent are recorded as absent: the scope itself is
 * stored, so a roll back deletes whatever the apply created in it. An extension's AstDB trees
 * (`DEVICE/<n>`, `AMPUSER/<n>`, `CW/<n>`) are read too. All of it goes to `config_backups`.
 *
 * `rollbackBackup` (a job) deletes the current rows of those scopes and re-inserts the snapshot rows with
 * UNHEX literals, in one MariaDB transaction; then it deletes the AstDB trees and puts the snapshot's
 * entries back, reloads FreePBX, and marks the backup restored. A backup is refused (409) once restored,
 * and while a newer, not rolled back deployment touched the same objects (roll that back first).
 */
import { and, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import { configBackups, jobs, pbxObjects } from "../../../db/schema";
import type { BackupView, DeployHistoryEntry, RollbackSummary } from "../../../shared/deploy-history";
import type { JobItemResult, JobTarget } from "../../../shared/jobs";
import type { ReloadResult } from "../../../shared/pbx";
import { ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { Conflict, Invalid, NotFound } from "../../core/errors";
import type { JobProgress } from "../../jobs/progress";
import { SESSION_SETUP } from "../deploy/script";
import { type AstdbTree, parseAstdbShow } from "../host/astdb";
import { type PbxRemote, withPbxHost } from "../host/host";
import { RELOAD_WAITING_ITEM } from "../host/reload";
import { str, UnsafeValueError } from "../host/sql";
import { restoreVoicemail, sha256Of, type VoicemailSnapshot, voicemailSnapshot } from "../host/voicemail";
import { rekeyManaged } from "../objects/managed";
import {
  EMPTY_OR_NULL,
  type ItemKind,
  isExpr,
  type PbxObject,
  ROUTE_ID,
  TRUNK_ID,
  type Value,
} from "../objects/ownership";

/** Every FreePBX table an apply writes (and so a backup may hold). */
export const BACKUP_TABLES = [
  "devices",
  "users",
  "sip",
  "pjsip",
  "trunks",
  "outbound_routes",
  "outbound_route_patterns",
  "outbound_route_trunks",
  "outbound_route_sequence",
  "incoming",
  "paging_config",
  "paging_groups",
] as const;
type Table = (typeof BACKUP_TABLES)[number];

/** A PBX id only known on the PBX: a trunk's trunkid (`@tid`) or a route's route_id (`@rid`). */
type Ref = "trunk" | "route";
type ScopeValue = { eq: string } | { ref: Ref } | { emptyOrNull: true };
/** Rows of a table matched by every entry of `match` (an empty match: the whole table). */
interface Scope {
  table: Table;
  match: Record<string, ScopeValue>;
}

/** One object of the plan, as the backup covers it. */
interface ObjectScope {
  /** "extension 1001", "trunk Carrier". */
  label: string;
  kind: ItemKind;
  key: string;
  /** A trunk or route: its PBX ids when backed up, and whether they were found by name (then again at roll back). */
  ref: { kind: Ref; name: string; byName: boolean; ids: string[] } | null;
  scopes: Scope[];
  /** An extension: its number (its AstDB trees are backed up). */
  extension: string | null;
  /** An inbound route the apply moved to this DID (ADR 0036): the DID a roll back moves its record back to. */
  movedFrom?: string;
}

interface TableRows {
  table: Table;
  columns: string[];
  /** Each value HEX-encoded (null = NULL). */
  rows: (string | null)[][];
}

/** `config_backups.rows`. */
interface StoredRows {
  version: 1;
  objects: ObjectScope[];
  tables: TableRows[];
  /**
   * The extensions' mailbox lines of voicemail.conf (voicemail.ts; absent in backups made before it, or
   * without extensions); `snapshot` null with `error` when the file could not be read.
   */
  voicemail?: { snapshot: VoicemailSnapshot | null; error: string | null };
}

/** `config_backups.astdb`: the trees and their entries (null with `error` when Asterisk did not answer). */
interface StoredAstdb {
  trees: AstdbTree[];
  entries: Record<string, string> | null;
  error: string | null;
}

const KIND_LABEL: Record<ItemKind, string> = {
  extension: "extension",
  trunk: "trunk",
  outboundRoute: "outbound route",
  inboundRoute: "inbound route",
  pttGroup: "PTT group",
};
export const objectLabel = (o: Pick<PbxObject, "kind" | "key">) => `${KIND_LABEL[o.kind]} ${o.key}`;

function ident(name: string): string {
  if (!/^[a-z_]+$/.test(name)) throw new UnsafeValueError(`not a FreePBX column name: ${name}`);
  return `\`${name}\``;
}
function table(name: string): Table {
  if (!(BACKUP_TABLES as readonly string[]).includes(name))
    throw new UnsafeValueError(`not a backed-up table: ${name}`);
  return name as Table;
}

function scopeValue(v: Value | typeof EMPTY_OR_NULL): ScopeValue {
  if (v === EMPTY_OR_NULL) return { emptyOrNull: true };
  if (isExpr(v)) {
    if (/@tid\b/.test(v.sql)) return { ref: "trunk" };
    if (/@rid\b/.test(v.sql)) return { ref: "route" };
    throw new UnsafeValueError(`a backup cannot match on ${v.text}`);
  }
  if (v === null) throw new UnsafeValueError("a backup cannot match on NULL");
  return { eq: String(v) };
}
const scopeOf = (t: string, match: Record<string, Value | typeof EMPTY_OR_NULL>): Scope => ({
  table: table(t),
  match: Object.fromEntries(Object.entries(match).map(([c, v]) => [c, scopeValue(v)])),
});

/** What an object can touch, from its ownership description (ADR 0023). */
function objectScope(o: PbxObject): ObjectScope {
  const scopes: Scope[] = [];
  for (const row of o.rows) scopes.push(scopeOf(row.table, row.match));
  // Every keyword of the id, not only the owned ones: an apply adds defaults to a new object.
  for (const k of o.keywords) scopes.push(scopeOf(k.table, { id: k.id }));
  for (const l of o.lists)
    scopes.push(
      // FreePBX rewrites the route order as a whole: it is backed up (and restored) as a whole.
      l.table === "outbound_route_sequence" ? { table: table(l.table), match: {} } : scopeOf(l.table, l.parent),
    );
  const id = o.identity;
  const ref =
    id.kind === "trunk" || id.kind === "outboundRoute"
      ? {
          kind: (id.kind === "trunk" ? "trunk" : "route") as Ref,
          name: id.name,
          byName: id.pbxId === undefined,
          ids: id.pbxId === undefined ? [] : [id.pbxId],
        }
      : null;
  for (const s of scopes)
    for (const v of Object.values(s.match))
      if ("ref" in v && v.ref !== ref?.kind) throw new UnsafeValueError(`${objectLabel(o)}: unexpected PBX id`);
  return {
    label: objectLabel(o),
    kind: o.kind,
    key: o.key,
    ref,
    scopes,
    extension: o.kind === "extension" ? o.key : null,
    ...(id.kind === "number" && id.moveFrom !== undefined ? { movedFrom: id.moveFrom } : {}),
  };
}

/**
 * A managed object the apply is about to delete (deletes.ts), as the backup covers it: the rows FreePBX's
 * delete removes, including a trunk's place in every route's trunk list. Pass it with the plan's objects.
 */
export function deletedObject(t: { kind: ItemKind; key: string; label: string; pbxId: string | null }): PbxObject {
  const none = { owned: {}, defaults: {} };
  const base = { kind: t.kind, key: t.key, label: t.label, rows: [], keywords: [], lists: [] };
  const pbxId = t.pbxId ?? undefined;
  switch (t.kind) {
    case "extension":
      return {
        ...base,
        identity: { kind: "number", column: "devices.id", value: t.key },
        rows: [
          { table: "devices", match: { id: t.key }, ...none },
          { table: "users", match: { extension: t.key }, ...none },
        ],
        keywords: [{ table: "sip", id: t.key, owned: [], defaults: [] }],
      };
    case "trunk":
      return {
        ...base,
        identity: { kind: "trunk", name: t.key, pbxId },
        rows: [{ table: "trunks", match: { trunkid: TRUNK_ID }, ...none }],
        keywords: [{ table: "pjsip", id: TRUNK_ID, owned: [], defaults: [] }],
        lists: [
          { table: "outbound_route_trunks", parent: { trunk_id: TRUNK_ID }, key: [], entries: [], policy: "add" },
        ],
      };
    case "outboundRoute": {
      const route = { route_id: ROUTE_ID };
      return {
        ...base,
        identity: { kind: "outboundRoute", name: t.key, trunkName: "", pbxId },
        rows: [{ table: "outbound_routes", match: route, ...none }],
        lists: (["outbound_route_patterns", "outbound_route_trunks", "outbound_route_sequence"] as const).map(
          (table) => ({
            table,
            parent: route,
            key: [],
            entries: [],
            policy: "add" as const,
          }),
        ),
      };
    }
    case "inboundRoute":
      return {
        ...base,
        identity: { kind: "number", column: "incoming.extension", value: t.key },
        rows: [{ table: "incoming", match: { extension: t.key, cidnum: EMPTY_OR_NULL }, ...none }],
      };
    case "pttGroup":
      return {
        ...base,
        identity: { kind: "number", column: "paging_config.page_group", value: t.key },
        rows: [{ table: "paging_config", match: { page_group: t.key }, ...none }],
        lists: [{ table: "paging_groups", parent: { page_number: t.key }, key: [], entries: [], policy: "add" }],
      };
  }
}

function whereOf(scope: Scope, ids: string[]): string {
  const parts = Object.entries(scope.match).map(([c, v]) => {
    if ("emptyOrNull" in v) return `(${ident(c)} = '' OR ${ident(c)} IS NULL)`;
    if ("eq" in v) return `${ident(c)} = ${str(v.eq)}`;
    return ids.length ? `${ident(c)} IN (${ids.map(str).join(", ")})` : "FALSE";
  });
  return parts.length ? `(${parts.join(" AND ")})` : "TRUE";
}

/** Per table, the condition matching every row any object's scope covers. */
function conditions(objects: ObjectScope[], extraIds: Map<string, string[]> = new Map()): Map<Table, string> {
  const byTable = new Map<Table, Set<string>>();
  objects.forEach((o, i) => {
    const ids = [...new Set([...(o.ref?.ids ?? []), ...(extraIds.get(String(i)) ?? [])])];
    for (const s of o.scopes) {
      const set = byTable.get(s.table) ?? new Set<string>();
      set.add(whereOf(s, ids));
      byTable.set(s.table, set);
    }
  });
  const out = new Map<Table, string>();
  for (const t of BACKUP_TABLES) {
    const set = byTable.get(t);
    if (set) out.set(t, set.has("TRUE") ? "TRUE" : [...set].join(" OR "));
  }
  return out;
}

const isId = (v: unknown): v is string => typeof v === "string" && /^\d{1,9}$/.test(v);

/** The ids the trunks and routes of `objects` have on the PBX now, found by name (only those found by name). */
async function idsByName(
  remote: PbxRemote,
  objects: ObjectScope[],
): Promise<{ trunks: Map<string, string[]>; routes: Map<string, string[]> }> {
  const names = (k: Ref) => [
    ...new Set(objects.filter((o) => o.ref?.kind === k && o.ref.byName).map((o) => (o.ref as { name: string }).name)),
  ];
  const trunks = new Map<string, string[]>();
  const routes = new Map<string, string[]>();
  const t = names("trunk");
  const r = names("route");
  const sql = [
    t.length
      ? `SELECT HEX('t'), HEX(name), HEX(CAST(trunkid AS CHAR)) FROM trunks WHERE name IN (${t.map(str).join(", ")});`
      : "",
    r.length
      ? `SELECT HEX('r'), HEX(name), HEX(CAST(route_id AS CHAR)) FROM outbound_routes WHERE name IN (${r.map(str).join(", ")});`
      : "",
  ].join("\n");
  if (!sql.trim()) return { trunks, routes };
  for (const [tag, name, id] of await remote.selectHex(sql)) {
    const map = tag === "t" ? trunks : routes;
    if (name != null && id != null) map.set(name, [...(map.get(name) ?? []), id]);
  }
  return { trunks, routes };
}

/**
 * Stores a snapshot of every PBX row (and AstDB entry) the objects can touch, read over `remote`, before
 * the apply writes; returns the backup's id. A read that fails throws (`ServiceError`): nothing may be
 * written then. Asterisk not answering is not fatal: the backup says its AstDB was not read.
 */
export async function backupBeforeApply(
  deps: Pick<Deps, "db" | "now">,
  remote: PbxRemote,
  objects: PbxObject[],
  meta: { jobId: number | null; createdBy: string; target: string },
): Promise<number> {
  const seen = new Set<string>();
  const scopes: ObjectScope[] = [];
  for (const o of objects) {
    const s = objectScope(o);
    if (seen.has(s.label)) continue;
    seen.add(s.label);
    scopes.push(s);
  }
  // voicemail.conf and AstDB are read while the rows are, each over its own channel of the session.
  const files = Promise.all([readVoicemail(remote, scopes), readAstdb(remote, scopes)]);
  // Settled here too, so a failure of the rows' reads never leaves this one unhandled.
  files.catch(() => {});
  // The PBX ids of trunks and routes found by name; a new trunk gets MAX+1 in plan order (entities.ts).
  const found = await idsByName(remote, scopes);
  const maxRow = scopes.some((s) => s.ref?.kind === "trunk")
    ? await remote.selectHex("SELECT HEX(CAST(COALESCE(MAX(trunkid), 0) AS CHAR)) FROM trunks;")
    : [];
  let next = Number(maxRow[0]?.[0] ?? 0);
  for (const s of scopes) {
    if (!s.ref) continue;
    if (s.ref.byName) s.ref.ids = (s.ref.kind === "trunk" ? found.trunks : found.routes).get(s.ref.name) ?? [];
    if (s.ref.kind === "trunk" && s.ref.ids.length === 0) s.ref.ids = [String(++next)];
  }
  const where = conditions(scopes);
  const tables = [...where.keys()];
  const columns = new Map<Table, string[]>();
  if (tables.length) {
    const cols = await remote.selectHex(
      `SELECT HEX(TABLE_NAME), HEX(COLUMN_NAME) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${tables.map(str).join(", ")}) ORDER BY TABLE_NAME, ORDINAL_POSITION;`,
    );
    for (const [t, c] of cols) {
      if (!t || !c) continue;
      ident(c);
      columns.set(t as Table, [...(columns.get(t as Table) ?? []), c]);
    }
    const missing = tables.filter((t) => !columns.get(t)?.length);
    if (missing.length) throw new ServiceError("PBX host", `The FreePBX database has no table ${missing.join(", ")}`);
  }
  const rowsOf = new Map<Table, (string | null)[][]>(tables.map((t) => [t, []]));
  if (tables.length) {
    const sql = tables
      .map(
        (t, i) =>
          `SELECT '${i}', ${(columns.get(t) as string[]).map((c) => `HEX(CAST(${ident(c)} AS BINARY))`).join(", ")} FROM ${ident(t)} WHERE ${where.get(t)};`,
      )
      .join("\n");
    for (const [tag, ...values] of await remote.selectHexRaw(sql)) {
      const t = tables[Number(tag)];
      if (t) rowsOf.get(t)?.push(values);
    }
  }
  const stored: StoredRows = {
    version: 1,
    objects: scopes,
    tables: tables.map((t) => ({ table: t, columns: columns.get(t) as string[], rows: rowsOf.get(t) ?? [] })),
  };
  const [voicemail, astdb] = await files;
  if (voicemail) stored.voicemail = voicemail;
  const row = deps.db
    .insert(configBackups)
    .values({
      jobId: meta.jobId,
      createdAt: new Date(deps.now()),
      createdBy: meta.createdBy,
      target: meta.target,
      objects: scopes.map((s) => s.label),
      rows: stored,
      astdb,
    })
    .returning({ id: configBackups.id })
    .get();
  return row.id;
}

/** The extensions' mailbox lines of voicemail.conf (none when there are no extensions or no file). */
async function readVoicemail(remote: PbxRemote, scopes: ObjectScope[]): Promise<StoredRows["voicemail"] | null> {
  const numbers = scopes.map((s) => s.extension).filter((n): n is string => n !== null);
  if (!numbers.length) return null;
  try {
    const { path, content } = await remote.readVoicemailConf();
    if (content === null) return null;
    return { snapshot: voicemailSnapshot(path, content, numbers), error: null };
  } catch (err) {
    if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
    return { snapshot: null, error: err.message };
  }
}

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

/** From this many extensions on, a backup reads whole AstDB families rather than each extension's trees. */
const FAMILY_READ_FROM = 10;

/** The extensions' AstDB trees, exactly (values padded by `database show` are read again with `get`). */
async function readAstdb(remote: PbxRemote, scopes: ObjectScope[]): Promise<StoredAstdb | null> {
  const numbers = scopes.map((s) => s.extension).filter((n): n is string => n !== null);
  if (!numbers.length) return null;
  const trees: AstdbTree[] = numbers.flatMap((n) => [
    { family: "DEVICE" as const, key: n },
    { family: "AMPUSER" as const, key: n },
    { family: "CW" as const, key: n },
  ]);
  try {
    // A few extensions: their trees; many: the three families at once (3 calls instead of 3 per extension).
    const wanted = new Set(numbers);
    const shown =
      numbers.length <= FAMILY_READ_FROM
        ? parseAstdbShow(await remote.astdbShowTrees(trees))
        : (await remote.astdbFamilyEntries()).filter((e) => wanted.has(e.path.split("/")[2] ?? ""));
    const entries: Record<string, string> = {};
    for (const e of shown) entries[e.path] = e.value;
    const padded = shown.filter((e) => !e.exact).map((e) => e.path);
    const exact = await remote.astdbGet(padded);
    padded.forEach((p, i) => {
      const v = exact[i];
      if (v === null || v === undefined) delete entries[p];
      else entries[p] = v;
    });
    return { trees, entries, error: null };
  } catch (err) {
    if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
    return { trees, entries: null, error: err.message };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Reading backups

type BackupRow = typeof configBackups.$inferSelect;
type JobRow = typeof jobs.$inferSelect;

const hhmm = (d: Date) => d.toISOString().replace("T", " ").slice(0, 16);
const overlaps = (a: BackupRow, b: BackupRow) => {
  const mine = new Set(a.objects);
  const routes = (x: BackupRow) => x.objects.some((o) => o.startsWith("outbound route "));
  // Routes share the route order (backed up as a whole): any two backups with routes overlap.
  return b.objects.some((o) => mine.has(o)) || (routes(a) && routes(b));
};

/** Why a backup cannot be rolled back now, or null. */
function blocker(db: Deps["db"], b: BackupRow, job: JobRow | undefined): string | null {
  if (b.restoredAt) return `Already rolled back by ${b.restoredBy ?? "?"} at ${hhmm(b.restoredAt)} UTC`;
  if (job?.state === "running") return "Its deployment is still running";
  const newer = db
    .select()
    .from(configBackups)
    .where(and(gt(configBackups.id, b.id), isNull(configBackups.restoredAt)))
    .orderBy(desc(configBackups.id))
    .all()
    .find((n) => overlaps(b, n));
  if (!newer) return null;
  const what = newer.jobId === null ? `deployment at ${hhmm(newer.createdAt)} UTC` : `deployment job ${newer.jobId}`;
  return `A newer ${what} by ${newer.createdBy} changed the same objects: roll that back first`;
}

function rowCount(b: BackupRow): number {
  const rows = b.rows as StoredRows;
  return rows.tables?.reduce((n, t) => n + t.rows.length, 0) ?? 0;
}

function view(db: Deps["db"], b: BackupRow, job: JobRow | undefined): BackupView {
  const why = blocker(db, b, job);
  const astdb = b.astdb as StoredAstdb | null;
  return {
    id: b.id,
    createdAt: b.createdAt.toISOString(),
    createdBy: b.createdBy,
    objects: b.objects,
    rows: rowCount(b),
    astdb: astdb === null || astdb.entries !== null,
    restoredAt: b.restoredAt?.toISOString() ?? null,
    restoredBy: b.restoredBy,
    restorable: why === null,
    blockedBy: why,
  };
}

function loadBackup(db: Deps["db"], id: number): BackupRow {
  const b = db.select().from(configBackups).where(eq(configBackups.id, id)).get();
  if (!b) throw new NotFound("Backup");
  return b;
}

/** One backup's view (the audit's before/after of a roll back). */
export function backupView(deps: Pick<Deps, "db">, id: number): BackupView | null {
  const b = deps.db.select().from(configBackups).where(eq(configBackups.id, id)).get();
  if (!b) return null;
  const job = b.jobId === null ? undefined : deps.db.select().from(jobs).where(eq(jobs.id, b.jobId)).get();
  return view(deps.db, b, job);
}

/** The jobs' view the runner gives (counts from their results). */
interface JobViews {
  get(id: number): {
    id: number;
    kind: string;
    title: string;
    target: JobTarget;
    startedBy: string;
    startedAt: string;
    finishedAt: string | null;
    state: DeployHistoryEntry["state"];
    succeeded: number;
    failed: number;
    total: number | null;
    error: string | null;
    summary: unknown;
  };
}

/** Deployments and roll backs, newest first, each deployment with its backup. */
export function deployHistory(deps: Pick<Deps, "db">, runner: JobViews, limit: number): DeployHistoryEntry[] {
  const rows = deps.db
    .select()
    .from(jobs)
    .where(inArray(jobs.kind, ["deploy", "rollback"]))
    .orderBy(desc(jobs.id))
    .limit(limit)
    .all();
  const backups = rows.length
    ? deps.db
        .select()
        .from(configBackups)
        .where(
          inArray(
            configBackups.jobId,
            rows.map((r) => r.id),
          ),
        )
        .all()
    : [];
  return rows.map((row) => {
    const j = runner.get(row.id);
    const b = backups.filter((x) => x.jobId === row.id).at(-1);
    const summary = j.summary as Partial<RollbackSummary> | null;
    return {
      jobId: j.id,
      kind: row.kind as DeployHistoryEntry["kind"],
      title: j.title,
      target: j.target,
      startedBy: j.startedBy,
      startedAt: j.startedAt,
      finishedAt: j.finishedAt,
      state: j.state,
      succeeded: j.succeeded,
      failed: j.failed,
      total: j.total,
      error:
        j.error ??
        (row.kind === "rollback" ? (summary?.results?.find((r) => r.status === "failed")?.message ?? null) : null),
      backup: b ? view(deps.db, b, row) : null,
      rollbackOf: row.kind === "rollback" && typeof summary?.backupId === "number" ? summary.backupId : null,
    };
  });
}

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

// ---------------------------------------------------------------------------------------------------------
// Roll back

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
          const byName = o.ref.byName
            ? ((o.ref.kind === "trunk" ? found.trunks : found.routes).get(o.ref.name) ?? [])
            : [];
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
        const r = await remote.reload({ onLocked: () => progress?.item(RELOAD_WAITING_ITEM) });
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

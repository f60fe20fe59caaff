/**
 * Backup before apply (ADR 0026). Before an apply writes, `backupBeforeApply` reads over the same SSH
 * session every PBX row the plan's objects can touch: for each object (ownership.ts) the rows of its tables
 * found by their match keys, ALL keywords of its `sip`/`pjsip` id (not only the owned ones), its list tables
 * (patterns, route trunks, page members) and the whole `outbound_route_sequence` when a route is in the
 * plan; every column, each value as HEX so every byte survives. Rows that are absent are recorded as absent:
 * the scope itself is stored, so a roll back deletes whatever the apply created in it. An extension's AstDB
 * trees (`DEVICE/<n>`, `AMPUSER/<n>`, `CW/<n>`) and voicemail.conf mailbox line are read too. All of it goes
 * to `config_backups`, in the format of format.ts.
 */
import { configBackups } from "../../../db/schema";
import { ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { afterPbxBackup } from "../../offsite/hooks";
import { type AstdbTree, parseAstdbShow } from "../host/astdb";
import type { PbxRemote } from "../host/host";
import { str, UnsafeValueError } from "../host/sql";
import { voicemailSnapshot } from "../host/voicemail";
import {
  EMPTY_OR_NULL,
  type ItemKind,
  isExpr,
  type PbxObject,
  ROUTE_ID,
  ROUTE_ID_TEXT,
  TRUNK_ID,
  type Value,
} from "../objects/ownership";
import { AUTO_TABLES, autoVar } from "../objects/refs";
import {
  conditions,
  ident,
  idsByName,
  type ObjectScope,
  type Ref,
  type Scope,
  type ScopeValue,
  type StoredAstdb,
  type StoredRows,
  type Table,
  table,
} from "./format";

const KIND_LABEL: Record<ItemKind, string> = {
  extension: "extension",
  trunk: "trunk",
  outboundRoute: "outbound route",
  inboundRoute: "inbound route",
  pttGroup: "PTT group",
  ringGroup: "ring group",
  queue: "queue",
  ivr: "IVR",
  announcement: "announcement",
  timeGroup: "time group",
  timeCondition: "time condition",
};
export const objectLabel = (o: Pick<PbxObject, "kind" | "key">) => `${KIND_LABEL[o.kind]} ${o.key}`;

function scopeValue(v: Value | typeof EMPTY_OR_NULL): ScopeValue {
  if (v === EMPTY_OR_NULL) return { emptyOrNull: true };
  if (isExpr(v)) {
    if (/@tid\b/.test(v.sql)) return { ref: "trunk" };
    if (/@rid\b/.test(v.sql)) return { ref: "route" };
    if (v.ref) {
      // A value that holds the id after a fixed text (`toggle-mode-<id>`): matched by that text and the ids.
      const [prefix = "", rest] = (v.render?.("\u0000") ?? "\u0000").split("\u0000");
      if (rest !== "") throw new UnsafeValueError(`a backup cannot match on ${v.text}`);
      return prefix ? { ref: v.ref.kind, prefix } : { ref: v.ref.kind };
    }
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
      : id.kind === "auto"
        ? {
            kind: id.ref.kind as Ref,
            name: id.ref.name,
            byName: id.ref.pbxId === undefined,
            ids: id.ref.pbxId === undefined ? [] : [id.ref.pbxId],
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
        rows: [
          { table: "outbound_routes", match: route, ...none },
          {
            table: "callrecording_module",
            match: { display: "routing", extension: ROUTE_ID_TEXT },
            ...none,
            companion: true,
          },
        ],
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
        rows: [
          { table: "incoming", match: { extension: t.key, cidnum: EMPTY_OR_NULL }, ...none },
          {
            table: "callrecording_module",
            match: { display: "did", extension: t.key, cidnum: EMPTY_OR_NULL },
            ...none,
            companion: true,
          },
        ],
      };
    case "ringGroup":
      return {
        ...base,
        identity: { kind: "number", column: "ringgroups.grpnum", value: t.key },
        rows: [{ table: "ringgroups", match: { grpnum: t.key }, ...none }],
      };
    case "queue":
      // queues_del(): the config row and every queues_details row of the queue.
      return {
        ...base,
        identity: { kind: "number", column: "queues_config.extension", value: t.key },
        rows: [{ table: "queues_config", match: { extension: t.key }, ...none }],
        keywords: [{ table: "queues_details", id: t.key, owned: [], defaults: [] }],
      };
    case "ivr":
    case "announcement":
    case "timeGroup":
    case "timeCondition": {
      // Ivr::delete(): its entries and its row; Announcement::deleteAnnouncement(): its row;
      // Timeconditions::delTimeGroup(): its rows and the group; delTimeCondition(): the row and its feature code.
      const ref = { kind: t.kind, consoleId: 1, name: t.key, ...(pbxId ? { pbxId } : {}) };
      const auto = AUTO_TABLES[t.kind];
      const id = { sql: autoVar(ref), text: `the ${auto.label}'s id`, ref, render: (i: string) => i };
      const rows: PbxObject["rows"] = [{ table: auto.table, match: { [auto.idColumn]: id }, ...none }];
      if (t.kind === "timeCondition")
        rows.push({
          table: "featurecodes",
          match: {
            modulename: "timeconditions",
            featurename: { ...id, render: (i: string) => `toggle-mode-${i}` },
          },
          ...none,
        });
      const list = { ivr: ["ivr_entries", "ivr_id"], timeGroup: ["timegroups_details", "timegroupid"] } as const;
      const child = t.kind === "ivr" || t.kind === "timeGroup" ? list[t.kind] : null;
      return {
        ...base,
        identity: { kind: "auto", ref, ...auto },
        rows,
        lists: child
          ? [{ table: child[0], parent: { [child[1]]: id }, key: [], entries: [], policy: "add" as const }]
          : [],
      };
    }
    case "pttGroup":
      return {
        ...base,
        identity: { kind: "number", column: "paging_config.page_group", value: t.key },
        rows: [{ table: "paging_config", match: { page_group: t.key }, ...none }],
        lists: [{ table: "paging_groups", parent: { page_number: t.key }, key: [], entries: [], policy: "add" }],
      };
  }
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
    if (s.ref.byName) s.ref.ids = found[s.ref.kind].get(s.ref.name) ?? [];
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
  // Copied off-site where a target includes PBX backups (ADR 0064); queued, it never delays the apply.
  afterPbxBackup(deps.db, row.id);
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

/** From this many extensions on, a backup reads whole AstDB families rather than each extension's trees. */
const FAMILY_READ_FROM = 10;

/**
 * The extensions', ring groups' and queues' AstDB trees, exactly (values padded by `database show` are read
 * again with `get`): `DEVICE/<n>`, `AMPUSER/<n>`, `CW/<n>` of an extension, `RINGGROUP/<n>` of a ring group,
 * `QPENALTY/<n>` of a queue.
 */
async function readAstdb(remote: PbxRemote, scopes: ObjectScope[]): Promise<StoredAstdb | null> {
  const numbers = scopes.map((s) => s.extension).filter((n): n is string => n !== null);
  const groups = scopes.filter((s) => s.kind === "ringGroup").map((s) => s.key);
  const queues = scopes.filter((s) => s.kind === "queue").map((s) => s.key);
  if (!numbers.length && !groups.length && !queues.length) return null;
  const extensionTrees: AstdbTree[] = numbers.flatMap((n) => [
    { family: "DEVICE" as const, key: n },
    { family: "AMPUSER" as const, key: n },
    { family: "CW" as const, key: n },
  ]);
  const groupTrees: AstdbTree[] = [
    ...groups.map((n) => ({ family: "RINGGROUP" as const, key: n })),
    ...queues.map((n) => ({ family: "QPENALTY" as const, key: n })),
  ];
  const trees = [...extensionTrees, ...groupTrees];
  try {
    // A few extensions: their trees; many: the three families at once (3 calls instead of 3 per extension).
    // Ring groups and queues are few: always their own trees.
    const wanted = new Set(numbers);
    const shown =
      numbers.length <= FAMILY_READ_FROM
        ? parseAstdbShow(await remote.astdbShowTrees(trees))
        : [
            ...(await remote.astdbFamilyEntries()).filter(
              (e) =>
                !["RINGGROUP", "QPENALTY"].includes(e.path.split("/")[1] ?? "") &&
                wanted.has(e.path.split("/")[2] ?? ""),
            ),
            ...parseAstdbShow(await remote.astdbShowTrees(groupTrees)),
          ];
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

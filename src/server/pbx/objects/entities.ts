/**
 * The statements that merge one console object into FreePBX's tables. What is
 * written comes from `ownership.ts` (`pbxObject`): owned columns and keywords
 * are updated in place, a missing row or keyword is created with FreePBX's form
 * defaults, and every other row, column and keyword is left byte-identical
 * (ADR 0023). Tables without a primary key (devices, users, incoming) use
 * UPDATE + INSERT … SELECT … WHERE NOT EXISTS; keyword tables (sip, pjsip) an
 * upsert of owned keywords on their (id, keyword) key. Running a script twice
 * changes nothing. Every value is an escaped literal (sql.ts) or a trusted
 * expression of the generator itself; identifiers come from ownership.ts only.
 */

import { int, str, UnsafeValueError } from "../host/sql";
import { refsOf } from "./call-flow";
import {
  type AutoRef,
  type Conditional,
  EMPTY_OR_NULL,
  type ExtensionRow,
  extensionObject,
  type InboundRow,
  type ItemKind,
  inboundObject,
  isExpr,
  type OutboundRow,
  type OwnedAstdb,
  type OwnedKeywords,
  type OwnedList,
  type OwnedRow,
  outboundObject,
  type PbxObject,
  type PttRow,
  pttObject,
  type QueueRow,
  queueObject,
  type RingGroupRow,
  type RouteOrder,
  ringGroupObject,
  type TrunkRow,
  trunkObject,
  type Value,
} from "./ownership";
import { AUTO_TABLES, autoVar } from "./refs";

export {
  destinationString,
  type ExtensionRow,
  type InboundRow,
  type ItemKind,
  type OutboundRow,
  type PttRow,
  type QueueRow,
  type RingGroupRow,
  type TrunkRow,
  trunkName,
} from "./ownership";

export interface SqlItem {
  kind: ItemKind;
  /** The name results and sync use: extension number, trunk name, route name, DID, group number. */
  key: string;
  label: string;
  statements: string[];
  /** The item deletes the object (a managed object removed in the console, ADR 0025). */
  delete?: true;
  /** The secrets its statements carry (SIP secrets): redacted from any error text that quotes them. */
  secrets?: string[];
  /**
   * Run after every item's `statements` (ADR 0059): its destinations to IVRs and announcements, whose FreePBX ids
   * are known once every object of the script has its row.
   */
  late?: string[];
  /** What `late` checks, by variable ("@ivr_3" → "sends calls to IVR Main menu"): how a failure names it. */
  refLabels?: Record<string, string>;
  /** The AstDB keys the object owns (an extension's recording policy), put after the transaction (deploy.ts). */
  astdb?: OwnedAstdb[];
}

/** Marks the statement that fails when a route's trunk is missing, so the failure can be explained. */
export const MISSING_TRUNK_MARK = "check: the route's trunk must exist on the PBX";
/** Marks the statement that fails when an object the plan found on the PBX is gone when its write runs. */
export const GONE_OBJECT_MARK = "check: the object must still be on the PBX";
/** Marks the statement that fails when a destination's IVR or announcement is not on the PBX; its name follows. */
export const MISSING_REF_MARK = "check: this destination must be on the PBX:";

/** Set at the start of each item: 1 when the object is not on the PBX yet (its keyword defaults are then written). */
const NEW = "@new_object";

function ident(name: string): string {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`not a FreePBX column name: ${name}`);
  return `\`${name}\``;
}

function lit(v: Value): string {
  if (isExpr(v)) return v.sql;
  if (typeof v === "number") return int(v);
  return str(v);
}

const isConditional = (v: unknown): v is Conditional =>
  typeof v === "object" && v !== null && "update" in v && "insert" in v;

function where(match: OwnedRow["match"], alias = ""): string {
  const p = alias ? `${alias}.` : "";
  return Object.entries(match)
    .map(([c, v]) =>
      v === EMPTY_OR_NULL
        ? `(${p}${ident(c)} = '' OR ${p}${ident(c)} IS NULL)`
        : `${p}${ident(c)} = ${lit(v as Value)}`,
    )
    .join(" AND ");
}

/** UPDATE the owned columns where the row exists; INSERT it (owned + defaults) where it does not. */
function rowStatements(row: OwnedRow): string[] {
  const table = ident(row.table);
  const sets = Object.entries(row.owned).map(
    ([c, v]) => `${ident(c)} = ${isConditional(v) ? v.update : lit(v as Value)}`,
  );
  const insertCols: [string, string][] = [
    ...(row.autoIncrement
      ? []
      : Object.entries(row.match).map(
          ([c, v]) => [c, v === EMPTY_OR_NULL ? "''" : lit(v as Value)] as [string, string],
        )),
    ...Object.entries(row.owned).map(
      ([c, v]) => [c, lit(isConditional(v) ? v.insert : (v as Value))] as [string, string],
    ),
    ...Object.entries(row.defaults).map(([c, v]) => [c, lit(v)] as [string, string]),
  ];
  const cond = where(row.match);
  // A row whose absence already means the owned values (a route's `dontcare`): only one that is there is updated.
  const absentMeans =
    row.absent !== undefined &&
    Object.entries(row.owned).every(([c, v]) => !isConditional(v) && row.absent?.[c] === String(v));
  if (absentMeans) return [`UPDATE ${table} SET ${sets.join(", ")} WHERE ${cond};`];
  const exists = row.autoIncrement
    ? Object.values(row.match)
        .map((v) => `${lit(v as Value)} IS NULL`)
        .join(" AND ")
    : `NOT EXISTS (SELECT 1 FROM ${table} WHERE ${cond})`;
  return [
    `UPDATE ${table} SET ${sets.join(", ")} WHERE ${cond};`,
    `INSERT INTO ${table} (${insertCols.map(([c]) => ident(c)).join(", ")}) SELECT ${insertCols.map(([, v]) => v).join(", ")} FROM DUAL WHERE ${exists};`,
  ];
}

/**
 * Owned keywords: upsert on (id, keyword). Defaults: only for a new object, never over an existing keyword; none
 * at all for an object known to be on the PBX (`onPbx`), whose defaults statement could only do nothing.
 */
function keywordStatements(k: OwnedKeywords, onPbx: boolean): string[] {
  const table = ident(k.table);
  const id = lit(k.id);
  const out: string[] = [];
  const ownedNames = new Set(k.owned.map(([kw]) => kw));
  // queues_details' key holds the data: an upsert there would add a second row, not change the first.
  if (k.table === "queues_details" && k.owned.length) throw new Error("queues_details keywords are owned as lists");
  let next = 2;
  const flag = () => (k.flags !== undefined ? k.flags : next++);
  if (k.owned.length) {
    out.push(
      `INSERT INTO ${table} (id, keyword, data, flags) VALUES ${k.owned
        .map(([kw, v]) => `(${id}, ${str(kw)}, ${str(v)}, ${int(flag())})`)
        .join(", ")} ON DUPLICATE KEY UPDATE data = VALUES(data);`,
    );
  }
  const defaults = onPbx ? [] : k.defaults.filter(([kw]) => !ownedNames.has(kw));
  if (defaults.length) {
    const rows = defaults.map(([kw, v]) => `SELECT ${id} AS i, ${str(kw)} AS k, ${lit(v)} AS v, ${int(flag())} AS f`);
    out.push(
      `INSERT INTO ${table} (id, keyword, data, flags) SELECT i, k, v, f FROM (${rows.join(" UNION ALL ")}) AS d WHERE ${NEW} = 1 ON DUPLICATE KEY UPDATE data = ${table}.data;`,
    );
  }
  return out;
}

function listStatements(l: OwnedList): string[] {
  const table = ident(l.table);
  const parent = where(l.parent);
  const parentCols = Object.entries(l.parent);
  const insertOne = (entry: Record<string, Value>, cond: string) => {
    const cols: [string, string][] = [
      ...parentCols.map(([c, v]) => [c, lit(v)] as [string, string]),
      ...Object.entries(entry).map(([c, v]) => [c, lit(v)] as [string, string]),
    ];
    return `INSERT INTO ${table} (${cols.map(([c]) => ident(c)).join(", ")}) SELECT ${cols.map(([, v]) => v).join(", ")} FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE ${cond});`;
  };
  const entryMatch = (entry: Record<string, Value>) =>
    [parent, ...l.key.map((c) => `${ident(c)} = ${lit(entry[c] as Value)}`)].join(" AND ");
  switch (l.policy) {
    case "exact": {
      // With `orderBy`, an entry is its key and its place: one in another place goes and is written again.
      const cols = [l.key[0] as string, ...(l.orderBy ? [l.orderBy] : [])];
      const tuple = (e: Record<string, Value>) => {
        const values = cols.map((c) => lit(e[c] as Value));
        return values.length === 1 ? (values[0] as string) : `(${values.join(", ")})`;
      };
      const lhs = cols.length === 1 ? ident(cols[0] as string) : `(${cols.map(ident).join(", ")})`;
      const placed = (e: Record<string, Value>) =>
        [parent, ...cols.map((c) => `${ident(c)} = ${lit(e[c] as Value)}`)].join(" AND ");
      return [
        `DELETE FROM ${table} WHERE ${parent} AND ${lhs} NOT IN (${l.entries.map(tuple).join(", ")});`,
        ...l.entries.map((e) => insertOne(e, l.orderBy ? placed(e) : entryMatch(e))),
      ];
    }
    case "add": {
      // Entries the console wrote before and no longer lists go (ADR 0036); others (FreePBX's) stay.
      const keyCol = l.key[0] as string;
      const gone = (l.remove ?? []).map((e) => lit(e[keyCol] as Value));
      return [
        ...(gone.length ? [`DELETE FROM ${table} WHERE ${parent} AND ${ident(keyCol)} IN (${gone.join(", ")});`] : []),
        ...l.entries.map((e) => insertOne(e, entryMatch(e))),
      ];
    }
    case "first": {
      const entry = l.entries[0] as Record<string, Value>;
      const keyCol = l.key[0] as string;
      const mine = lit(entry[keyCol] as Value);
      return [
        // Seq 0 is the console's trunk; the same trunk further down (a duplicate) goes; failover trunks stay.
        `DELETE FROM ${table} WHERE ${parent} AND ((seq = 0 AND ${ident(keyCol)} <> ${mine}) OR (seq <> 0 AND ${ident(keyCol)} = ${mine}));`,
        insertOne(entry, `${parent} AND seq = 0`),
      ];
    }
    case "ensure":
      return l.entries.map((e) => insertOne(e, parent));
    case "order":
      return [...l.entries.map((e) => insertOne(e, parent)), ...orderStatements(l.order)];
  }
}

/**
 * The route (`@rid`) takes the `index`-th place (seq) among the console's routes in the route sequence,
 * swapping with the console route that held it: the set of places the console's routes hold never
 * changes, so routes the console does not manage keep theirs. Run in dial order, route after route, this
 * is a selection sort; a route already in its place is a no-op (ADR 0040).
 */
function orderStatements(order: OwnedList["order"]): string[] {
  if (!order) return [];
  const mine = [
    order.names.length ? `r.name IN (${order.names.map(str).join(", ")})` : "",
    order.pbxIds.length ? `r.route_id IN (${order.pbxIds.map((id) => int(pbxInt(id))).join(", ")})` : "",
  ].filter(Boolean);
  if (!mine.length) return [];
  const set = mine.join(" OR ");
  return [
    `SET @slot = (SELECT s.seq FROM outbound_route_sequence s JOIN outbound_routes r ON r.route_id = s.route_id WHERE ${set} ORDER BY s.seq, s.route_id LIMIT ${int(order.index)}, 1);`,
    "SET @cur = (SELECT MIN(seq) FROM outbound_route_sequence WHERE route_id = @rid);",
    `UPDATE outbound_route_sequence SET seq = @cur WHERE @slot IS NOT NULL AND seq = @slot AND route_id <> @rid AND route_id IN (SELECT r.route_id FROM outbound_routes r WHERE ${set});`,
    "UPDATE outbound_route_sequence SET seq = @slot WHERE @slot IS NOT NULL AND route_id = @rid;",
  ];
}

/** A recorded PBX id (trunkid, route_id): digits only. */
export function pbxInt(id: string): number {
  if (!/^\d{1,9}$/.test(id)) throw new UnsafeValueError(`not a FreePBX id: ${JSON.stringify(id)}`);
  return Number(id);
}

/**
 * A managed object whose key changed in the console (an inbound route's DID, ADR 0036): its row takes the
 * new key, keeping every column, unless a row already has the new key (then nothing moves; the plan
 * refuses that case before).
 */
function moveStatements(table: string, column: string, match: OwnedRow["match"], from: string | undefined): string[] {
  if (from === undefined) return [];
  const old = where({ ...match, [column]: from });
  return [
    `SET @key_taken = (SELECT COUNT(*) FROM ${ident(table)} WHERE ${where(match)});`,
    `UPDATE ${ident(table)} SET ${ident(column)} = ${lit(match[column] as Value)} WHERE ${old} AND @key_taken = 0;`,
  ];
}

/** Finds (or allocates) the object's PBX id and sets the "new object" flag. */
function identityStatements(o: PbxObject): string[] {
  const id = o.identity;
  switch (id.kind) {
    case "number": {
      const [table, column] = id.column.split(".") as [string, string];
      const match = o.rows.find((r) => r.table === table)?.match ?? { [column]: id.value };
      return [
        ...moveStatements(table, column, match, id.moveFrom),
        `SET ${NEW} = (SELECT COUNT(*) = 0 FROM ${ident(table)} WHERE ${where(match)});`,
      ];
    }
    case "trunk":
      return [
        // Keep the trunk's id when it exists (routes point at it); else the next one after the highest.
        // A trunk the console manages is found by its recorded trunkid (a rename keeps it, ADR 0025).
        id.pbxId !== undefined
          ? `SET @tid = (SELECT trunkid FROM trunks WHERE trunkid = ${int(pbxInt(id.pbxId))});`
          : `SET @tid = (SELECT trunkid FROM trunks WHERE name = ${str(id.name)} ORDER BY trunkid LIMIT 1);`,
        `SET ${NEW} = (@tid IS NULL);`,
        "SET @tid = COALESCE(@tid, (SELECT COALESCE(MAX(trunkid), 0) + 1 FROM trunks));",
      ];
    case "outboundRoute":
      return [
        id.trunkPbxId !== undefined
          ? `SET @rtid = (SELECT trunkid FROM trunks WHERE trunkid = ${int(pbxInt(id.trunkPbxId))});`
          : `SET @rtid = (SELECT trunkid FROM trunks WHERE name = ${str(id.trunkName)} ORDER BY trunkid LIMIT 1);`,
        // Aborts the transaction (error 1242, a two-row subquery) when the trunk is not on the PBX yet.
        `SET @trunk_check = (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE @rtid IS NULL); -- ${MISSING_TRUNK_MARK}`,
        id.pbxId !== undefined
          ? `SET @rid = (SELECT route_id FROM outbound_routes WHERE route_id = ${int(pbxInt(id.pbxId))});`
          : `SET @rid = (SELECT route_id FROM outbound_routes WHERE name = ${str(id.name)} ORDER BY route_id LIMIT 1);`,
        `SET ${NEW} = (@rid IS NULL);`,
      ];
    case "auto":
      return [`SET ${autoVar(id.ref)} = ${autoLookup(id.ref)};`, `SET ${NEW} = (${autoVar(id.ref)} IS NULL);`];
  }
}

/** FreePBX's id of an IVR or announcement: by its recorded id, else the first with its name (NULL when absent). */
function autoLookup(ref: AutoRef): string {
  const t = AUTO_TABLES[ref.kind];
  return ref.pbxId !== undefined
    ? `(SELECT ${ident(t.idColumn)} FROM ${ident(t.table)} WHERE ${ident(t.idColumn)} = ${int(pbxInt(ref.pbxId))})`
    : `(SELECT ${ident(t.idColumn)} FROM ${ident(t.table)} WHERE ${ident(t.nameColumn)} = ${str(ref.name)} ORDER BY ${ident(t.idColumn)} LIMIT 1)`;
}

/**
 * The second pass of an object (ADR 0059): the IVRs and announcements it points at looked up (unless the script
 * wrote them), each checked to be there, then its destination columns and option destinations written again,
 * now with their ids.
 */
function lateStatements(o: PbxObject): string[] {
  const out: string[] = [];
  for (const ref of refsOf(o)) {
    const v = autoVar(ref);
    out.push(
      `SET ${v} = COALESCE(${v}, ${autoLookup(ref)});`,
      // Aborts the transaction (error 1242, a two-row subquery) when it is not on the PBX.
      `SET @ref_check = (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE ${v} IS NULL); -- ${MISSING_REF_MARK} ${v}`,
    );
  }
  for (const row of o.rows) {
    const refCols = Object.entries(row.owned).filter(([, v]) => isExpr(v) && v.ref !== undefined);
    if (refCols.length)
      out.push(
        `UPDATE ${ident(row.table)} SET ${refCols.map(([c, v]) => `${ident(c)} = ${lit(v as Value)}`).join(", ")} WHERE ${where(row.match)};`,
      );
  }
  for (const l of o.lists) {
    if (!l.value) continue;
    const col = l.value;
    for (const e of l.entries)
      out.push(
        `UPDATE ${ident(l.table)} SET ${ident(col)} = ${lit(e[col] as Value)} WHERE ${[where(l.parent), ...l.key.map((k) => `${ident(k)} = ${lit(e[k] as Value)}`)].join(" AND ")};`,
      );
  }
  return out;
}

/**
 * The statements of one console object: identity, rows, keywords, lists, in that order. `onPbx`: the apply has
 * just read the object on the PBX (an update, an adopted conflict), so its keyword defaults (a new object's
 * FreePBX form values, most of a script's bytes) are left out, and the transaction aborts instead if the object is
 * gone by the time it runs. The Config Generator's script, run by hand on any PBX, always carries them.
 */
export function objectItem(o: PbxObject, opts: { onPbx?: boolean } = {}): SqlItem {
  const onPbx = opts.onPbx === true && o.keywords.some((k) => k.defaults.length > 0);
  const statements = [...identityStatements(o)];
  // Aborts the transaction (error 1242, a two-row subquery) when the object is not on the PBX after all.
  if (onPbx)
    statements.push(
      `SET @gone_check = (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE ${NEW} = 1); -- ${GONE_OBJECT_MARK}`,
    );
  for (const row of o.rows) {
    statements.push(...rowStatements(row));
    if (row.autoIncrement) {
      const id = Object.values(row.match)[0];
      if (!isExpr(id) || !/^@[a-z_0-9]+$/.test(id.sql))
        throw new Error(`${row.table}: an AUTO_INCREMENT row matches on its id variable`);
      statements.push(`SET ${id.sql} = COALESCE(${id.sql}, LAST_INSERT_ID());`);
    }
  }
  for (const k of o.keywords) statements.push(...keywordStatements(k, onPbx));
  for (const l of o.lists) statements.push(...listStatements(l));
  const secrets = o.keywords.flatMap((k) => k.owned.filter(([kw, v]) => kw === "secret" && v !== "").map(([, v]) => v));
  const late = lateStatements(o);
  // A time condition reads its time group; everything else it points at, it sends calls to.
  const refLabels = Object.fromEntries(
    refsOf(o).map((r) => [
      autoVar(r),
      `${r.kind === "timeGroup" ? "reads" : "sends calls to"} ${AUTO_TABLES[r.kind].label} ${r.name}`,
    ]),
  );
  return {
    kind: o.kind,
    key: o.key,
    label: o.label,
    statements,
    ...(secrets.length ? { secrets } : {}),
    ...(late.length ? { late, refLabels } : {}),
    ...(o.astdb?.length ? { astdb: o.astdb } : {}),
  };
}

export const extensionItem = (e: ExtensionRow) => objectItem(extensionObject(e));
export const trunkItem = (t: TrunkRow) => objectItem(trunkObject(t));
export const inboundItem = (r: InboundRow) => objectItem(inboundObject(r));
export const outboundItem = (r: OutboundRow, trunk: TrunkRow | undefined, order?: RouteOrder) =>
  objectItem(outboundObject(r, trunk, order));
export const pttItem = (g: PttRow) => objectItem(pttObject(g));
export const ringGroupItem = (g: RingGroupRow) => objectItem(ringGroupObject(g));
export const queueItem = (q: QueueRow) => objectItem(queueObject(q));

export { int };

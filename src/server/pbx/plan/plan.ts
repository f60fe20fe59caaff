/**
 * The plan (ADR 0025): what deploying a target would do to the live PBX, per object,
 * before anything is written. The live PBX is read in one go (SSH + mysql: one SELECT script over the
 * tables the target touches, plus `database show DEVICE` for extensions' AstDB; or the FreePBX API for
 * extensions and inbound routes), compared with the console's desired objects (`ownership.ts`), and with
 * the ownership records (`managed.ts`):
 *
 * - a console object with a record: `update` (owned fields that differ, from → to) or `unchanged`;
 *   trunks and outbound routes are found by their recorded PBX id, so a rename is an update;
 * - a console object without a record: `create` when nothing on the PBX has its number/name, else
 *   `conflict` (the user adopts it, then it is an update, or skips it);
 * - a record without a console object: `delete` (the console removed it).
 *
 * The fingerprint is an HMAC of every item's action, PBX id and raw (unmasked) from/to values: the live
 * state of the touched rows' owned fields and the console's desired state. Apply plans again (ADR 0053:
 * in the session it then writes with) and needs the same fingerprint.
 */
import { asc } from "drizzle-orm";
import { extensions, inboundRoutes, outboundRoutes, pttGroups, trunks } from "../../../db/schema";
import type { DeployKind } from "../../../shared/pbx";
import {
  type DeployPlan,
  emptyCounts,
  type FieldChange,
  type PlanAction,
  type PlanItem,
  type PlanRefused,
  type PlanTarget,
  planItemId,
} from "../../../shared/plan";
import { byNumber } from "../../../shared/sort";
import type { FreePbxClient } from "../../clients/freepbx";
import type { Deps } from "../../core/deps";
import { Invalid } from "../../core/errors";
import { type ClientDeps, clients } from "../../integrations/outside";
import { withOpenSecret } from "../../inventory/sip-secrets";
import { nodeCrypto } from "../../lazy-node";
import { type PbxRemote, withPbxHost } from "../host/host";
import { UnsafeValueError } from "../host/sql";
import { type ConfLine, hasMailbox, mailboxContexts, parseVoicemailConf } from "../host/voicemail";
import { deployedMembers, KEY_CHANGE, type ManagedRecord, managedOf } from "../objects/managed";
import {
  destinationString,
  EMPTY_OR_NULL,
  type ExtensionRow,
  extensionObject,
  type InboundRow,
  type ItemKind,
  inboundObject,
  isExpr,
  type OwnedList,
  type OwnedRow,
  outboundObject,
  type PbxObject,
  type PttRow,
  pttObject,
  ROUTE_ID,
  routeOrders,
  TRUNK_ID,
  type TrunkRow,
  trunkObject,
  type Value,
} from "../objects/ownership";

export type PlanDeps = ClientDeps & Pick<Deps, "db" | "box" | "now">;

const TARGET_KINDS: Record<PlanTarget, ItemKind[]> = {
  trunks: ["trunk"],
  extensions: ["extension"],
  "ptt-groups": ["pttGroup"],
  // "all" is everything but PTT groups (as the Deploy All button always did).
  all: ["trunk", "extension", "outboundRoute", "inboundRoute"],
};
export const kindsOf = (target: PlanTarget): ItemKind[] => TARGET_KINDS[target];
const KIND_ORDER: ItemKind[] = ["trunk", "extension", "outboundRoute", "inboundRoute", "pttGroup"];
/** Through the FreePBX API only these kinds can be read and written. */
const GRAPHQL_KINDS: ItemKind[] = ["extension", "inboundRoute"];

// ---------- the console's side ----------

/** A console object as FreePBX rows, with the console row it comes from. */
export interface Desired {
  object: PbxObject;
  consoleId: number;
  /** The console row (secrets opened): the FreePBX API path writes from it. */
  row: ExtensionRow | InboundRow | TrunkRow | Record<string, unknown>;
}

function desiredObjects(
  deps: Pick<Deps, "db" | "box">,
  kinds: ItemKind[],
  records: ManagedRecord[],
): { desired: Desired[]; refused: PlanRefused[] } {
  const desired: Desired[] = [];
  const refused: PlanRefused[] = [];
  const add = <T extends { id: number }>(
    kind: ItemKind,
    rows: T[],
    key: (r: T) => string,
    build: (r: T) => PbxObject,
  ) => {
    for (const r of rows) {
      try {
        desired.push({ object: build(r), consoleId: r.id, row: r as unknown as Desired["row"] });
      } catch (err) {
        if (!(err instanceof UnsafeValueError)) throw err;
        refused.push({ kind, key: key(r), reason: err.message });
      }
    }
  };
  const { db, box } = deps;
  const allTrunks = db
    .select()
    .from(trunks)
    .orderBy(asc(trunks.id))
    .all()
    .map((t) => withOpenSecret(box, t));
  const trunkRecord = (consoleId: number) => records.find((r) => r.kind === "trunk" && r.consoleId === consoleId);
  if (kinds.includes("trunk")) add("trunk", allTrunks, (t) => t.name, trunkObject);
  if (kinds.includes("extension")) {
    const rows = db
      .select()
      .from(extensions)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension))
      .map((e) => withOpenSecret(box, e));
    add("extension", rows, (e) => e.extension, extensionObject);
  }
  if (kinds.includes("outboundRoute")) {
    const rows = db.select().from(outboundRoutes).orderBy(asc(outboundRoutes.position), asc(outboundRoutes.id)).all();
    // In dial order; the console's routes on the PBX are those with its names or its recorded route_ids (ADR 0040).
    const routePbxIds = records.flatMap((r) => (r.kind === "outboundRoute" && r.pbxId ? [r.pbxId] : []));
    const orders = routeOrders(rows, routePbxIds);
    const orderOf = new Map(rows.map((r, i) => [r.id, orders[i]]));
    add(
      "outboundRoute",
      rows,
      (r) => r.name,
      (r) => {
        const trunk = allTrunks.find((t) => t.id === r.trunkId);
        const o = outboundObject(r, trunk, orderOf.get(r.id));
        const tid = trunk ? trunkRecord(trunk.id)?.pbxId : null;
        if (tid && o.identity.kind === "outboundRoute") o.identity = { ...o.identity, trunkPbxId: tid };
        return o;
      },
    );
  }
  if (kinds.includes("inboundRoute"))
    add(
      "inboundRoute",
      db.select().from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all(),
      (r) => r.didNumber ?? "",
      inboundObject,
    );
  if (kinds.includes("pttGroup")) {
    const rows = db
      .select()
      .from(pttGroups)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension));
    // The members the console wrote last (its record) are the ones a removal in the console takes away (ADR 0036).
    const recordOfGroup = (g: PttRow) => records.find((r) => r.kind === "pttGroup" && r.key === g.extension);
    add(
      "pttGroup",
      rows,
      (g) => g.extension,
      (g) => pttObject(g, deployedMembers(recordOfGroup(g))),
    );
  }
  return { desired, refused };
}

// ---------- the PBX's side (SSH) ----------

type LiveRow = Record<string, string | null>;

/** The owned fields of the target's objects as they are on the PBX, indexed. */
export interface LiveDb {
  tables: Record<string, LiveRow[]>;
  /** `sip` / `pjsip`: id → keyword → data. */
  keywords: Record<"sip" | "pjsip", Map<string, Map<string, string>>>;
  /** Extensions with a DEVICE/<n>/dial AstDB entry; null when unknown (not read, or Asterisk did not answer). */
  astdb: Set<string> | null;
  /** voicemail.conf's lines (one read per plan); null when unknown (not read, absent or unreadable). */
  voicemail: ConfLine[] | null;
  index: Map<string, Map<string, LiveRow>>;
}

/** Per table: the columns the plan reads (match columns and owned columns of ownership.ts). */
const TABLE_COLUMNS: Record<string, string[]> = {
  devices: ["id", "description"],
  users: ["extension", "name", "voicemail"],
  trunks: ["trunkid", "name", "channelid"],
  outbound_routes: ["route_id", "name"],
  outbound_route_patterns: ["route_id", "match_pattern_pass"],
  outbound_route_trunks: ["route_id", "trunk_id", "seq"],
  outbound_route_sequence: ["route_id", "seq"],
  incoming: ["extension", "cidnum", "destination", "description"],
  paging_config: ["page_group", "description", "duplex"],
  paging_groups: ["page_number", "ext"],
};
const KIND_TABLES: Record<ItemKind, string[]> = {
  extension: ["devices", "users"],
  trunk: ["trunks"],
  outboundRoute: [
    "trunks",
    "outbound_routes",
    "outbound_route_patterns",
    "outbound_route_trunks",
    "outbound_route_sequence",
  ],
  inboundRoute: ["incoming"],
  pttGroup: ["paging_config", "paging_groups"],
};

function liveSql(kinds: ItemKind[], sipKeywords: string[]): string {
  const tables = [...new Set(kinds.flatMap((k) => KIND_TABLES[k]))];
  const out = tables.map(
    (t) =>
      `SELECT HEX(${`'${t}'`}), ${(TABLE_COLUMNS[t] as string[]).map((c) => `HEX(CAST(\`${c}\` AS CHAR))`).join(", ")} FROM \`${t}\`;`,
  );
  if (kinds.includes("extension")) {
    const list = sipKeywords.map((k) => `'${k.replace(/[^a-z_]/g, "")}'`).join(", ");
    out.push(`SELECT HEX('sip'), HEX(id), HEX(keyword), HEX(data) FROM sip WHERE keyword IN (${list});`);
  }
  if (kinds.includes("trunk")) out.push("SELECT HEX('pjsip'), HEX(id), HEX(keyword), HEX(data) FROM pjsip;");
  return out.join("\n");
}

function emptyLive(): LiveDb {
  return {
    tables: {},
    keywords: { sip: new Map(), pjsip: new Map() },
    astdb: null,
    voicemail: null,
    index: new Map(),
  };
}

/** Reads the owned fields of every object of these kinds on the PBX (one mysql call, one asterisk call). */
export async function readLive(remote: PbxRemote, kinds: ItemKind[], desired: Desired[]): Promise<LiveDb> {
  const sipKeywords = new Set(["callerid", "secret"]);
  for (const d of desired)
    for (const k of d.object.keywords) if (k.table === "sip") for (const [kw] of k.owned) sipKeywords.add(kw);
  // The tables, AstDB and voicemail.conf are read at once, each over its own channel of the session.
  const withExtensions = kinds.includes("extension");
  const [rows, astdb, vm] = await Promise.all([
    remote.selectHex(liveSql(kinds, [...sipKeywords])),
    withExtensions ? remote.astdbDevices().catch(() => null) : null,
    withExtensions ? remote.readVoicemailConf().catch(() => null) : null,
  ]);
  const live = emptyLive();
  for (const r of rows) {
    const [tag, ...values] = r;
    if (tag === "sip" || tag === "pjsip") {
      const [id, keyword, data] = values as [string, string, string | null];
      const map = live.keywords[tag];
      const forId = map.get(id) ?? new Map<string, string>();
      forId.set(keyword, data ?? "");
      map.set(id, forId);
      continue;
    }
    const cols = TABLE_COLUMNS[tag ?? ""];
    if (!cols) continue;
    const row: LiveRow = {};
    cols.forEach((c, i) => {
      row[c] = values[i] ?? null;
    });
    const list = live.tables[tag as string] ?? [];
    list.push(row);
    live.tables[tag as string] = list;
  }
  if (withExtensions) {
    live.astdb = astdb;
    live.voicemail = vm?.content != null ? parseVoicemailConf(vm.content) : null;
  }
  return live;
}

/** The row of `table` whose `cols` equal `values` (the first one, as FreePBX would find it). */
function find(live: LiveDb, table: string, cols: string[], values: (string | null)[]): LiveRow | undefined {
  const name = `${table}|${cols.join(",")}`;
  let idx = live.index.get(name);
  if (!idx) {
    idx = new Map();
    for (const r of live.tables[table] ?? []) {
      const k = JSON.stringify(cols.map((c) => (r[c] === null ? "" : r[c])));
      if (!idx.has(k)) idx.set(k, r);
    }
    live.index.set(name, idx);
  }
  return idx.get(JSON.stringify(values.map((v) => v ?? "")));
}

/** The ids an object's trusted expressions stand for (trunkid, route_id, the route's trunk). */
interface Ids {
  tid?: string;
  rid?: string;
  rtid?: string;
}

function resolve(v: Value | typeof EMPTY_OR_NULL, ids: Ids): string | null | undefined {
  if (v === EMPTY_OR_NULL) return "";
  if (isExpr(v)) {
    if (v.sql === TRUNK_ID.sql || v.sql === "CAST(@tid AS CHAR)") return ids.tid;
    if (v.sql === ROUTE_ID.sql) return ids.rid;
    return undefined;
  }
  return v === null ? null : String(v);
}

function liveRowOf(live: LiveDb, row: OwnedRow, ids: Ids): LiveRow | undefined {
  const cols = Object.keys(row.match);
  const values = Object.values(row.match).map((v) => resolve(v, ids));
  if (values.some((v) => v === undefined)) return undefined;
  return find(live, row.table, cols, values as (string | null)[]);
}

const SECRET_FIELD = /secret|password/;
const listText = (xs: string[]) => (xs.length ? xs.join(", ") : null);

/** The owned fields whose PBX value differs from the console's (raw values; masked later). */
function diffObject(o: PbxObject, live: LiveDb, ids: Ids): FieldChange[] {
  const out: FieldChange[] = [];
  const push = (field: string, from: string | null, to: string | null) => {
    if (from !== to) out.push({ field, from, to, ...(SECRET_FIELD.test(field) ? { secret: true } : {}) });
  };
  for (const row of o.rows) {
    const current = liveRowOf(live, row, ids);
    for (const [col, v] of Object.entries(row.owned)) {
      const from = current ? (current[col] ?? null) : null;
      let to: string | null;
      if (typeof v === "object" && v !== null && "result" in v) to = v.result(from);
      else if (isExpr(v)) continue;
      else to = v === null ? null : String(v);
      push(`${row.table}.${col}`, from, to);
    }
  }
  for (const k of o.keywords) {
    const id = resolve(k.id, ids);
    const current = id ? live.keywords[k.table].get(id) : undefined;
    for (const [kw, v] of k.owned) push(`${k.table}.${kw}`, current?.get(kw) ?? null, v);
  }
  for (const l of o.lists) {
    const parentCol = Object.keys(l.parent)[0] as string;
    const parentId = resolve(Object.values(l.parent)[0] as Value, ids);
    const entries = parentId ? (live.tables[l.table] ?? []).filter((r) => r[parentCol] === parentId) : [];
    switch (l.policy) {
      case "exact": {
        const col = l.key[0] as string;
        const now = entries.map((e) => e[col] ?? "").sort();
        const want = l.entries.map((e) => String(e[col])).sort();
        if (now.join("\n") !== want.join("\n")) push(l.table, listText(now), listText(want));
        break;
      }
      case "add": {
        const col = l.key[0] as string;
        const now = entries.map((e) => e[col] ?? "");
        const missing = l.entries.map((e) => String(e[col])).filter((x) => !now.includes(x));
        const gone = new Set((l.remove ?? []).map((e) => String(e[col])).filter((x) => now.includes(x)));
        if (missing.length || gone.size)
          push(l.table, listText(now), listText([...now.filter((x) => !gone.has(x)), ...missing]));
        break;
      }
      case "first": {
        const trunkName = (id: string | null | undefined) =>
          id ? (find(live, "trunks", ["trunkid"], [id])?.name ?? `trunk ${id}`) : null;
        const first = entries.find((e) => e.seq === "0")?.trunk_id ?? null;
        const identity = o.identity.kind === "outboundRoute" ? o.identity : null;
        const same = ids.rtid !== undefined ? first === ids.rtid : trunkName(first) === identity?.trunkName;
        if (!same) push(`${l.table} (first trunk)`, trunkName(first), identity?.trunkName ?? null);
        break;
      }
      case "ensure":
        if (entries.length === 0) push(l.table, null, "last");
        break;
      case "order": {
        const place = routePlace(live, l, parentId ?? null);
        if (place.from !== place.to) push(`${l.table} (dial order)`, place.from, place.to);
        break;
      }
    }
  }
  return out;
}

/**
 * A console route's place in the dial order, as "n of N" among the console's routes: where it is on the
 * PBX now (null when not in the sequence yet) and where the console puts it (ADR 0040). The places are the
 * seq values the console's routes hold, plus one after the end for each console route not in it yet.
 */
function routePlace(live: LiveDb, l: OwnedList, routeId: string | null): { from: string | null; to: string | null } {
  const order = l.order;
  if (!order) return { from: null, to: null };
  const names = new Set(order.names);
  const ids = new Set(order.pbxIds);
  const nameOf = new Map((live.tables.outbound_routes ?? []).map((r) => [r.route_id ?? "", r.name ?? ""]));
  const seqRows = (live.tables.outbound_route_sequence ?? []).map((r) => ({
    id: r.route_id ?? "",
    seq: Number(r.seq ?? Number.NaN),
  }));
  const mine = seqRows
    .filter((r) => ids.has(r.id) || names.has(nameOf.get(r.id) ?? "\u0000"))
    .sort((a, b) => a.seq - b.seq || Number(a.id) - Number(b.id));
  const total = Math.max(order.names.length, mine.length);
  const at = routeId === null ? -1 : mine.findIndex((r) => r.id === routeId);
  return { from: at < 0 ? null : `${at + 1} of ${total}`, to: `${order.index + 1} of ${total}` };
}

// ---------- matching the console, the records and the PBX ----------

/** One planned object, with what apply needs (never sent as is: `item` is the wire view). */
export interface PlanEntry {
  item: PlanItem;
  /** Unmasked changes (the fingerprint's input). */
  raw: FieldChange[];
  /** The console's object (create, update, conflict, unchanged), its identity carrying the PBX id when known. */
  desired?: Desired;
  record?: ManagedRecord;
  /** The PBX id an adopted conflict has (recorded when it is adopted). */
  foundPbxId?: string | null;
}

export interface Plan {
  wire: DeployPlan;
  entries: PlanEntry[];
}

interface Matched {
  kind: ItemKind;
  desired?: Desired;
  record?: ManagedRecord;
}

/**
 * Pairs console objects with their records: trunks, outbound and inbound routes by console row first (a
 * rename or a DID change, `KEY_CHANGE`), else by key.
 */
function match(desired: Desired[], records: ManagedRecord[], kinds: ItemKind[]): Matched[] {
  const used = new Set<number>();
  const out: Matched[] = [];
  const byKey = new Map(records.map((r) => [`${r.kind}:${r.key}`, r]));
  const byRow = new Map<string, ManagedRecord>();
  for (const r of records)
    if (r.consoleId !== null && !byRow.has(`${r.kind}:${r.consoleId}`)) byRow.set(`${r.kind}:${r.consoleId}`, r);
  const free = (r: ManagedRecord | undefined) => (r && !used.has(r.id) ? r : undefined);
  for (const d of desired) {
    const kind = d.object.kind;
    // A key the console may change (a rename, a DID) keeps its record; a number it may not is matched by key.
    const renamable = KEY_CHANGE[kind] !== "refuse";
    const record =
      (renamable ? free(byRow.get(`${kind}:${d.consoleId}`)) : undefined) ?? free(byKey.get(`${kind}:${d.object.key}`));
    if (record) used.add(record.id);
    out.push({ kind, desired: d, record });
  }
  for (const r of records) if (kinds.includes(r.kind) && !used.has(r.id)) out.push({ kind: r.kind, record: r });
  return out;
}

function mask(c: FieldChange): FieldChange {
  if (!c.secret) return c;
  return { ...c, from: c.from === null ? null : "••••••", to: c.to === null ? null : "••••••" };
}

const CONFLICT_NOTE =
  "On the PBX with the same number or name, but not managed by the console (made in FreePBX, or deployed before the console recorded what it manages): adopt it to let the console update it, or skip it";

function entry(
  kind: ItemKind,
  key: string,
  label: string,
  action: PlanAction,
  raw: FieldChange[],
  pbxId: string | null,
  extra: Partial<PlanEntry> & { note?: string } = {},
): PlanEntry {
  const { note, ...rest } = extra;
  return {
    item: {
      id: planItemId(kind as DeployKind, key),
      kind: kind as DeployKind,
      key,
      label,
      action,
      pbxId,
      changes: raw.map(mask),
      ...(note ? { note } : {}),
    },
    raw,
    ...rest,
  };
}

/** Plans one matched object against the PBX read over SSH. */
function planSsh(m: Matched, live: LiveDb): PlanEntry | PlanRefused {
  const { record } = m;
  let d = m.desired;
  if (!d) {
    const r = record as ManagedRecord;
    return entry(r.kind, r.key, r.key, "delete", [], pbxIdOf(r), {
      record: r,
      note:
        r.kind === "extension"
          ? "Removed in the console: its FreePBX rows, AstDB entries and voicemail mailbox line are deleted (recorded messages stay in the spool folder)"
          : "Removed in the console: its FreePBX rows are deleted",
    });
  }
  const o = d.object;
  const ids: Ids = {};
  let exists = false;
  let pbxId: string | null = null;
  let note: string | undefined;
  if (o.identity.kind === "trunk") {
    const byId = record?.pbxId ? find(live, "trunks", ["trunkid"], [record.pbxId]) : undefined;
    const byName = find(live, "trunks", ["name"], [o.identity.name]);
    // A record without a trunkid: the trunk has the record's name (the name it was deployed with).
    const hit = record ? (record.pbxId ? byId : find(live, "trunks", ["name"], [record.key])) : byName;
    if (hit) {
      exists = true;
      pbxId = hit.trunkid ?? null;
      ids.tid = pbxId ?? undefined;
      if (record && hit.name !== o.identity.name) note = `Renamed from ${hit.name} (trunkid ${pbxId})`;
    }
  } else if (o.identity.kind === "outboundRoute") {
    const byId = record?.pbxId ? find(live, "outbound_routes", ["route_id"], [record.pbxId]) : undefined;
    const byName = find(live, "outbound_routes", ["name"], [o.identity.name]);
    const hit = record ? (record.pbxId ? byId : find(live, "outbound_routes", ["name"], [record.key])) : byName;
    if (hit) {
      exists = true;
      pbxId = hit.route_id ?? null;
      ids.rid = pbxId ?? undefined;
      if (record && hit.name !== o.identity.name) note = `Renamed from ${hit.name} (route_id ${pbxId})`;
    }
    const tid = o.identity.trunkPbxId;
    if (tid && find(live, "trunks", ["trunkid"], [tid])) ids.rtid = tid;
  } else {
    exists = o.rows.some((row) => liveRowOf(live, row, ids) !== undefined);
  }
  let raw = diffObject(o, live, ids);
  // A managed object whose key the console changed (an inbound route's DID, ADR 0036): its row moves.
  const from = o.identity.kind === "number" && record && record.key !== o.key ? record.key : null;
  let adoptMoved = false;
  if (from !== null && KEY_CHANGE[o.kind] === "move") {
    const old = movedObject(o, from);
    const oldExists = old.rows.some((row) => liveRowOf(live, row, ids) !== undefined);
    if (oldExists && exists)
      return {
        kind: o.kind as DeployKind,
        key: o.key,
        reason: `The DID changed from ${from}, but ${o.key} already has an inbound route on the PBX: this route stays on ${from} until that one is gone (removed in FreePBX, or deleted by a deploy of the console's)`,
      };
    if (oldExists) {
      exists = true;
      raw = [{ field: keyField(o), from, to: o.key }, ...diffObject(old, live, ids)];
      note = `DID changed from ${from}: the same FreePBX inbound route moves to ${o.key} and keeps its settings; ${from} no longer routes calls`;
      d = { ...d, object: old.moved };
    } else if (exists) adoptMoved = true;
  }
  if (o.kind === "extension" && exists && live.astdb && !live.astdb.has(o.key))
    raw.push({ field: "astdb", from: null, to: "DEVICE/AMPUSER entries" });
  const mailbox = o.kind === "extension" ? mailboxChange(o, live) : null;
  if (mailbox) raw.push(mailbox);
  if (!exists) {
    if (record) note = "Managed by the console but no longer on the PBX: it is created again";
    return entry(o.kind, o.key, o.label, "create", raw, null, { desired: withPbxId(d, null), record, note });
  }
  if (!record || adoptMoved)
    return entry(o.kind, o.key, o.label, "conflict", raw, pbxId, {
      desired: withPbxId(d, pbxId),
      foundPbxId: pbxId,
      record,
      note: raw.length === 0 ? `${CONFLICT_NOTE}. It already has the console's values.` : CONFLICT_NOTE,
    });
  return entry(o.kind, o.key, o.label, raw.length ? "update" : "unchanged", raw, pbxId, {
    desired: withPbxId(d, pbxId),
    record,
    note,
  });
}

/** The object as it is on the PBX under its recorded key `from`, and the object that moves from there. */
function movedObject(o: PbxObject, from: string): PbxObject & { moved: PbxObject } {
  const id = o.identity;
  if (id.kind !== "number") throw new Error(`${o.kind} ${o.key}: only a number key moves`);
  const [table, column] = id.column.split(".") as [string, string];
  const rows = o.rows.map((r) => (r.table === table ? { ...r, match: { ...r.match, [column]: from } } : r));
  return { ...o, key: from, rows, moved: { ...o, identity: { ...id, moveFrom: from } } };
}

/** The column that holds a number-keyed object's key (`incoming.extension`). */
const keyField = (o: PbxObject) => (o.identity.kind === "number" ? o.identity.column : "key");

/** The PBX id a record shows: a page group has none (its record keeps its members instead). */
const pbxIdOf = (r: ManagedRecord) => (r.kind === "pttGroup" ? null : r.pbxId);

/**
 * An extension with voicemail on whose mailbox is not in voicemail.conf (in the context its users row will
 * name): "voicemail mailbox: absent → created" (ADR 0023). Nothing when voicemail.conf could not be read.
 */
function mailboxChange(o: PbxObject, live: LiveDb): FieldChange | null {
  if (!live.voicemail) return null;
  const users = o.rows.find((r) => r.table === "users");
  const vm = users?.owned.voicemail;
  if (!users || typeof vm !== "object" || vm === null || !("result" in vm)) return null;
  const current = liveRowOf(live, users, {});
  const context = vm.result(current ? (current.voicemail ?? null) : null);
  if (!context || context === "novm" || hasMailbox(live.voicemail, o.key, context)) return null;
  const elsewhere = mailboxContexts(live.voicemail, o.key);
  return {
    field: "voicemail mailbox",
    from: elsewhere.length
      ? `absent in [${context}] (present in ${elsewhere.map((c) => `[${c}]`).join(", ")})`
      : "absent",
    to: `created in [${context}]`,
  };
}

/** The console object with the PBX id it is written by (a managed trunk/route keeps its id through a rename). */
function withPbxId(d: Desired, pbxId: string | null): Desired {
  const o = d.object;
  if (!pbxId || (o.identity.kind !== "trunk" && o.identity.kind !== "outboundRoute")) return d;
  return { ...d, object: { ...o, identity: { ...o.identity, pbxId } } };
}

// ---------- the FreePBX API's side ----------

interface GqlLive {
  extensions: Map<string, { name: string | null; voicemail: boolean; secret: string | null }>;
  inbound: Map<string, { description: string | null; destination: string | null }>;
}

async function readGql(client: FreePbxClient, kinds: ItemKind[]): Promise<GqlLive> {
  const live: GqlLive = { extensions: new Map(), inbound: new Map() };
  if (kinds.includes("extension")) {
    const data = await client.gql<{
      fetchAllExtensions: {
        extension:
          | {
              extensionId: string;
              user: { name: string | null; voicemail: string | null; extPassword: string | null } | null;
            }[]
          | null;
      } | null;
    }>("query { fetchAllExtensions { status message extension { extensionId user { name voicemail extPassword } } } }");
    for (const e of data.fetchAllExtensions?.extension ?? [])
      live.extensions.set(e.extensionId, {
        name: e.user?.name ?? null,
        voicemail: Boolean(e.user?.voicemail) && e.user?.voicemail !== "novm",
        secret: e.user?.extPassword ?? null,
      });
  }
  if (kinds.includes("inboundRoute")) {
    const data = await client.gql<{
      allInboundRoutes: {
        inboundRoutes:
          | {
              extension: string;
              cidnum: string | null;
              description: string | null;
              destinationConnection: string | null;
            }[]
          | null;
      } | null;
    }>("query { allInboundRoutes { inboundRoutes { extension cidnum description destinationConnection } } }");
    for (const r of data.allInboundRoutes?.inboundRoutes ?? [])
      if (!r.cidnum)
        live.inbound.set(r.extension ?? "", { description: r.description, destination: r.destinationConnection });
  }
  return live;
}

const onOff = (b: boolean) => (b ? "enabled" : "novm");

function planGql(m: Matched, live: GqlLive): PlanEntry | PlanRefused {
  const { desired: d, record } = m;
  if (!d) {
    const r = record as ManagedRecord;
    return entry(r.kind, r.key, r.key, "delete", [], null, {
      record: r,
      note: "Removed in the console: deleted through the FreePBX API",
    });
  }
  const o = d.object;
  const raw: FieldChange[] = [];
  const push = (field: string, from: string | null, to: string | null) => {
    if (from !== to) raw.push({ field, from, to, ...(SECRET_FIELD.test(field) ? { secret: true } : {}) });
  };
  let exists = false;
  if (o.kind === "extension") {
    const e = d.row as ExtensionRow;
    const now = live.extensions.get(o.key);
    exists = Boolean(now);
    push("name", now?.name ?? null, e.name);
    push("voicemail", now ? onOff(now.voicemail) : null, onOff(e.voicemail));
    if (e.secret) push("secret", now?.secret ?? null, e.secret);
  } else {
    const r = d.row as InboundRow;
    // The API cannot move a route with its settings (ADR 0036): while the old DID is there, nothing is written.
    if (record && record.key !== o.key && live.inbound.has(record.key))
      return {
        kind: o.kind as DeployKind,
        key: o.key,
        reason: `The DID changed from ${record.key}: FreePBX's API cannot move an inbound route with its settings. Configure the PBX host (SSH) in API Settings to deploy it, or change the DID in FreePBX too`,
      };
    const now = live.inbound.get(o.key);
    exists = Boolean(now);
    push("description", now?.description ?? null, r.description);
    const to = destinationString(r.destinationType, r.destination);
    // The API shows a destination only as its label ("Extensions: 1002 Bob"): an extension is recognised.
    const known =
      r.destinationType === "extension" && now?.destination?.match(/^Extensions: (\d+)\b/)?.[1] === r.destination;
    if (!known) push("destination", now?.destination ?? null, to);
  }
  if (!exists) return entry(o.kind, o.key, o.label, "create", raw, null, { desired: d, record });
  // A moved route's new DID already on the PBX is not the console's route: adopting it is the user's choice.
  if (!record || record.key !== o.key)
    return entry(o.kind, o.key, o.label, "conflict", raw, null, {
      desired: d,
      foundPbxId: null,
      record,
      note: CONFLICT_NOTE,
    });
  return entry(o.kind, o.key, o.label, raw.length ? "update" : "unchanged", raw, null, { desired: d, record });
}

// ---------- the plan ----------

/** Each process signs its fingerprints with its own key: a fingerprint says nothing about a secret. */
const FINGERPRINT_KEY = crypto.getRandomValues(new Uint8Array(32));

function fingerprint(target: PlanTarget, via: string, entries: PlanEntry[], refused: PlanRefused[]): string {
  const h = nodeCrypto().createHmac("sha256", FINGERPRINT_KEY);
  h.update(JSON.stringify([target, via, refused]));
  for (const e of entries)
    h.update(
      JSON.stringify([
        e.item.id,
        e.item.action,
        e.item.pbxId,
        e.item.note ?? "",
        e.raw.map((c) => [c.field, c.from, c.to]),
      ]),
    );
  return h.digest("hex");
}

const ORDER: Record<PlanAction, number> = { create: 0, update: 0, conflict: 0, unchanged: 0, delete: 1 };

function assemble(
  deps: Pick<Deps, "now">,
  target: PlanTarget,
  via: "ssh" | "graphql",
  entries: PlanEntry[],
  refused: PlanRefused[],
): Plan {
  // Writes in dependency order (trunks before the routes that use them); deletes after, routes before trunks.
  entries.sort((a, b) => {
    const byAction = ORDER[a.item.action] - ORDER[b.item.action];
    if (byAction) return byAction;
    const ka = KIND_ORDER.indexOf(a.item.kind);
    const kb = KIND_ORDER.indexOf(b.item.kind);
    return a.item.action === "delete" ? kb - ka : ka - kb;
  });
  const counts = emptyCounts();
  for (const e of entries) counts[e.item.action]++;
  return {
    wire: {
      target,
      via,
      fingerprint: fingerprint(target, via, entries, refused),
      items: entries.map((e) => e.item),
      refused,
      counts,
      readAt: new Date(deps.now()).toISOString(),
    },
    entries,
  };
}

/** Which way the plan reads (and apply writes): SSH when configured, else the FreePBX API; `Invalid` with neither. */
export function planPath(deps: Pick<Deps, "credentials">): "ssh" | "graphql" {
  if (deps.credentials.isConfigured("ssh")) return "ssh";
  if (deps.credentials.isConfigured("freepbx")) return "graphql";
  throw new Invalid(
    "No way to reach the PBX: configure the PBX host (SSH) or the FreePBX GraphQL API in API Settings.",
  );
}

/** The plan of a target over an open SSH session (an apply's plan is read in the session it writes with). */
export async function planOverSsh(
  deps: Pick<Deps, "db" | "box" | "now">,
  remote: PbxRemote,
  target: PlanTarget,
): Promise<Plan> {
  const kinds = kindsOf(target);
  const records = managedOf(deps.db, kinds);
  const { desired, refused } = desiredObjects(deps, kinds, records);
  const live = await readLive(remote, kinds, desired);
  const entries: PlanEntry[] = [];
  for (const m of match(desired, records, kinds)) {
    const planned = planSsh(m, live);
    if ("item" in planned) entries.push(planned);
    else refused.push(planned);
  }
  return assemble(deps, target, "ssh", entries, refused);
}

/** The plan of a target through the FreePBX API (extensions and inbound routes; the rest is refused). */
export async function planOverGraphql(deps: PlanDeps, client: FreePbxClient, target: PlanTarget): Promise<Plan> {
  const kinds = kindsOf(target);
  const records = managedOf(deps.db, kinds);
  const { desired, refused } = desiredObjects(deps, kinds, records);
  const readable = kinds.filter((k) => GRAPHQL_KINDS.includes(k));
  const live = await readGql(client, readable);
  const entries: PlanEntry[] = [];
  for (const m of match(desired, records, kinds)) {
    if (!GRAPHQL_KINDS.includes(m.kind)) {
      if (m.desired)
        refused.push({
          kind: m.kind as DeployKind,
          key: m.desired.object.key,
          reason: "FreePBX's API cannot write this: configure the PBX host (SSH) in API Settings",
        });
      continue;
    }
    const planned = planGql(m, live);
    if ("item" in planned) entries.push(planned);
    else refused.push(planned);
  }
  return assemble(deps, target, "graphql", entries, refused);
}

/**
 * The plan of a target: reads the live PBX (SSH, else the FreePBX API) and compares. An unreachable PBX
 * is a `ServiceError` (502) with the reason; no way configured is `Invalid` (400).
 */
export async function planTarget(deps: PlanDeps, target: PlanTarget): Promise<Plan> {
  const via = planPath(deps);
  if (via === "ssh") {
    return withPbxHost(deps, (remote) => planOverSsh(deps, remote, target), {
      operation: "Reading the PBX for the plan",
      deadlineMs: 120_000,
    });
  }
  return planOverGraphql(deps, clients.freepbx(deps), target);
}

/**
 * A target's plan for an apply (ADR 0053): over SSH the session it was read in stays open, so the job
 * writes in the session that read what it writes, without reading the PBX again. Whoever takes a
 * `reviewed` closes its session (`applyTarget` does, `closeReviewed` when no job takes it).
 */
export async function planForApply(deps: PlanDeps, target: PlanTarget): Promise<Reviewed> {
  if (planPath(deps) !== "ssh")
    return { plan: await planOverGraphql(deps, clients.freepbx(deps), target), remote: null };
  let remote = null as PbxRemote | null;
  const plan = await withPbxHost(
    deps,
    (r) => {
      remote = r;
      return planOverSsh(deps, r, target);
    },
    { operation: "Reading the PBX for the plan", deadlineMs: 120_000, keepOpen: true },
  );
  return { plan, remote };
}

/** A plan read for an apply, with the session it was read in (SSH) or none (the FreePBX API). */
export interface Reviewed {
  plan: Plan;
  remote: PbxRemote | null;
}

/** Closes a reviewed plan's session that no job took. */
export const closeReviewed = (r: Reviewed): Promise<void> => r.remote?.close().catch(() => {}) ?? Promise.resolve();

/** The console's objects of a target (and the ones it cannot deploy), without reading the PBX. */
export function consoleObjects(deps: Pick<Deps, "db" | "box">, target: PlanTarget) {
  const kinds = kindsOf(target);
  return desiredObjects(deps, kinds, managedOf(deps.db, kinds));
}

/**
 * The PBX's side of a plan over SSH (ADR 0025): the owned fields of a target's objects as they are on the
 * PBX, read in one go (one tagged SELECT per table the target touches, `sip` only for the owned keywords;
 * `database show DEVICE` and voicemail.conf for extensions, the families' listing when an object owns AstDB keys: an
 * extension's recording policy, ADR 0061), and how an object differs from them, field by field.
 */
import type { FieldChange } from "../../../shared/plan";
import { ServiceError } from "../../clients/http";
import { parseAstdbShow } from "../host/astdb";
import type { PbxRemote } from "../host/host";
import { UnsafeValueError } from "../host/sql";
import { type ConfLine, hasMailbox, mailboxContexts, parseVoicemailConf } from "../host/voicemail";
import { refsOf } from "../objects/call-flow";
import {
  type AutoRef,
  EMPTY_OR_NULL,
  type Expr,
  type ItemKind,
  isExpr,
  type OwnedList,
  type OwnedRow,
  type PbxObject,
  ROUTE_ID,
  ROUTE_ID_TEXT,
  TRUNK_ID,
  type Value,
} from "../objects/ownership";
import { AUTO_TABLES, autoVar } from "../objects/refs";
import type { Desired } from "./desired";
import { SECRET_FIELD } from "./match";

type LiveRow = Record<string, string | null>;

/** The owned fields of the target's objects as they are on the PBX, indexed. */
export interface LiveDb {
  tables: Record<string, LiveRow[]>;
  /** `sip` / `pjsip`: id → keyword → data. */
  keywords: Record<"sip" | "pjsip", Map<string, Map<string, string>>>;
  /** Extensions with a DEVICE/<n>/dial AstDB entry; null when unknown (not read, or Asterisk did not answer). */
  astdb: Set<string> | null;
  /** Ring groups with their RINGGROUP/<n>/changecid AstDB key; null when unknown (not read, or no answer). */
  ringGroupAstdb: Set<string> | null;
  /** Queues with their QPENALTY/<n>/dynmemberonly AstDB key; null when unknown (not read, or no answer). */
  queueAstdb: Set<string> | null;
  /**
   * The AstDB keys the objects own (extensions' recording policy: `/AMPUSER/<n>/recording/…` → value), read only
   * when one owns any; null when unknown (not read, or Asterisk did not answer).
   */
  ownedAstdb: Map<string, string> | null;
  /** voicemail.conf's lines (one read per plan); null when unknown (not read, absent or unreadable). */
  voicemail: ConfLine[] | null;
  /**
   * The IVRs and announcements the objects are or point at (ADR 0059), by variable (`@ivr_3`): FreePBX's id of
   * the one found (by the recorded id, else by name), or null when it is not on the PBX.
   */
  refs: Map<string, string | null>;
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
  ringgroups: ["grpnum", "strategy", "grptime", "grplist", "description", "postdest"],
  ivr_details: [
    "id",
    "name",
    "announcement",
    "timeout_time",
    "invalid_loops",
    "timeout_loops",
    "invalid_destination",
    "timeout_destination",
  ],
  ivr_entries: ["ivr_id", "selection", "dest"],
  announcement: ["announcement_id", "description", "recording_id", "allow_skip", "post_dest"],
  timegroups_groups: ["id", "description"],
  timegroups_details: ["timegroupid", "time"],
  timeconditions: ["timeconditions_id", "displayname", "time", "timezone", "truegoto", "falsegoto"],
  featurecodes: ["modulename", "featurename", "description"],
  callrecording_module: ["display", "extension", "cidnum", "callrecording"],
  queues_config: ["extension", "descr", "maxwait", "dest"],
  queues_details: ["id", "keyword", "data", "flags"],
};
/** Per table, which of its rows the plan reads when not all (a queue's other keywords are FreePBX's). */
const TABLE_WHERE: Record<string, string> = {
  queues_details: " WHERE keyword IN ('strategy', 'member')",
  featurecodes: " WHERE modulename = 'timeconditions'",
  callrecording_module: " WHERE display IN ('did', 'routing')",
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
    "callrecording_module",
  ],
  inboundRoute: ["incoming", "callrecording_module"],
  pttGroup: ["paging_config", "paging_groups"],
  ringGroup: ["ringgroups"],
  queue: ["queues_config", "queues_details"],
  ivr: ["ivr_details", "ivr_entries"],
  announcement: ["announcement"],
  timeGroup: ["timegroups_groups", "timegroups_details"],
  timeCondition: ["timeconditions", "featurecodes", "timegroups_groups", "timegroups_details"],
};

function liveSql(kinds: ItemKind[], sipKeywords: string[]): string {
  const tables = [...new Set(kinds.flatMap((k) => KIND_TABLES[k]))];
  const out = tables.map(
    (t) =>
      `SELECT HEX(${`'${t}'`}), ${(TABLE_COLUMNS[t] as string[]).map((c) => `HEX(CAST(\`${c}\` AS CHAR))`).join(", ")} FROM \`${t}\`${TABLE_WHERE[t] ?? ""};`,
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
    ringGroupAstdb: null,
    queueAstdb: null,
    ownedAstdb: null,
    voicemail: null,
    refs: new Map(),
    index: new Map(),
  };
}

/** Reads the owned fields of every object of these kinds on the PBX (one mysql call, one asterisk call). */
export async function readLive(remote: PbxRemote, wanted: ItemKind[], desired: Desired[]): Promise<LiveDb> {
  let kinds = wanted;
  const sipKeywords = new Set(["callerid", "secret"]);
  for (const d of desired)
    for (const k of d.object.keywords) if (k.table === "sip") for (const [kw] of k.owned) sipKeywords.add(kw);
  // The tables, AstDB and voicemail.conf are read at once, each over its own channel of the session.
  const withExtensions = kinds.includes("extension");
  // Destinations to IVRs and announcements are compared with the ids they have on the PBX.
  const refs = desired.flatMap((d) =>
    d.object.identity.kind === "auto" ? [d.object.identity.ref, ...refsOf(d.object)] : refsOf(d.object),
  );
  if (refs.length)
    kinds = [
      ...new Set([...kinds, "ivr" as const, "announcement" as const, "timeGroup" as const, "timeCondition" as const]),
    ];
  const groups = desired.filter((d) => d.object.kind === "ringGroup").map((d) => d.object.key);
  const queues = desired.filter((d) => d.object.kind === "queue").map((d) => d.object.key);
  const owned = new Set(desired.flatMap((d) => (d.object.astdb ?? []).map((a) => `/${a.family}/${a.key}`)));
  const [rows, astdb, vm, ringAstdb, queueAstdb, ownedAstdb] = await Promise.all([
    remote.selectHex(liveSql(kinds, [...sipKeywords])),
    withExtensions ? remote.astdbDevices().catch(() => null) : null,
    withExtensions ? remote.readVoicemailConf().catch(() => null) : null,
    groups.length ? withAstdbKey(remote, "RINGGROUP", groups, "changecid") : null,
    queues.length ? withAstdbKey(remote, "QPENALTY", queues, "dynmemberonly") : null,
    owned.size ? ownedKeys(remote, owned) : null,
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
  for (const ref of refs) live.refs.set(autoVar(ref), findRef(live, ref));
  live.ringGroupAstdb = ringAstdb;
  live.ownedAstdb = ownedAstdb;
  live.queueAstdb = queueAstdb;
  if (withExtensions) {
    live.astdb = astdb;
    live.voicemail = vm?.content != null ? parseVoicemailConf(vm.content) : null;
  }
  return live;
}

/**
 * The objects of `numbers` whose `<family>/<n>/<key>` is in AstDB (a ring group's caller-ID mode, a queue's
 * dynamic-agents-only flag); null when Asterisk does not answer.
 */
async function withAstdbKey(
  remote: PbxRemote,
  family: "RINGGROUP" | "QPENALTY",
  numbers: string[],
  key: string,
): Promise<Set<string> | null> {
  try {
    const shown = parseAstdbShow(await remote.astdbShowTrees(numbers.map((n) => ({ family, key: n }))));
    const path = new RegExp(`^/${family}/(\\d+)/${key}$`);
    return new Set(shown.flatMap((e) => e.path.match(path)?.[1] ?? []));
  } catch (err) {
    if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
    return null;
  }
}

/**
 * The values of the owned AstDB keys that are there (an absent key is not in the map): one listing of the
 * families the console writes, shared with the apply's backup and AstDB step in the same session (host.ts);
 * null when Asterisk does not answer.
 */
async function ownedKeys(remote: PbxRemote, paths: Set<string>): Promise<Map<string, string> | null> {
  try {
    const out = new Map<string, string>();
    // The policy's values are single words: a value the listing padded reads right once trimmed.
    for (const e of await remote.astdbFamilyEntries()) if (paths.has(e.path)) out.set(e.path, e.value.trimEnd());
    return out;
  } catch (err) {
    if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
    return null;
  }
}

/** FreePBX's id of an IVR or announcement: by its recorded id only, else the first with its name (entities.ts alike). */
function findRef(live: LiveDb, ref: AutoRef): string | null {
  const t = AUTO_TABLES[ref.kind];
  if (ref.pbxId !== undefined) return find(live, t.table, [t.idColumn], [ref.pbxId])?.[t.idColumn] ?? null;
  const rows = (live.tables[t.table] ?? []).filter((r) => r[t.nameColumn] === ref.name);
  const first = rows.sort((a, b) => Number(a[t.idColumn]) - Number(b[t.idColumn]))[0];
  return first?.[t.idColumn] ?? null;
}

/** The row of `table` whose `cols` equal `values` (the first one, as FreePBX would find it). */
export function find(live: LiveDb, table: string, cols: string[], values: (string | null)[]): LiveRow | undefined {
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

/** The ids an object's trusted expressions stand for (trunkid, route_id, the route's trunk, IVRs…). */
export interface Ids {
  tid?: string;
  rid?: string;
  rtid?: string;
  /** LiveDb `refs`. */
  refs?: Map<string, string | null>;
}

function resolve(v: Value | typeof EMPTY_OR_NULL, ids: Ids): string | null | undefined {
  if (v === EMPTY_OR_NULL) return "";
  if (isExpr(v) && v.ref) {
    const id = ids.refs?.get(autoVar(v.ref));
    return id ? (v.render?.(id) ?? id) : undefined;
  }
  if (isExpr(v)) {
    if (v.sql === TRUNK_ID.sql || v.sql === "CAST(@tid AS CHAR)") return ids.tid;
    if (v.sql === ROUTE_ID.sql || v.sql === ROUTE_ID_TEXT.sql) return ids.rid;
    return undefined;
  }
  return v === null ? null : String(v);
}

export function liveRowOf(live: LiveDb, row: OwnedRow, ids: Ids): LiveRow | undefined {
  const cols = Object.keys(row.match);
  const values = Object.values(row.match).map((v) => resolve(v, ids));
  if (values.some((v) => v === undefined)) return undefined;
  return find(live, row.table, cols, values as (string | null)[]);
}

const listText = (xs: string[]) => (xs.length ? xs.join(", ") : null);

/** A destination to an IVR or announcement as the plan shows it: FreePBX's string, or the object's name while it is new. */
const refText = (v: Expr, ids: Ids): string => resolve(v, ids) ?? `${v.text} (new)`;

/** The owned fields whose PBX value differs from the console's (raw values; masked later). */
export function diffObject(o: PbxObject, live: LiveDb, ids: Ids): FieldChange[] {
  const out: FieldChange[] = [];
  const push = (field: string, from: string | null, to: string | null) => {
    if (from !== to) out.push({ field, from, to, ...(SECRET_FIELD.test(field) ? { secret: true } : {}) });
  };
  for (const row of o.rows) {
    const current = liveRowOf(live, row, ids);
    for (const [col, v] of Object.entries(row.owned)) {
      // An absent row that already means the owned value (a route's `dontcare` recording) is no change.
      const from = current ? (current[col] ?? null) : (row.absent?.[col] ?? null);
      let to: string | null;
      if (typeof v === "object" && v !== null && "result" in v) to = v.result(from);
      else if (isExpr(v) && v.ref) to = refText(v, ids);
      else if (isExpr(v)) continue;
      else to = v === null ? null : String(v);
      push(`${row.table}.${col}`, from, to);
    }
  }
  for (const k of o.keywords) {
    // queues_details has defaults only: a queue's owned keywords are its lists.
    if (k.table === "queues_details") continue;
    const id = resolve(k.id, ids);
    const current = id ? live.keywords[k.table].get(id) : undefined;
    for (const [kw, v] of k.owned) push(`${k.table}.${kw}`, current?.get(kw) ?? null, v);
  }
  // Owned AstDB keys, when they could be read (an extension's recording policy); an absent key that already
  // acts as the console's value is no change (the deploy still writes it with Core's other keys).
  for (const a of live.ownedAstdb ? (o.astdb ?? []) : []) {
    const now = live.ownedAstdb?.get(`/${a.family}/${a.key}`) ?? null;
    if (now !== null || a.absent !== a.value) push(`${a.family}/${a.key}`, now, a.value);
  }
  for (const l of o.lists) {
    const parent = Object.entries(l.parent).map(([c, v]) => [c, resolve(v, ids)] as const);
    const parentId = parent[0]?.[1];
    const entries = parent.every(([, v]) => v)
      ? (live.tables[l.table] ?? []).filter((r) => parent.every(([c, v]) => r[c] === v))
      : [];
    switch (l.policy) {
      case "exact": {
        if (l.value) {
          // Each entry with what it owns besides its key (an IVR option: key → destination), as a set.
          const pair = (k: string | null | undefined, v: string | null | undefined) => `${k ?? ""} → ${v ?? ""}`;
          const kc = l.key[0] as string;
          const vc = l.value;
          const now = entries.map((e) => pair(e[kc], e[vc])).sort();
          const want = l.entries
            .map((e) => {
              const v = e[vc] as Value;
              return pair(String(e[kc]), isExpr(v) && v.ref ? refText(v, ids) : v === null ? null : String(v));
            })
            .sort();
          if (now.join("\n") !== want.join("\n")) push(l.field ?? l.table, listText(now), listText(want));
          break;
        }
        const col = l.key[0] as string;
        // In place order (a queue's members by `flags`), or as a set.
        const by = l.orderBy;
        const now = by
          ? [...entries].sort((a, b) => Number(a[by]) - Number(b[by])).map((e) => e[col] ?? "")
          : entries.map((e) => e[col] ?? "").sort();
        const want = by ? l.entries.map((e) => String(e[col])) : l.entries.map((e) => String(e[col])).sort();
        const placed = by
          ? entries.every((e) => l.entries.some((w) => String(w[col]) === e[col] && String(w[by]) === e[by]))
          : true;
        if (now.join("\n") !== want.join("\n") || !placed) push(l.field ?? l.table, listText(now), listText(want));
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

/**
 * An extension with voicemail on whose mailbox is not in voicemail.conf (in the context its users row will
 * name): "voicemail mailbox: absent → created" (ADR 0023). Nothing when voicemail.conf could not be read.
 */
export function mailboxChange(o: PbxObject, live: LiveDb): FieldChange | null {
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

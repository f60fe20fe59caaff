/**
 * The format of a backup before apply (ADR 0026), written by take.ts and read back by rollback.ts: per
 * object its scopes (the rows of each table it can touch, by match keys or by a trunk's or route's PBX id),
 * the rows found in them with every value HEX-encoded, the extensions' AstDB trees with their entries and
 * their voicemail.conf mailbox lines; and the SQL condition the scopes stand for, which the backup reads and
 * the roll back deletes alike.
 */
import type { AstdbTree } from "../host/astdb";
import type { PbxRemote } from "../host/host";
import { str, UnsafeValueError } from "../host/sql";
import type { VoicemailSnapshot } from "../host/voicemail";
import type { ItemKind } from "../objects/ownership";

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
  "ringgroups",
  "queues_config",
  "queues_details",
  "ivr_details",
  "ivr_entries",
  "announcement",
  "timegroups_groups",
  "timegroups_details",
  "timeconditions",
  "featurecodes",
  "callrecording_module",
] as const;
export type Table = (typeof BACKUP_TABLES)[number];

/**
 * A PBX id only known on the PBX: a trunk's trunkid (`@tid`), a route's route_id (`@rid`), an IVR's or an
 * announcement's id (`@ivr_<n>`, `@ann_<n>`).
 */
export const REFS = ["trunk", "route", "ivr", "announcement", "timeGroup", "timeCondition"] as const;
export type Ref = (typeof REFS)[number];
/** `prefix`: the column holds the id after it (a time condition's feature code `toggle-mode-<id>`). */
export type ScopeValue = { eq: string } | { ref: Ref; prefix?: string } | { emptyOrNull: true };
/** Rows of a table matched by every entry of `match` (an empty match: the whole table). */
export interface Scope {
  table: Table;
  match: Record<string, ScopeValue>;
}

/** One object of the plan, as the backup covers it. */
export interface ObjectScope {
  /** "extension 1001", "trunk Carrier". */
  label: string;
  kind: ItemKind;
  key: string;
  /**
   * A trunk, route, IVR or announcement: its PBX ids when backed up, and whether they were found by name (then
   * again at roll back).
   */
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
export interface StoredRows {
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
export interface StoredAstdb {
  trees: AstdbTree[];
  entries: Record<string, string> | null;
  error: string | null;
}

export function ident(name: string): string {
  if (!/^[a-z_]+$/.test(name)) throw new UnsafeValueError(`not a FreePBX column name: ${name}`);
  return `\`${name}\``;
}
export function table(name: string): Table {
  if (!(BACKUP_TABLES as readonly string[]).includes(name))
    throw new UnsafeValueError(`not a backed-up table: ${name}`);
  return name as Table;
}

function whereOf(scope: Scope, ids: string[]): string {
  const parts = Object.entries(scope.match).map(([c, v]) => {
    if ("emptyOrNull" in v) return `(${ident(c)} = '' OR ${ident(c)} IS NULL)`;
    if ("eq" in v) return `${ident(c)} = ${str(v.eq)}`;
    const prefix = "prefix" in v ? (v.prefix ?? "") : "";
    return ids.length ? `${ident(c)} IN (${ids.map((id) => str(prefix + id)).join(", ")})` : "FALSE";
  });
  return parts.length ? `(${parts.join(" AND ")})` : "TRUE";
}

/** Per table, the condition matching every row any object's scope covers. */
export function conditions(objects: ObjectScope[], extraIds: Map<string, string[]> = new Map()): Map<Table, string> {
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

/** Where each kind of PBX id lives: its table, id column and name column. */
const REF_TABLES: Record<Ref, { table: string; id: string; name: string }> = {
  trunk: { table: "trunks", id: "trunkid", name: "name" },
  route: { table: "outbound_routes", id: "route_id", name: "name" },
  ivr: { table: "ivr_details", id: "id", name: "name" },
  announcement: { table: "announcement", id: "announcement_id", name: "description" },
  timeGroup: { table: "timegroups_groups", id: "id", name: "description" },
  timeCondition: { table: "timeconditions", id: "timeconditions_id", name: "displayname" },
};

/** The ids the trunks, routes, IVRs and announcements of `objects` have on the PBX now, found by name (only those found by name). */
export async function idsByName(
  remote: PbxRemote,
  objects: ObjectScope[],
): Promise<Record<Ref, Map<string, string[]>>> {
  const found = Object.fromEntries(REFS.map((k) => [k, new Map<string, string[]>()])) as Record<
    Ref,
    Map<string, string[]>
  >;
  const sql = REFS.flatMap((k, i) => {
    const names = [
      ...new Set(objects.filter((o) => o.ref?.kind === k && o.ref.byName).map((o) => (o.ref as { name: string }).name)),
    ];
    if (!names.length) return [];
    const t = REF_TABLES[k];
    return [
      `SELECT HEX('${i}'), HEX(${ident(t.name)}), HEX(CAST(${ident(t.id)} AS CHAR)) FROM ${ident(t.table)} WHERE ${ident(t.name)} IN (${names.map(str).join(", ")});`,
    ];
  }).join("\n");
  if (!sql) return found;
  for (const [tag, name, id] of await remote.selectHex(sql)) {
    const map = found[REFS[Number(tag)] as Ref];
    if (map && name != null && id != null) map.set(name, [...(map.get(name) ?? []), id]);
  }
  return found;
}

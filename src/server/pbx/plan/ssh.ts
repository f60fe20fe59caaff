/**
 * One object planned against the PBX read over SSH (ADR 0025): create, update field by field, conflict,
 * unchanged or delete. Trunks and outbound routes are found by their recorded PBX id (a rename is an
 * update); an inbound route whose DID changed moves with its settings (ADR 0036).
 */
import type { DeployKind } from "../../../shared/pbx";
import type { PlanRefused } from "../../../shared/plan";
import { KEY_CHANGE, type ManagedRecord } from "../objects/managed";
import type { PbxObject } from "../objects/ownership";
import { AUTO_TABLES, autoVar } from "../objects/refs";
import type { Desired } from "./desired";
import { diffObject, find, type Ids, type LiveDb, liveRowOf, mailboxChange } from "./live";
import { CONFLICT_NOTE, entry, type Matched, type PlanEntry } from "./match";

/** Plans one matched object against the PBX read over SSH. */
export function planSsh(m: Matched, live: LiveDb): PlanEntry | PlanRefused {
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
  } else if (o.identity.kind === "auto") {
    // Found as entities.ts finds it: by the id recorded for it, else by its name (ADR 0059).
    const ref = o.identity.ref;
    ids.refs = live.refs;
    pbxId = live.refs.get(autoVar(ref)) ?? null;
    exists = pbxId !== null;
    const t = AUTO_TABLES[ref.kind];
    const now = pbxId ? find(live, t.table, [t.idColumn], [pbxId])?.[t.nameColumn] : undefined;
    if (record && now !== undefined && now !== ref.name) note = `Renamed from ${now} (id ${pbxId})`;
  } else {
    exists = o.rows.some((row) => !row.companion && liveRowOf(live, row, ids) !== undefined);
  }
  // Destinations to IVRs and announcements are compared with the ids those have on the PBX.
  ids.refs = live.refs;
  let raw = diffObject(o, live, ids);
  // A managed object whose key the console changed (an inbound route's DID, ADR 0036): its row moves.
  const from = o.identity.kind === "number" && record && record.key !== o.key ? record.key : null;
  let adoptMoved = false;
  if (from !== null && KEY_CHANGE[o.kind] === "move") {
    const old = movedObject(o, from);
    const oldExists = old.rows.some((row) => !row.companion && liveRowOf(live, row, ids) !== undefined);
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
  // A group without the keys Ringgroups::add() writes (made by SQL, e.g. the Config Generator's script).
  if (o.kind === "ringGroup" && exists && live.ringGroupAstdb && !live.ringGroupAstdb.has(o.key))
    raw.push({ field: "astdb", from: null, to: "RINGGROUP changecid/fixedcid entries" });
  // A queue without the key queues_add() writes (made by SQL, e.g. the Config Generator's script).
  if (o.kind === "queue" && exists && live.queueAstdb && !live.queueAstdb.has(o.key))
    raw.push({ field: "astdb", from: null, to: "QPENALTY dynmemberonly entry" });
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

/** The console object with the PBX id it is written by (a managed trunk/route keeps its id through a rename). */
function withPbxId(d: Desired, pbxId: string | null): Desired {
  const o = d.object;
  if (pbxId && o.identity.kind === "auto")
    return { ...d, object: { ...o, identity: { ...o.identity, ref: { ...o.identity.ref, pbxId } } } };
  if (!pbxId || (o.identity.kind !== "trunk" && o.identity.kind !== "outboundRoute")) return d;
  return { ...d, object: { ...o, identity: { ...o.identity, pbxId } } };
}

/**
 * Deleting a managed object from FreePBX's tables (ADR 0025): only objects the console
 * manages (`pbx_objects`), only after the review, found by their recorded PBX id (trunkid, route_id) or
 * number. The rows FreePBX's own delete removes for that object; an extension's AstDB trees are deleted
 * after the transaction (host.ts `deleteAstdbTrees`). Nothing of another object is touched.
 */

import { extensionNumber, str } from "../host/sql";
import { pbxInt, type SqlItem } from "../objects/entities";
import type { ItemKind } from "../objects/ownership";

export interface DeleteTarget {
  kind: ItemKind;
  key: string;
  label: string;
  /** trunkid / route_id / id for trunks, outbound routes, IVRs and announcements. */
  pbxId: string | null;
}

function statements(t: DeleteTarget): string[] {
  switch (t.kind) {
    case "extension": {
      const n = str(extensionNumber(t.key));
      return [
        `DELETE FROM devices WHERE id = ${n};`,
        `DELETE FROM users WHERE extension = ${n};`,
        `DELETE FROM sip WHERE id = ${n};`,
      ];
    }
    case "trunk": {
      if (t.pbxId === null) throw new Error(`trunk ${t.key}: no recorded trunkid to delete`);
      const id = pbxInt(t.pbxId);
      return [
        `DELETE FROM trunks WHERE trunkid = ${id};`,
        `DELETE FROM pjsip WHERE id = ${str(String(id))};`,
        // FreePBX's trunk delete also takes it out of every route's trunk list.
        `DELETE FROM outbound_route_trunks WHERE trunk_id = ${id};`,
      ];
    }
    case "outboundRoute": {
      if (t.pbxId === null) throw new Error(`route ${t.key}: no recorded route_id to delete`);
      const id = pbxInt(t.pbxId);
      return [
        `DELETE FROM outbound_routes WHERE route_id = ${id};`,
        `DELETE FROM outbound_route_patterns WHERE route_id = ${id};`,
        `DELETE FROM outbound_route_trunks WHERE route_id = ${id};`,
        `DELETE FROM outbound_route_sequence WHERE route_id = ${id};`,
        // The callrecording module's row of the route (its `delroute` hook, callrecording_adjustroute).
        `DELETE FROM callrecording_module WHERE display = 'routing' AND extension = ${str(String(id))};`,
      ];
    }
    case "inboundRoute": {
      if (!/^\+?\d{0,20}$/.test(t.key)) throw new Error(`not a DID: ${t.key}`);
      return [
        `DELETE FROM incoming WHERE extension = ${str(t.key)} AND (cidnum = '' OR cidnum IS NULL);`,
        // The callrecording module's row of the DID (its `delIncoming` hook, callrecording_display_delete).
        `DELETE FROM callrecording_module WHERE display = 'did' AND extension = ${str(t.key)} AND (cidnum = '' OR cidnum IS NULL);`,
      ];
    }
    case "ringGroup": {
      // Ringgroups::delete(): the row; its AstDB tree RINGGROUP/<n> goes after the transaction (apply.ts).
      return [`DELETE FROM ringgroups WHERE grpnum = ${str(extensionNumber(t.key, "Group number"))};`];
    }
    case "queue": {
      // queues_del(): its queues_details rows and its queues_config row; its AstDB tree QPENALTY/<n> goes after
      // the transaction (apply.ts).
      const n = str(extensionNumber(t.key, "Queue number"));
      return [`DELETE FROM queues_details WHERE id = ${n};`, `DELETE FROM queues_config WHERE extension = ${n};`];
    }
    case "ivr": {
      // Ivr::delete(): its options, then its row.
      if (t.pbxId === null) throw new Error(`IVR ${t.key}: no recorded id to delete`);
      const id = pbxInt(t.pbxId);
      return [`DELETE FROM ivr_entries WHERE ivr_id = ${id};`, `DELETE FROM ivr_details WHERE id = ${id};`];
    }
    case "announcement": {
      if (t.pbxId === null) throw new Error(`announcement ${t.key}: no recorded id to delete`);
      return [`DELETE FROM announcement WHERE announcement_id = ${pbxInt(t.pbxId)};`];
    }
    case "timeGroup": {
      // Timeconditions::delTimeGroup(): its rows, then the group.
      if (t.pbxId === null) throw new Error(`time group ${t.key}: no recorded id to delete`);
      const id = pbxInt(t.pbxId);
      return [
        `DELETE FROM timegroups_details WHERE timegroupid = ${id};`,
        `DELETE FROM timegroups_groups WHERE id = ${id};`,
      ];
    }
    case "timeCondition": {
      // Timeconditions::delTimeCondition(): the row and its toggle's feature code.
      if (t.pbxId === null) throw new Error(`time condition ${t.key}: no recorded id to delete`);
      const id = pbxInt(t.pbxId);
      return [
        `DELETE FROM timeconditions WHERE timeconditions_id = ${id};`,
        `DELETE FROM featurecodes WHERE modulename = 'timeconditions' AND featurename = ${str(`toggle-mode-${id}`)};`,
      ];
    }
    case "pttGroup": {
      const n = str(extensionNumber(t.key, "Group number"));
      return [
        `DELETE FROM paging_config WHERE page_group = ${n};`,
        `DELETE FROM paging_groups WHERE page_number = ${n};`,
      ];
    }
  }
}

/** The statements that delete one managed object's FreePBX rows. */
export function deleteItem(t: DeleteTarget): SqlItem {
  return { kind: t.kind, key: t.key, label: t.label, statements: statements(t) };
}

/** What differs between the tabs of the Sync screen: columns, row keys and texts. */
import type { CallGroupComparison, ExtensionComparison, TrunkComparison } from "../../../shared/pbx";
import type { SyncKind } from "./api";

export type RowStatus = "Not in Dashboard" | "Needs Sync" | "Synced";

export function rowStatus(row: { inDashboard: boolean; needsSync: boolean }): RowStatus {
  if (!row.inDashboard) return "Not in Dashboard";
  return row.needsSync ? "Needs Sync" : "Synced";
}

/** Rows that already match have nothing to import. */
export const isSelectable = (row: { inDashboard: boolean; needsSync: boolean }) => rowStatus(row) !== "Synced";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => string | null;
  mono?: boolean;
}

export interface SyncConfig<Row> {
  /** Tab value, and which list and import the tab works on. */
  kind: SyncKind;
  /** "extension" / "trunk", for labels. */
  singular: string;
  keyOf: (row: Row) => string;
  columns: Column<Row>[];
  importedTitle: string;
  failedText: string;
}

export const EXTENSIONS: SyncConfig<ExtensionComparison> = {
  kind: "extensions",
  singular: "extension",
  keyOf: (r) => r.extension,
  columns: [
    { header: "Extension", cell: (r) => r.extension, mono: true },
    { header: "Name (PBX)", cell: (r) => r.freepbx.name },
    { header: "Name (Dashboard)", cell: (r) => r.dashboard.name },
  ],
  importedTitle: "Extensions Imported",
  failedText: "Failed to import extensions from the PBX",
};

export const TRUNKS: SyncConfig<TrunkComparison> = {
  kind: "trunks",
  singular: "trunk",
  keyOf: (r) => r.name,
  columns: [
    { header: "Name", cell: (r) => r.name },
    { header: "Host (PBX)", cell: (r) => r.freepbx.host, mono: true },
    { header: "Host (Dashboard)", cell: (r) => r.dashboard.host, mono: true },
  ],
  importedTitle: "Trunks Imported",
  failedText: "Failed to import trunks from the PBX",
};

/** A ring group's or queue's tab: its number and name on both sides (the import compares every field it writes). */
const callGroups = (
  kind: "ring-groups" | "queues",
  singular: string,
  title: string,
): SyncConfig<CallGroupComparison> => ({
  kind,
  singular,
  keyOf: (r) => r.number,
  columns: [
    { header: "Number", cell: (r) => r.number, mono: true },
    { header: "Name (PBX)", cell: (r) => r.freepbx.name },
    { header: "Name (Dashboard)", cell: (r) => r.dashboard.name },
  ],
  importedTitle: `${title} Imported`,
  failedText: `Failed to import ${singular}s from the PBX`,
});

export const RING_GROUPS = callGroups("ring-groups", "ring group", "Ring Groups");
export const QUEUES = callGroups("queues", "queue", "Queues");

/**
 * An IVR or announcement on the PBX next to the console's it is (`GET /api/sync/{ivrs,announcements}/compare`):
 * keyed by FreePBX's id, since FreePBX numbers these itself and their names need not be unique there.
 */
export interface CallFlowComparison {
  pbxId: string;
  inDashboard: boolean;
  needsSync: boolean;
  freepbx: { name: string | null };
  dashboard: { name: string | null };
}

/** An IVR's or announcement's tab: FreePBX's id and the name on both sides (the import compares every field it writes). */
const callFlow = (kind: "ivrs" | "announcements", singular: string, title: string): SyncConfig<CallFlowComparison> => ({
  kind,
  singular,
  keyOf: (r) => r.pbxId,
  columns: [
    { header: "FreePBX ID", cell: (r) => r.pbxId, mono: true },
    { header: "Name (PBX)", cell: (r) => r.freepbx.name },
    { header: "Name (Dashboard)", cell: (r) => r.dashboard.name },
  ],
  importedTitle: `${title} Imported`,
  failedText: `Failed to import ${singular}s from the PBX`,
});

export const IVRS = callFlow("ivrs", "IVR", "IVRs");
export const ANNOUNCEMENTS = callFlow("announcements", "announcement", "Announcements");

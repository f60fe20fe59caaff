/**
 * Matching for a plan (ADR 0025): console objects paired with their ownership records, and the entry each
 * pair becomes: the wire item (secrets masked) beside the raw changes the fingerprint covers. Both ways of
 * reading the PBX (ssh.ts, graphql.ts) plan into these entries.
 */
import type { DeployKind } from "../../../shared/pbx";
import { type FieldChange, type PlanAction, type PlanItem, planItemId } from "../../../shared/plan";
import { KEY_CHANGE, type ManagedRecord } from "../objects/managed";
import type { ItemKind } from "../objects/ownership";
import type { Desired } from "./desired";

/** A field whose values a plan masks. */
export const SECRET_FIELD = /secret|password/;

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

export interface Matched {
  kind: ItemKind;
  desired?: Desired;
  record?: ManagedRecord;
}

/**
 * Pairs console objects with their records: trunks, outbound and inbound routes by console row first (a
 * rename or a DID change, `KEY_CHANGE`), else by key.
 */
export function match(desired: Desired[], records: ManagedRecord[], kinds: ItemKind[]): Matched[] {
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

export const CONFLICT_NOTE =
  "On the PBX with the same number or name, but not managed by the console (made in FreePBX, or deployed before the console recorded what it manages): adopt it to let the console update it, or skip it";

/** A plan entry: the wire item (secrets masked) beside the raw changes and what apply needs. */
export function entry(
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

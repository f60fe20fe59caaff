/**
 * Destinations to objects FreePBX numbers itself (ADR 0059): an IVR, announcement or time condition is the
 * console's object in a destination, and a script holds its FreePBX id in a session variable named after the console's id (`@ivr_3`,
 * never user text), found by the id recorded for it, else by its name. A destination to one is an expression
 * over that variable (`CONCAT('ivr-', @ivr_3, ',s,1')`).
 */
import { announcements, ivrs, timeConditions, timeGroups } from "../../../db/schema";
import { type Destination, destinationProblem, destinationString } from "../../../shared/destinations";
import type { DbOrTx } from "../../inventory/numbers";
import { UnsafeValueError } from "../host/sql";
import type { AutoRef, Expr, Value } from "./values";

const must = (problem: string | null) => {
  if (problem) throw new UnsafeValueError(problem);
};

/** The session variable that holds the object's FreePBX id in a script. */
export function autoVar(ref: Pick<AutoRef, "kind" | "consoleId">): string {
  if (!Number.isSafeInteger(ref.consoleId) || ref.consoleId < 1) throw new UnsafeValueError("not a console id");
  return `@${VAR_PREFIX[ref.kind]}_${ref.consoleId}`;
}
const VAR_PREFIX: Record<AutoRef["kind"], string> = {
  ivr: "ivr",
  announcement: "ann",
  timeGroup: "tg",
  timeCondition: "tc",
};

/** Where FreePBX keeps each kind, and its destination string around the id. */
export const AUTO_TABLES = {
  ivr: { table: "ivr_details", idColumn: "id", nameColumn: "name", label: "IVR" },
  announcement: {
    table: "announcement",
    idColumn: "announcement_id",
    nameColumn: "description",
    label: "announcement",
  },
  timeGroup: { table: "timegroups_groups", idColumn: "id", nameColumn: "description", label: "time group" },
  timeCondition: {
    table: "timeconditions",
    idColumn: "timeconditions_id",
    nameColumn: "displayname",
    label: "time condition",
  },
} as const;

/** The destination kinds whose target is such an object, and its kind. */
const DESTINATION_REF = { ivr: "ivr", announcement: "announcement", "time-condition": "timeCondition" } as const;

/** The console's IVRs and announcements by id, with the FreePBX ids recorded for them: what destinations point at. */
export interface RefBook {
  get(kind: AutoRef["kind"], consoleId: string): AutoRef | undefined;
}

/** The book of the console's IVRs and announcements, and their records (`pbx_objects`). */
export function refBook(
  db: DbOrTx,
  records: readonly { kind: string; consoleId: number | null; pbxId: string | null }[],
): RefBook {
  const refs = new Map<string, AutoRef>();
  const pbxIdOf = (kind: AutoRef["kind"], id: number) =>
    records.find((r) => r.kind === kind && r.consoleId === id)?.pbxId ?? undefined;
  const add = (kind: AutoRef["kind"], id: number, name: string) => {
    const pbxId = pbxIdOf(kind, id);
    refs.set(`${kind}:${id}`, { kind, consoleId: id, name, ...(pbxId ? { pbxId } : {}) });
  };
  for (const i of db.select({ id: ivrs.id, name: ivrs.name }).from(ivrs).all()) add("ivr", i.id, i.name);
  for (const a of db.select({ id: announcements.id, name: announcements.name }).from(announcements).all())
    add("announcement", a.id, a.name);
  for (const g of db.select({ id: timeGroups.id, name: timeGroups.name }).from(timeGroups).all())
    add("timeGroup", g.id, g.name);
  for (const t of db.select({ id: timeConditions.id, name: timeConditions.name }).from(timeConditions).all())
    add("timeCondition", t.id, t.name);
  return { get: (kind, id) => refs.get(`${kind}:${id}`) };
}

/** The hang-up destination FreePBX's forms write for "none". */
const HANGUP = destinationString("hangup", "");

/**
 * The value a destination column gets: FreePBX's string, or for an IVR or announcement an expression over its
 * variable. `null`: FreePBX's hang up.
 */
export function destinationValue(d: Destination | null, book: RefBook | null, orNone: string = HANGUP): Value {
  if (!d) return orNone;
  must(destinationProblem(d.kind, d.target));
  if (d.kind !== "ivr" && d.kind !== "announcement" && d.kind !== "time-condition")
    return destinationString(d.kind, d.target);
  const kind = DESTINATION_REF[d.kind];
  const ref = book?.get(kind, d.target);
  if (!ref) throw new UnsafeValueError(`${AUTO_TABLES[kind].label} ${d.target} does not exist in the console`);
  const [before, after] = destinationString(d.kind, "\u0000").split("\u0000") as [string, string];
  const expr: Expr = {
    sql: `CONCAT('${before}', ${autoVar(ref)}, '${after}')`,
    text: `${AUTO_TABLES[kind].label} ${ref.name}`,
    ref,
    render: (id) => `${before}${id}${after}`,
  };
  return expr;
}

/**
 * FreePBX's string for a destination where FreePBX's ids can only be had from the records (FreePBX's API cannot
 * look an IVR up by name): the recorded id's string, or why there is none. An object the console does not have
 * throws, as `destinationValue` does.
 */
export function recordedDestination(d: Destination, book: RefBook): { value: string } | { reason: string } {
  const v = destinationValue(d, book);
  if (typeof v === "string") return { value: v };
  const id = (v as Expr).ref?.pbxId;
  const render = (v as Expr).render;
  if (id !== undefined && render) return { value: render(id) };
  return { reason: unrecordedReason((v as Expr).text) };
}

/** Why FreePBX's API cannot write a destination to an object the console has not deployed (so has no id of). */
export const unrecordedReason = (what: string) =>
  `It sends calls to ${what}, which the console has not deployed yet: FreePBX's API cannot find its id. Configure the PBX host (SSH) in API Settings to deploy both`;

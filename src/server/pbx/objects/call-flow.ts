/**
 * IVRs and announcements as FreePBX rows (ADR 0059): objects FreePBX numbers itself. Each is found on the PBX
 * by the id the console recorded for it, else by its name, else its new row takes the next AUTO_INCREMENT id;
 * a script holds that id in a session variable named after the console's id (`@ivr_3`, never user text). A
 * destination to one is computed on the PBX from that variable (`CONCAT('ivr-', @ivr_3, ',s,1')`), after every
 * object's rows are written, so objects that point at each other in any direction are written in one
 * transaction (entities.ts). What the console does not own of them (direct dial, retry recordings, alert
 * info, return to IVR…) is FreePBX's, written only for a new row with FreePBX's own form defaults.
 */
import type { announcements, ivrs } from "../../../db/schema";
import { CALL_FLOW_LIMITS, ivrRules } from "../../../shared/call-flow";
import { configTextProblem, pbxProblem } from "../../../shared/inventory";
import { UnsafeValueError } from "../host/sql";
import type { PbxObject } from "./ownership";
import { AUTO_TABLES, autoVar, destinationValue, type RefBook } from "./refs";
import type { AutoRef, Expr, Value } from "./values";

export type IvrRow = typeof ivrs.$inferSelect;
export type AnnouncementRow = typeof announcements.$inferSelect;

const must = (problem: string | null) => {
  if (problem) throw new UnsafeValueError(problem);
};

/** The object's own id, as its rows match it. */
function idExpr(ref: AutoRef): Expr {
  return { sql: autoVar(ref), text: `the ${AUTO_TABLES[ref.kind].label}'s id`, ref, render: (id) => id };
}

/**
 * What FreePBX's IVR form (ivr Ivr.class.php DEFAULTS, `saveDetails`) writes for a new IVR in the columns the
 * console does not own: direct dial to extensions, FreePBX's "invalid, try again" prompts, no return to a parent
 * IVR, the instant dial timeout.
 */
export const IVR_DEFAULTS: Readonly<Record<string, Value>> = {
  description: "",
  directdial: "ext-local",
  invalid_retry_recording: "default",
  invalid_append_announce: 0,
  invalid_ivr_ret: 0,
  invalid_recording: "",
  timeout_retry_recording: "default",
  timeout_append_announce: 0,
  timeout_ivr_ret: 0,
  timeout_recording: "default",
  alertinfo: "",
  rvolume: "",
  strict_dial_timeout: 2,
  retvm: "",
  accept_pound_key: 0,
};

/**
 * IVR = an ivr_details row and its ivr_entries. Owned: the name, the greeting (`announcement`, a system
 * recording's id), the key timeout, the retries (both loops), the wrong-key and no-key destinations, and the
 * options (`selection` → `dest`; options the console does not list are removed, as FreePBX's own save does).
 */
export function ivrObject(i: IvrRow, book: RefBook): PbxObject {
  must(
    pbxProblem(ivrRules, {
      name: i.name,
      timeout: i.timeout,
      retries: i.retries,
      options: i.options,
    }),
  );
  const ref = book.get("ivr", String(i.id));
  if (!ref) throw new UnsafeValueError(`IVR ${i.name} is not in the console`);
  const id = idExpr(ref);
  const dest = (kind: IvrRow["invalidKind"], target: string | null) =>
    destinationValue(kind ? { kind, target: target ?? "" } : null, book);
  return {
    kind: "ivr",
    key: i.name,
    label: i.name,
    identity: { kind: "auto", ref, ...AUTO_TABLES.ivr },
    rows: [
      {
        table: "ivr_details",
        match: { id },
        autoIncrement: true,
        owned: {
          name: i.name,
          announcement: i.greeting,
          timeout_time: i.timeout,
          invalid_loops: String(i.retries),
          timeout_loops: String(i.retries),
          invalid_destination: dest(i.invalidKind, i.invalidTarget),
          timeout_destination: dest(i.timeoutKind, i.timeoutTarget),
        },
        defaults: IVR_DEFAULTS,
      },
    ],
    keywords: [],
    lists: [
      {
        table: "ivr_entries",
        parent: { ivr_id: id },
        key: ["selection"],
        value: "dest",
        field: "ivr_entries (options)",
        entries: i.options.map((o) => ({
          selection: o.digits,
          dest: destinationValue(o.destination, book),
          ivr_ret: 0,
        })),
        policy: "exact",
      },
    ],
  };
}

/** What FreePBX's announcement form (`addAnnouncement`) writes for a new one in the columns the console does not own. */
export const ANNOUNCEMENT_DEFAULTS: Readonly<Record<string, Value>> = {
  return_ivr: 0,
  noanswer: 0,
  repeat_msg: "",
};

/** Announcement = an announcement row. Owned: the name, the recording, whether a key skips it, where the call goes after. */
export function announcementObject(a: AnnouncementRow, book: RefBook): PbxObject {
  must(configTextProblem(a.name, CALL_FLOW_LIMITS.announcementName, "Name"));
  const ref = book.get("announcement", String(a.id));
  if (!ref) throw new UnsafeValueError(`Announcement ${a.name} is not in the console`);
  return {
    kind: "announcement",
    key: a.name,
    label: a.name,
    identity: { kind: "auto", ref, ...AUTO_TABLES.announcement },
    rows: [
      {
        table: "announcement",
        match: { announcement_id: idExpr(ref) },
        autoIncrement: true,
        owned: {
          description: a.name,
          recording_id: a.recording,
          allow_skip: a.allowSkip ? 1 : 0,
          post_dest: destinationValue(a.afterKind ? { kind: a.afterKind, target: a.afterTarget ?? "" } : null, book),
        },
        defaults: ANNOUNCEMENT_DEFAULTS,
      },
    ],
    keywords: [],
    lists: [],
  };
}

/** Every object a value of `o` points at (its destinations to IVRs and announcements), itself left out. */
export function refsOf(o: PbxObject): AutoRef[] {
  const out = new Map<string, AutoRef>();
  const self = o.identity.kind === "auto" ? autoVar(o.identity.ref) : null;
  const visit = (v: unknown) => {
    if (typeof v !== "object" || v === null || !("ref" in v)) return;
    const ref = (v as Expr).ref;
    if (ref && autoVar(ref) !== self) out.set(autoVar(ref), ref);
  };
  for (const r of o.rows) for (const v of Object.values(r.owned)) visit(v);
  for (const l of o.lists) for (const e of l.entries) for (const v of Object.values(e)) visit(v);
  return [...out.values()];
}

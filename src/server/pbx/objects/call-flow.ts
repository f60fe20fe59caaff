/**
 * IVRs and announcements as FreePBX rows (ADR 0059): objects FreePBX numbers itself. Each is found on the PBX
 * by the id the console recorded for it, else by its name, else its new row takes the next AUTO_INCREMENT id;
 * a script holds that id in a session variable named after the console's id (`@ivr_3`, never user text). A
 * destination to one is computed on the PBX from that variable (`CONCAT('ivr-', @ivr_3, ',s,1')`), after every
 * object's rows are written, so objects that point at each other in any direction are written in one
 * transaction (entities.ts). What the console does not own of them (direct dial, retry recordings, alert
 * info, return to IVR…) is FreePBX's, written only for a new row with FreePBX's own form defaults.
 */
import type { announcements, ivrs, timeConditions, timeGroups } from "../../../db/schema";
import {
  CALL_FLOW_LIMITS,
  type Holiday,
  holidayRow,
  ivrRules,
  timeConditionRules,
  timeGroupRules,
  type WeeklyHours,
  weeklyRow,
} from "../../../shared/call-flow";
import { configTextProblem, pbxProblem } from "../../../shared/inventory";
import { str, UnsafeValueError } from "../host/sql";
import type { PbxObject } from "./ownership";
import { AUTO_TABLES, autoVar, destinationValue, type RefBook } from "./refs";
import type { AutoRef, Expr, Value } from "./values";

export type IvrRow = typeof ivrs.$inferSelect;
export type AnnouncementRow = typeof announcements.$inferSelect;
export type TimeGroupRow = typeof timeGroups.$inferSelect;
export type TimeConditionRow = typeof timeConditions.$inferSelect;

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

/**
 * Time group = a timegroups_groups row and its timegroups_details rows, one per weekly range or holiday, as
 * FreePBX's own form writes them (`08:00-17:00|mon-fri|*|*`, `*|*|24-26|dec`). Owned: the name and the rows (rows
 * the console does not list are removed, as FreePBX's `editTimes()` replaces them).
 */
export function timeGroupObject(g: TimeGroupRow, book: RefBook): PbxObject {
  const weekly = g.weekly as WeeklyHours[];
  const holidays = g.holidays as Holiday[];
  must(pbxProblem(timeGroupRules, { name: g.name, weekly, holidays }));
  const ref = book.get("timeGroup", String(g.id));
  if (!ref) throw new UnsafeValueError(`Time group ${g.name} is not in the console`);
  const id = idExpr(ref);
  return {
    kind: "timeGroup",
    key: g.name,
    label: g.name,
    identity: { kind: "auto", ref, ...AUTO_TABLES.timeGroup },
    rows: [
      { table: "timegroups_groups", match: { id }, autoIncrement: true, owned: { description: g.name }, defaults: {} },
    ],
    keywords: [],
    lists: [
      {
        table: "timegroups_details",
        parent: { timegroupid: id },
        key: ["time"],
        field: "timegroups_details (hours)",
        entries: [...weekly.map(weeklyRow), ...holidays.map(holidayRow)].map((time) => ({ time })),
        policy: "exact",
      },
    ],
  };
}

/**
 * What FreePBX's `addTimeCondition()` writes for a new time condition in the columns the console does not own: no
 * department or override password, a BLF hint not inverted, the time-group mode (not a calendar).
 */
export const TIME_CONDITION_DEFAULTS: Readonly<Record<string, Value>> = {
  deptname: "",
  generate_hint: 1,
  invert_hint: 0,
  fcc_password: "",
  mode: "time-group",
  calendar_id: "",
  calendar_group_id: "",
};

/**
 * Time condition = a timeconditions row and the feature code FreePBX's `createFeatureCode()` makes for its override
 * toggle (`*27<id>`). Owned: the name, the time group (its FreePBX id), the zone ('' is the PBX's own), where calls
 * go in and out of hours, and the feature code's description (FreePBX renames it with the time condition). The
 * override is the PBX's state: never written here (ADR 0059).
 */
export function timeConditionObject(t: TimeConditionRow, book: RefBook): PbxObject {
  must(pbxProblem(timeConditionRules, { name: t.name, timeZone: t.timeZone }));
  const ref = book.get("timeCondition", String(t.id));
  if (!ref) throw new UnsafeValueError(`Time condition ${t.name} is not in the console`);
  const group = book.get("timeGroup", String(t.timeGroupId));
  if (!group) throw new UnsafeValueError(`Time condition ${t.name}: its time group is not in the console`);
  const id = idExpr(ref);
  const v = autoVar(ref);
  const dest = (kind: TimeConditionRow["matchKind"], target: string | null) =>
    destinationValue(kind ? { kind, target: target ?? "" } : null, book);
  const code = (sql: string, text: string, render: (id: string) => string): Expr => ({ sql, text, ref, render });
  return {
    kind: "timeCondition",
    key: t.name,
    label: t.name,
    identity: { kind: "auto", ref, ...AUTO_TABLES.timeCondition },
    rows: [
      {
        table: "timeconditions",
        match: { timeconditions_id: id },
        autoIncrement: true,
        owned: {
          displayname: t.name,
          time: { sql: autoVar(group), text: `time group ${group.name}`, ref: group, render: (gid) => gid },
          timezone: t.timeZone ?? "",
          truegoto: dest(t.matchKind, t.matchTarget),
          falsegoto: dest(t.noMatchKind, t.noMatchTarget),
        },
        defaults: TIME_CONDITION_DEFAULTS,
      },
      {
        table: "featurecodes",
        match: {
          modulename: "timeconditions",
          featurename: code(`CONCAT('toggle-mode-', ${v})`, "its toggle's feature code", (i) => `toggle-mode-${i}`),
        },
        owned: {
          description: code(`CONCAT(${v}, ': ', ${str(t.name)})`, `"<id>: ${t.name}"`, (i) => `${i}: ${t.name}`),
        },
        defaults: {
          helptext: "",
          defaultcode: code(`CONCAT('*27', ${v})`, "*27<id>", (i) => `*27${i}`),
          customcode: "",
          enabled: 1,
          providedest: 1,
          depend: "",
        },
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

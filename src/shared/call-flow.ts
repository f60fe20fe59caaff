/**
 * IVRs and announcements: the call-flow objects FreePBX numbers itself (ADR 0059). Their FreePBX id is
 * not known before they are on the PBX, so the console keys them by its own id: a destination to one
 * (`{kind: "ivr", target: "3"}`) names the console's IVR 3, and the deploy writes FreePBX's id in its
 * place. One schema per request, shared by the server and the forms, as for the other entities.
 */
import { z } from "zod";
import type { Destination } from "./destinations";
import { patchOf } from "./fields";
import { checked, configTextProblem, destinationSchema, type FieldRule, named, withRules } from "./inventory";
import { lazySchema } from "./lazy-schema";

/** FreePBX's column limits: ivr_details.name, announcement.description, ivr_entries.selection. */
export const CALL_FLOW_LIMITS = {
  ivrName: 50,
  announcementName: 50,
  /** The console's own bound on a key sequence (FreePBX's column holds 30). */
  digits: 10,
  options: 40,
} as const;

/** The IVR's wait for a key press after its greeting (FreePBX's `timeout_time`; its form offers up to 60). */
export const IVR_TIMEOUT = { min: 1, max: 60, default: 10 } as const;
/** How often a caller may press a wrong key or nothing before the invalid/timeout destination (FreePBX's loops). */
export const IVR_RETRIES = { min: 0, max: 9, default: 3 } as const;

/** A key sequence a caller presses: digits, `*` and `#` (FreePBX's `t` and `i` are its timeout and invalid handlers). */
export const DIGITS_RE = /^[0-9*#]+$/;
export function digitsProblem(digits: string): string | null {
  if (digits === "") return "Enter the key(s) the caller presses";
  if (!DIGITS_RE.test(digits)) return "Keys must be digits 0-9, * or #";
  return digits.length > CALL_FLOW_LIMITS.digits ? `Keys must be at most ${CALL_FLOW_LIMITS.digits} characters` : null;
}

/** A system recording on the PBX (FreePBX's recordings.id), or none. */
const recordingField = (label: string) =>
  z
    .number({ error: `${label} must be a system recording` })
    .int(`${label} must be a system recording`)
    .positive(`${label} must be a system recording`)
    .nullable()
    .optional()
    .transform((v) => v ?? null);

const optionalDestination = () =>
  destinationSchema
    .nullable()
    .optional()
    .transform((v) => v ?? null);

export interface IvrOption {
  digits: string;
  destination: Destination;
}

interface IvrRuleFields {
  name: string;
  timeout: number;
  retries: number;
  options: IvrOption[];
}

const TIMEOUT_MESSAGE = `Timeout must be ${IVR_TIMEOUT.min}-${IVR_TIMEOUT.max} seconds`;
const RETRIES_MESSAGE = `Retries must be ${IVR_RETRIES.min}-${IVR_RETRIES.max}`;

/** What the deploy writes of an IVR: the request schema and the deploy check the same rules. */
export const ivrRules: readonly FieldRule<IvrRuleFields>[] = [
  { field: "name", problem: (i) => configTextProblem(i.name, CALL_FLOW_LIMITS.ivrName, "Name") },
  {
    field: "timeout",
    problem: (i) =>
      Number.isInteger(i.timeout) && i.timeout >= IVR_TIMEOUT.min && i.timeout <= IVR_TIMEOUT.max
        ? null
        : TIMEOUT_MESSAGE,
  },
  {
    field: "retries",
    problem: (i) =>
      Number.isInteger(i.retries) && i.retries >= IVR_RETRIES.min && i.retries <= IVR_RETRIES.max
        ? null
        : RETRIES_MESSAGE,
  },
  {
    field: "options",
    problem: (i) => {
      if (i.options.length > CALL_FLOW_LIMITS.options) return `At most ${CALL_FLOW_LIMITS.options} options`;
      const seen = new Set<string>();
      for (const o of i.options) {
        const p = digitsProblem(o.digits);
        if (p) return p;
        if (seen.has(o.digits)) return `Key(s) ${o.digits} are listed twice`;
        seen.add(o.digits);
      }
      // A caller pressing 1 would never reach 12: Asterisk takes the first key that matches exactly.
      for (const a of seen)
        for (const b of seen)
          if (a !== b && b.startsWith(a))
            return `Key(s) ${a} and ${b} overlap: a caller pressing ${a} never reaches ${b}`;
      return null;
    },
  },
];

export const ivrSchema = lazySchema(() =>
  withRules(
    z.object({
      name: named("Name"),
      /** Played when the IVR answers (FreePBX's `announcement`); none: the caller hears silence while it waits. */
      greeting: recordingField("Greeting"),
      timeout: z
        .number({ error: "Timeout must be a number of seconds" })
        .int("Timeout must be a whole number of seconds")
        .default(IVR_TIMEOUT.default),
      retries: z
        .number({ error: "Retries must be a number" })
        .int("Retries must be a whole number")
        .default(IVR_RETRIES.default),
      options: z
        .array(
          z.object({
            digits: checked(z.string({ error: "Enter the key(s) the caller presses" }).trim(), digitsProblem),
            destination: destinationSchema,
          }),
          { error: "Options must be a list of keys and destinations" },
        )
        .default([]),
      /** After the retries of a wrong key; null: FreePBX hangs up. */
      invalidDestination: optionalDestination(),
      /** After the retries of no key at all; null: FreePBX hangs up. */
      timeoutDestination: optionalDestination(),
    }),
    ivrRules,
  ),
);
export const ivrPatchSchema = lazySchema(() => patchOf(ivrSchema));

interface AnnouncementRuleFields {
  name: string;
}

export const announcementRules: readonly FieldRule<AnnouncementRuleFields>[] = [
  { field: "name", problem: (a) => configTextProblem(a.name, CALL_FLOW_LIMITS.announcementName, "Name") },
];

export const announcementSchema = lazySchema(() =>
  withRules(
    z.object({
      name: named("Name"),
      /** What the caller hears (FreePBX's `recording_id`); none: the call goes straight on. */
      recording: recordingField("Recording"),
      /** The caller may press a key to skip it (FreePBX's `allow_skip`). */
      allowSkip: z.boolean({ error: "Allow skip must be true or false" }).default(false),
      /** Where the call goes after it; null: FreePBX hangs up. */
      after: optionalDestination(),
    }),
    announcementRules,
  ),
);
export const announcementPatchSchema = lazySchema(() => patchOf(announcementSchema));

export interface Ivr {
  id: number;
  name: string;
  greeting: number | null;
  timeout: number;
  retries: number;
  options: IvrOption[];
  invalidDestination: Destination | null;
  timeoutDestination: Destination | null;
  createdAt: string;
}

export interface Announcement {
  id: number;
  name: string;
  recording: number | null;
  allowSkip: boolean;
  after: Destination | null;
  createdAt: string;
}

/* ─────────────────────────── Time groups and time conditions ─────────────────────────── */

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] as const;
export type Month = (typeof MONTHS)[number];
/** The days each month can have (29 for February: a holiday is every year, and leap years have it). */
const MONTH_DAYS: Record<Month, number> = {
  jan: 31,
  feb: 29,
  mar: 31,
  apr: 30,
  may: 31,
  jun: 30,
  jul: 31,
  aug: 31,
  sep: 30,
  oct: 31,
  nov: 30,
  dec: 31,
};

/** FreePBX's column limits: timegroups_groups.description, timeconditions.displayname. */
export const TIME_LIMITS = { timeGroupName: 50, timeConditionName: 50, rows: 50 } as const;

/** A time of day as Asterisk's GotoIfTime reads it: `HH:MM`, 00:00 to 23:59. */
export const CLOCK_RE = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Weekly hours: from one day to another (the same day, or a range that may wrap: fri-mon), start to end. */
export interface WeeklyHours {
  fromDay: Weekday;
  toDay: Weekday;
  start: string;
  end: string;
}

/** A holiday: a day (or days) of a month, every year (Asterisk's GotoIfTime has no year). */
export interface Holiday {
  month: Month;
  day: number;
  toDay: number;
}

const minutes = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** The weekdays a row covers, in order (a range wraps past Sunday, as Asterisk reads `fri-mon`). */
export function daysOf(from: Weekday, to: Weekday): Weekday[] {
  const out: Weekday[] = [];
  for (let i = WEEKDAYS.indexOf(from); ; i = (i + 1) % 7) {
    out.push(WEEKDAYS[i] as Weekday);
    if (WEEKDAYS[i] === to) return out;
  }
}

/** The row FreePBX keeps in `timegroups_details.time` (its own form's format): `08:00-17:00|mon-fri|*|*`. */
export const weeklyRow = (w: WeeklyHours) =>
  `${w.start}-${w.end}|${w.fromDay === w.toDay ? w.fromDay : `${w.fromDay}-${w.toDay}`}|*|*`;
/** `*|*|24-26|dec`. */
export const holidayRow = (h: Holiday) => `*|*|${h.day === h.toDay ? h.day : `${h.day}-${h.toDay}`}|${h.month}`;

const timeGroupRules: readonly FieldRule<{ name: string; weekly: WeeklyHours[]; holidays: Holiday[] }>[] = [
  { field: "name", problem: (g) => configTextProblem(g.name, TIME_LIMITS.timeGroupName, "Name") },
  {
    field: "weekly",
    problem: (g) => {
      if (g.weekly.length + g.holidays.length === 0) return "Add weekly hours or a holiday";
      if (g.weekly.length + g.holidays.length > TIME_LIMITS.rows) return `At most ${TIME_LIMITS.rows} rows`;
      for (const [i, w] of g.weekly.entries()) {
        if (!CLOCK_RE.test(w.start) || !CLOCK_RE.test(w.end)) return "Times are HH:MM, 00:00 to 23:59";
        if (minutes(w.end) <= minutes(w.start))
          return `Row ${i + 1}: the end must be after the start (a night is two rows: until 23:59, and from 00:00)`;
      }
      // Two rows covering the same minute of the same day: one of them says nothing, or they were meant differently.
      for (const [i, a] of g.weekly.entries())
        for (const [j, b] of g.weekly.entries()) {
          if (j <= i) continue;
          const shared = daysOf(a.fromDay, a.toDay).filter((d) => daysOf(b.fromDay, b.toDay).includes(d));
          if (shared.length && minutes(a.start) < minutes(b.end) && minutes(b.start) < minutes(a.end))
            return `Rows ${i + 1} and ${j + 1} overlap on ${shared[0]}`;
        }
      return null;
    },
  },
  {
    field: "holidays",
    problem: (g) => {
      for (const h of g.holidays) {
        const max = MONTH_DAYS[h.month];
        if (h.day > max || h.toDay > max) return `${h.month} has ${max} days`;
        if (h.toDay < h.day) return "A holiday's last day must not be before its first";
      }
      for (const [i, a] of g.holidays.entries())
        for (const [j, b] of g.holidays.entries())
          if (j > i && a.month === b.month && a.day <= b.toDay && b.day <= a.toDay)
            return `Holidays ${i + 1} and ${j + 1} share a day (${a.month})`;
      return null;
    },
  },
];

export { timeGroupRules };

const clock = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .regex(CLOCK_RE, `${label} must be HH:MM, 00:00 to 23:59`);
const dayOfMonth = (label: string) =>
  z
    .number({ error: `${label} must be a day of the month` })
    .int(`${label} must be a day of the month`)
    .min(1, `${label} must be 1-31`)
    .max(31, `${label} must be 1-31`);

export const timeGroupSchema = lazySchema(() =>
  withRules(
    z.object({
      name: named("Name"),
      weekly: z
        .array(
          z
            .object({
              fromDay: z.enum(WEEKDAYS, { error: "Day must be mon-sun" }),
              toDay: z.enum(WEEKDAYS, { error: "Day must be mon-sun" }).optional(),
              start: clock("Start"),
              end: clock("End"),
            })
            .transform((w) => ({ ...w, toDay: w.toDay ?? w.fromDay })),
          { error: "Weekly hours must be a list" },
        )
        .default([]),
      holidays: z
        .array(
          z
            .object({
              month: z.enum(MONTHS, { error: "Month must be jan-dec" }),
              day: dayOfMonth("Day"),
              toDay: dayOfMonth("Last day").optional(),
            })
            .transform((h) => ({ ...h, toDay: h.toDay ?? h.day })),
          { error: "Holidays must be a list" },
        )
        .default([]),
    }),
    timeGroupRules,
  ),
);
export const timeGroupPatchSchema = lazySchema(() => patchOf(timeGroupSchema));

/** Whether `zone` is an IANA time zone name (`Europe/Berlin`) or UTC. */
export function timeZoneProblem(zone: string | null): string | null {
  if (zone === null) return null;
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return zone === "UTC" || known.includes(zone) ? null : `Unknown time zone ${zone} (an IANA name, e.g. Europe/Berlin)`;
}

export const timeConditionRules: readonly FieldRule<{ name: string; timeZone: string | null }>[] = [
  { field: "name", problem: (t) => configTextProblem(t.name, TIME_LIMITS.timeConditionName, "Name") },
  { field: "timeZone", problem: (t) => timeZoneProblem(t.timeZone) },
];

export const timeConditionSchema = lazySchema(() =>
  withRules(
    z.object({
      name: named("Name"),
      /** The console's time group (its id). */
      timeGroup: z.number({ error: "Choose a time group" }).int("Choose a time group").positive("Choose a time group"),
      /** An IANA zone the group's hours are read in; null or absent: the PBX's own. */
      timeZone: z
        .string({ error: "Time zone must be text" })
        .trim()
        .nullable()
        .optional()
        .transform((v) => (v ? v : null)),
      /** Where calls go while the time group matches (open), and while it does not; null: FreePBX hangs up. */
      match: optionalDestination(),
      noMatch: optionalDestination(),
    }),
    timeConditionRules,
  ),
);
export const timeConditionPatchSchema = lazySchema(() => patchOf(timeConditionSchema));

export interface TimeGroup {
  id: number;
  name: string;
  weekly: WeeklyHours[];
  holidays: Holiday[];
  createdAt: string;
}

export interface TimeCondition {
  id: number;
  name: string;
  timeGroup: number;
  timeZone: string | null;
  match: Destination | null;
  noMatch: Destination | null;
  createdAt: string;
}

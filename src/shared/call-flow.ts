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

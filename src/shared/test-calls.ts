/**
 * Test calls (synthetic probes, ADR 0068): a call the console places through the PBX on a schedule to a number
 * (an echo test, an IVR, an AI assistant), checking that it is answered in time and that audio comes back.
 * The request schemas of `/api/test-calls` and the wire types of a test call and its results.
 *
 * The number and the context go into a manager action (`Originate`) and into the PBX's configuration (the
 * probe endpoint's name and context), so both are held to strict patterns here, the one place they are
 * checked: a dial string of digits, `*`, `#` and a leading `+`; a context name of letters, digits, `-` and `_`.
 */
import { z } from "zod";
import { patchOf } from "./fields";
import { lazySchema } from "./lazy-schema";

export const TEST_CALL_LIMITS = {
  name: 80,
  number: 32,
  context: 64,
  intervalMinutes: { min: 1, max: 1440, default: 15 },
  answerWithinSeconds: { min: 1, max: 60, default: 10 },
  listenSeconds: { min: 1, max: 30, default: 5 },
  /** The longest window of results one request reads. */
  resultsDays: 31,
} as const;

/** What may be dialled: digits, `*` and `#` (feature codes), optionally one leading `+`. */
export const TEST_CALL_NUMBER = /^\+?[0-9*#]{1,31}$/;
/** A dial plan context as FreePBX names them (`from-internal`, `ext-local`, `ivr-3`). */
export const TEST_CALL_CONTEXT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const DEFAULT_TEST_CALL_CONTEXT = "from-internal";

const wholeNumber = (label: string, limits: { min: number; max: number; default: number }, unit: string) =>
  z
    .number({ error: `${label} must be a number of ${unit}` })
    .int(`${label} must be a whole number of ${unit}`)
    .min(limits.min, `${label} must be at least ${limits.min} ${unit}`)
    .max(limits.max, `${label} must be at most ${limits.max} ${unit}`)
    .default(limits.default);

export const testCallSchema = lazySchema(() =>
  z.object({
    name: z
      .string({ error: "Name is required" })
      .trim()
      .min(1, "Name is required")
      .max(TEST_CALL_LIMITS.name, `Name must be at most ${TEST_CALL_LIMITS.name} characters`),
    number: z
      .string({ error: "Number is required" })
      .trim()
      .min(1, "Number is required")
      .max(TEST_CALL_LIMITS.number, `Number must be at most ${TEST_CALL_LIMITS.number} characters`)
      .regex(TEST_CALL_NUMBER, "Number must be digits, * or #, optionally starting with +"),
    context: z
      .string({ error: "Context must be a dial plan context name" })
      .trim()
      .regex(TEST_CALL_CONTEXT, "Context must be letters, digits, - or _ (at most 64), e.g. from-internal")
      .default(DEFAULT_TEST_CALL_CONTEXT),
    intervalMinutes: wholeNumber("Interval", TEST_CALL_LIMITS.intervalMinutes, "minutes"),
    answerWithinSeconds: wholeNumber("Answer within", TEST_CALL_LIMITS.answerWithinSeconds, "seconds"),
    listenSeconds: wholeNumber("Listen for", TEST_CALL_LIMITS.listenSeconds, "seconds"),
    enabled: z.boolean({ error: "Enabled must be true or false" }).default(true),
  }),
);
export type TestCallInput = z.input<typeof testCallSchema>;
export type NewTestCall = z.output<typeof testCallSchema>;

export const testCallPatchSchema = lazySchema(() => patchOf(testCallSchema));
export type TestCallPatch = z.output<typeof testCallPatchSchema>;

/** `GET /api/test-calls/{id}/results?from=&to=`: ISO 8601 times; default the last 24 hours before `to` (now). */
export const testCallResultsQuerySchema = lazySchema(() => {
  const instant = (label: string) =>
    z
      .string()
      .trim()
      .refine((v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}/.test(v), `${label} must be an ISO 8601 time`)
      .optional();
  return z.object({ from: instant("From"), to: instant("To") });
});
export type TestCallResultsQuery = z.output<typeof testCallResultsQuerySchema>;

/** One run: answered in time and audio came back (ok), or why not (`error`). */
export interface TestCallResult {
  id: number;
  testCallId: number;
  /** When the run started (ISO). */
  at: string;
  ok: boolean;
  answered: boolean;
  /** From placing the call to its answer; null when not answered. */
  answerMs: number | null;
  /** The whole run, hang-up included. */
  durationMs: number;
  /** RTP packets the probe received and sent on its SIP leg; null when the call was never answered. */
  rxPackets: number | null;
  txPackets: number | null;
  lossPercent: number | null;
  jitterMs: number | null;
  error: string | null;
}

export interface TestCall {
  id: number;
  name: string;
  number: string;
  context: string;
  intervalMinutes: number;
  answerWithinSeconds: number;
  listenSeconds: number;
  enabled: boolean;
  /** Whether a run is in progress now. */
  running: boolean;
  lastResult: TestCallResult | null;
  createdAt: string;
  updatedAt: string;
}

export interface TestCallResults {
  testCallId: number;
  from: string;
  to: string;
  /** Oldest first. */
  items: TestCallResult[];
}

/**
 * A time condition's override states and their words, without zod: the Call Routing screen shows them, and
 * it stays out of the form libraries' chunk (ADR 0046). The schema and wire types are in time-conditions.ts.
 */

/**
 * The override as FreePBX stores it in `TC/<id>`:
 * - auto: `''` (or no key): the time group decides;
 * - open / closed: `true_sticky` / `false_sticky`, until changed back (FreePBX's "Permanent Override");
 * - open-once / closed-once: `true` / `false`, until the time group's own answer next agrees (FreePBX's
 *   "Temporary Override", what a phone's toggle code sets).
 */
export const OVERRIDE_STATES = ["auto", "open", "closed", "open-once", "closed-once"] as const;
export type OverrideState = (typeof OVERRIDE_STATES)[number];

/** `TC/<id>` for each state. */
export const OVERRIDE_ASTDB: Record<OverrideState, string> = {
  auto: "",
  open: "true_sticky",
  closed: "false_sticky",
  "open-once": "true",
  "closed-once": "false",
};

/** How the screen names each state. */
export const OVERRIDE_LABELS: Record<OverrideState, string> = {
  auto: "Automatic (by its time group)",
  open: "Forced open (matched)",
  closed: "Forced closed (not matched)",
  "open-once": "Open until the schedule next opens",
  "closed-once": "Closed until the schedule next closes",
};

/** The state a `TC/<id>` value stands for (an unknown value is FreePBX's auto too: its dial plan ignores it). */
export function overrideOf(value: string | null): OverrideState {
  const found = (Object.entries(OVERRIDE_ASTDB) as [OverrideState, string][]).find(([, v]) => v === (value ?? ""));
  return found ? found[0] : "auto";
}

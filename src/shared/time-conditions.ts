/**
 * FreePBX's time conditions as the PBX has them now (`timeconditions`, their time group's rows, and the
 * override in AstDB `TC/<id>`), and the override an administrator forces ("closed for the snow day"): GET
 * /api/pbx/time-conditions and PUT /api/pbx/time-conditions/:id/override. The override is the PBX's state,
 * not configuration (ADR 0059): it is written at once, as FreePBX's own `setState` writes it, and a phone's
 * `*27<id>` toggles the same state.
 */
import { z } from "zod";
import type { Destination } from "./destinations";
import { lazySchema } from "./lazy-schema";
import type { OverrideState } from "./time-condition-states";

export {
  OVERRIDE_ASTDB,
  OVERRIDE_LABELS,
  OVERRIDE_STATES,
  type OverrideState,
  overrideOf,
} from "./time-condition-states";

/** Where a time condition sends a call: a destination the console names, or FreePBX's own string. */
export type TimeConditionGoto = { destination: Destination } | { raw: string };

export interface PbxTimeCondition {
  /** FreePBX's `timeconditions_id`. */
  id: number;
  name: string;
  /** The time group's name and rows as FreePBX keeps them (`08:00-17:00|mon-fri|*|*`); null without one. */
  timeGroup: { id: number; name: string; rules: string[] } | null;
  /** An IANA zone; null: the PBX's own. */
  timeZone: string | null;
  /** Where a call goes while the time group matches, and while it does not. */
  match: TimeConditionGoto;
  noMatch: TimeConditionGoto;
  override: OverrideState;
  /** The phone code that toggles it (`*27<id>` unless changed in FreePBX); null when disabled. */
  featureCode: string | null;
}

export interface PbxTimeConditions {
  items: PbxTimeCondition[];
  /** Whether the override can be changed now (the manager interface is connected), and why not. */
  overridable: boolean;
  reason: string | null;
}

/** The states an administrator forces from the console (the once-states are a phone toggle's). */
export const overrideRequestSchema = lazySchema(() =>
  z.object({
    state: z.enum(["auto", "open", "closed"], { error: "State must be auto, open or closed" }),
  }),
);
export type OverrideRequest = z.output<typeof overrideRequestSchema>;

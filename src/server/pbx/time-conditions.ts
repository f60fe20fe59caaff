/**
 * The PBX's time conditions, read over SSH from FreePBX's tables with their override from AstDB, and the
 * override forced from the console: written at once through the manager interface exactly as FreePBX's
 * `Timeconditions::setState` writes it (AstDB `TC/<id>`, and the `Custom:TC<id>` / `Custom:TCSTICKY<id>`
 * device states a phone's BLF key shows). The override is the PBX's state, not configuration (ADR 0059): no
 * deploy writes or resets it.
 */
import { parseDestination } from "../../shared/destinations";
import {
  OVERRIDE_ASTDB,
  type OverrideState,
  overrideOf,
  type PbxTimeCondition,
  type PbxTimeConditions,
  type TimeConditionGoto,
} from "../../shared/time-conditions";
import type { Deps } from "../core/deps";
import { NotFound } from "../core/errors";
import type { ClientDeps } from "../integrations/outside";
import type { LiveMonitor } from "../live/monitor";
import { type PbxRemote, withPbxHost } from "./host/host";
import { pbxReadPath } from "./sync/read";

const TIME_CONDITIONS_SQL = `SELECT HEX(CAST(timeconditions_id AS CHAR)), HEX(displayname), HEX(CAST(time AS CHAR)), HEX(timezone),
HEX(truegoto), HEX(falsegoto), HEX(CAST(invert_hint AS CHAR)) FROM timeconditions ORDER BY timeconditions_id;`;
const TIME_GROUPS_SQL = `SELECT HEX(CAST(g.id AS CHAR)), HEX(g.description), HEX(d.time) FROM timegroups_groups g
LEFT JOIN timegroups_details d ON d.timegroupid = g.id ORDER BY g.id, d.id;`;
const FEATURE_CODES_SQL = `SELECT HEX(featurename), HEX(COALESCE(NULLIF(customcode, ''), defaultcode)), HEX(CAST(enabled AS CHAR))
FROM featurecodes WHERE modulename = 'timeconditions';`;
/** Whether FreePBX's timeconditions module has its tables (it is optional). */
const HAS_MODULE_SQL = `SELECT HEX(CAST(COUNT(*) AS CHAR)) FROM information_schema.tables
WHERE table_schema = DATABASE() AND table_name IN ('timeconditions', 'timegroups_groups', 'timegroups_details');`;

/** A time condition's goto as the console names it, else FreePBX's string. */
function gotoOf(value: string | null | undefined): TimeConditionGoto {
  const raw = (value ?? "").trim();
  const d = raw ? parseDestination(raw) : null;
  return d ? { destination: d } : { raw };
}

export interface Row {
  tc: PbxTimeCondition;
  invert: boolean;
}

/** The PBX's time conditions with the invert-hint setting the override's device states depend on. */
export async function readTimeConditionRows(host: PbxRemote): Promise<Row[]> {
  if ((await host.selectHex(HAS_MODULE_SQL))[0]?.[0] !== "3") return [];
  const groups = new Map<string, { id: number; name: string; rules: string[] }>();
  for (const [id, name, rule] of await host.selectHex(TIME_GROUPS_SQL)) {
    const key = id ?? "";
    const g = groups.get(key) ?? { id: Number(key), name: name ?? "", rules: [] };
    if (rule) g.rules.push(rule);
    groups.set(key, g);
  }
  const codes = new Map<string, string | null>();
  for (const [feature, code, enabled] of await host.selectHex(FEATURE_CODES_SQL))
    codes.set(feature ?? "", enabled === "1" ? (code ?? null) : null);
  const rows: Row[] = [];
  for (const [id, name, group, zone, truegoto, falsegoto, invert] of await host.selectHex(TIME_CONDITIONS_SQL)) {
    const tcId = Number(id);
    rows.push({
      invert: invert === "1",
      tc: {
        id: tcId,
        name: name ?? "",
        timeGroup: groups.get(group ?? "") ?? null,
        // FreePBX keeps "the PBX's own zone" as empty or "default".
        timeZone: zone && zone !== "default" ? zone : null,
        match: gotoOf(truegoto),
        noMatch: gotoOf(falsegoto),
        override: "auto",
        featureCode: codes.get(`toggle-mode-${tcId}`) ?? null,
      },
    });
  }
  const states = await host.astdbGet(rows.map((r) => `/TC/${r.tc.id}`));
  rows.forEach((r, i) => {
    r.tc.override = overrideOf(states[i] ?? null);
  });
  return rows;
}

type ReadDeps = ClientDeps & { live: Pick<LiveMonitor, "status"> };

/** GET /api/pbx/time-conditions: the PBX's time conditions (SSH), and whether their override can be changed now. */
export async function pbxTimeConditions(deps: ReadDeps): Promise<PbxTimeConditions> {
  pbxReadPath(deps, "time conditions");
  const rows = await withPbxHost(deps, readTimeConditionRows, {
    operation: "Reading the PBX's time conditions",
    deadlineMs: 60_000,
  });
  const ami = deps.live.status();
  return {
    items: rows.map((r) => r.tc),
    overridable: ami.connected,
    reason: ami.connected
      ? null
      : `The override is written through the Asterisk manager interface, which is not connected: ${ami.reason ?? "not connected"}`,
  };
}

/**
 * The device states FreePBX's `setState` sets with the override (its BLF hint `Custom:TC<id>` shows "not
 * matched" as in use, reversed by the time condition's invert-hint setting only in automatic mode).
 */
function deviceStates(state: OverrideState, invert: boolean): { blf: string; sticky: string } {
  switch (state) {
    case "auto":
      return invert ? { blf: "INUSE", sticky: "INUSE" } : { blf: "NOT_INUSE", sticky: "NOT_INUSE" };
    case "open":
      return { blf: "NOT_INUSE", sticky: "INUSE" };
    case "open-once":
      return { blf: "NOT_INUSE", sticky: "NOT_INUSE" };
    case "closed":
      return { blf: "INUSE", sticky: "INUSE" };
    case "closed-once":
      return { blf: "INUSE", sticky: "NOT_INUSE" };
  }
}

/**
 * PUT /api/pbx/time-conditions/:id/override: forces the time condition open or closed, or back to its time
 * group, at once (the next call follows it). `NotFound` for an id the PBX does not have; `Unavailable` while
 * the manager interface is not connected.
 */
export async function setTimeConditionOverride(
  deps: ClientDeps & Pick<Deps, "events"> & { live: Pick<LiveMonitor, "managerActions"> },
  id: number,
  state: "auto" | "open" | "closed",
): Promise<PbxTimeCondition> {
  pbxReadPath(deps, "time conditions");
  const rows = await withPbxHost(deps, readTimeConditionRows, {
    operation: "Reading the PBX's time conditions",
    deadlineMs: 60_000,
  });
  const row = rows.find((r) => r.tc.id === id);
  if (!row) throw new NotFound("Time condition", `The PBX has no time condition ${id}`);
  const { blf, sticky } = deviceStates(state, row.invert);
  // The id is FreePBX's integer, read back from its table: the only text in these actions. FreePBX 17 forces its
  // AST_FUNC_DEVICE_STATE setting to DEVICE_STATE (BMO Config, deprecated settings).
  await deps.live.managerActions([
    ["DBPut", { Family: "TC", Key: String(row.tc.id), Val: OVERRIDE_ASTDB[state] }],
    ["Setvar", { Variable: `DEVICE_STATE(Custom:TC${row.tc.id})`, Value: blf }],
    ["Setvar", { Variable: `DEVICE_STATE(Custom:TCSTICKY${row.tc.id})`, Value: sticky }],
  ]);
  deps.events.publish({ type: "time-condition-overrides-updated", data: { id: row.tc.id, override: state } });
  return { ...row.tc, override: state };
}

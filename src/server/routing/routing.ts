/**
 * Where calls go, as the console answers it: the simulator over the console's configuration and, on
 * request, over the PBX as it is now (read over SSH the way the plan reads it); and the destinations every
 * picker offers (ADR 0058).
 */
import { extensions } from "../../db/schema";
import type {
  CallFlow,
  DestinationItem,
  DestinationList,
  RerouteCall,
  RoutingFinal,
  RoutingPath,
  SimulateAnswer,
  SimulateInput,
} from "../../shared/routing";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../core/deps";
import { Invalid } from "../core/errors";
import { withPbxHost } from "../pbx/host/host";
import { managedOf } from "../pbx/objects/managed";
import type { ItemKind } from "../pbx/objects/ownership";
import { readLive } from "../pbx/plan/live";
import { readTimeConditionRows } from "../pbx/time-conditions";
import { callFlows } from "./flow";
import { consoleModel, pbxModel, type RoutingModel, refOf } from "./model";
import { labelOf, simulate } from "./simulate";
import { knownZone } from "./time-match";

/** The kinds whose FreePBX tables a call passes through: what the plan reads to follow calls on the PBX. */
export const ROUTING_KINDS: ItemKind[] = [
  "extension",
  "inboundRoute",
  "ringGroup",
  "queue",
  "pttGroup",
  "ivr",
  "announcement",
  "timeGroup",
  "timeCondition",
];

/** Reads the PBX's routing objects (inbound routes, extensions, ring groups, queues, page groups) over SSH. */
export async function readPbxModel(deps: Pick<Deps, "credentials">): Promise<RoutingModel> {
  if (!deps.credentials.isConfigured("ssh"))
    throw new Invalid("Comparing with the PBX reads it over SSH: configure the PBX host (SSH) in API Settings.", {
      plan: "Configure the PBX host (SSH) in API Settings to compare with the PBX",
    });
  const { live, timeConditions, zone } = await withPbxHost(
    deps,
    async (remote) => ({
      live: await readLive(remote, ROUTING_KINDS, []),
      timeConditions: await readTimeConditionRows(remote),
      zone: await remote.hostTimeZone(),
    }),
    { operation: "Reading the PBX's call routing", deadlineMs: 60_000 },
  );
  const model = pbxModel(live.tables);
  model.zone = knownZone(zone) ? zone : null;
  model.timeConditions = new Map(
    timeConditions.map(({ tc }) => [
      String(tc.id),
      {
        name: tc.name,
        group: tc.timeGroup && { name: tc.timeGroup.name, rules: tc.timeGroup.rules },
        zone: knownZone(tc.timeZone) ? tc.timeZone : null,
        match: "destination" in tc.match ? tc.match.destination : refOf(tc.match.raw),
        noMatch: "destination" in tc.noMatch ? tc.noMatch.destination : refOf(tc.noMatch.raw),
        override: tc.override,
      },
    ]),
  );
  return model;
}

/** POST /api/routing/simulate: the call's path under the console's configuration, and with `plan` on the PBX now. */
export async function simulateCall(
  deps: Pick<Deps, "db" | "credentials" | "now">,
  input: SimulateInput,
): Promise<SimulateAnswer> {
  const at = input.at ? new Date(input.at) : new Date(deps.now());
  const call = { ...input, at };
  const mine = consoleModel(deps.db);
  if (!input.plan) return { ...simulate(mine, call), at: at.toISOString() };
  const pbx = await readPbxModel(deps);
  // A deploy keeps a time condition's override (the PBX's state, ADR 0059): the console's time condition
  // follows the override its FreePBX one has now; and the PBX's zone is the console's too.
  for (const r of managedOf(deps.db, ["timeCondition"])) {
    const live = r.pbxId ? pbx.timeConditions?.get(r.pbxId) : undefined;
    const own = r.consoleId !== null ? mine.timeConditions?.get(String(r.consoleId)) : undefined;
    if (live && own) own.override = live.override;
  }
  mine.zone = pbx.zone;
  const path = simulate(mine, call);
  const now = simulate(pbx, call);
  const changed = !samePath(now, path);
  return { ...path, at: at.toISOString(), live: { ...now, changed } };
}

/**
 * What makes two paths the same call: the objects passed and where it ends, not the words. An IVR or
 * announcement is numbered by the console on one side and by FreePBX on the other (ADR 0059): it is the same
 * one by its name.
 */
const BY_NAME = new Set(["ivr", "announcement", "time-condition"]);
const nameIn = (label: string) => label.slice(label.indexOf(" · ") + 3);
const pathShape = (p: { steps: { kind: string; target: string; label: string }[]; final: RoutingFinal }) => ({
  steps: p.steps.map((s) => `${s.kind}:${BY_NAME.has(s.kind) ? nameIn(s.label) : s.target}`),
  final: BY_NAME.has(p.final.kind) ? { ...p.final, target: "" } : p.final,
});
const samePath = (a: RoutingPath, b: RoutingPath) => JSON.stringify(pathShape(a)) === JSON.stringify(pathShape(b));

/**
 * The DIDs whose calls a deploy reroutes: every DID an inbound route names on either side (and the route of
 * any DID), followed on the PBX now and under the console's configuration, answered and unanswered. A DID
 * pattern stands for many numbers and is left out; so are caller-ID routes, which depend on who calls.
 */
export function reroutedCalls(now: RoutingModel, after: RoutingModel): RerouteCall[] {
  const dids = new Set<string>();
  for (const r of [...now.inbound, ...after.inbound]) if (!r.cid && !r.did.startsWith("_")) dids.add(r.did);
  const out: RerouteCall[] = [];
  for (const did of [...dids].sort(byNumber)) {
    for (const unanswered of [false, true]) {
      const input = { did, callerId: "", digits: "", unanswered };
      const a = simulate(now, input);
      const b = simulate(after, input);
      if (samePath(a, b)) continue;
      out.push({ did, unanswered, now: a, after: b });
      break;
    }
  }
  return out;
}

/**
 * GET /api/destinations: every destination the console knows, in picker order (hang up, extensions and
 * their voicemail, ring groups, queues, page groups, IVRs, announcements), each labelled as the simulator names it.
 */
export function listDestinations(deps: Pick<Deps, "db">): DestinationList {
  const all = deps.db
    .select({ extension: extensions.extension, name: extensions.name, voicemail: extensions.voicemail })
    .from(extensions)
    .all()
    .sort((a, b) => byNumber(a.extension, b.extension));
  const model = { ...consoleModel(deps.db), extensions: new Map(all.map((e) => [e.extension, e])) };
  const items: DestinationItem[] = [];
  const add = (kind: DestinationItem["kind"], target: string) =>
    items.push({ kind, target, label: labelOf(model, { kind, target }) });
  add("hangup", "");
  const numbers = (m: Map<string, unknown>) => [...m.keys()].sort(byNumber);
  for (const e of all) add("extension", e.extension);
  for (const e of all) if (e.voicemail) add("voicemail", e.extension);
  for (const n of numbers(model.ringGroups)) add("ring-group", n);
  for (const n of numbers(model.queues)) add("queue", n);
  for (const n of numbers(model.pageGroups)) add("page-group", n);
  const byName = (m: Map<string, { name: string }>) =>
    [...m.entries()].sort(([, a], [, b]) => a.name.localeCompare(b.name)).map(([id]) => id);
  for (const id of byName(model.ivrs)) add("ivr", id);
  for (const id of byName(model.announcements)) add("announcement", id);
  for (const id of byName(model.timeConditions ?? new Map())) add("time-condition", id);
  return { items };
}

/** GET /api/routing/flows: each inbound route's call flow as a tree, under the console's configuration. */
export const listCallFlows = (deps: Pick<Deps, "db">): CallFlow[] => callFlows(consoleModel(deps.db));

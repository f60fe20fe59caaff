/**
 * Sync import of ring groups and queues: FreePBX's `ringgroups`, and `queues_config` with the strategy and
 * static agents of `queues_details`, read over SSH, become the console's, through the console's own create and
 * update (`inventory/ring-groups.ts`, `inventory/queues.ts`), so an imported object meets every rule a typed
 * one meets: members and agents are console extensions (an external ring-group member ends in `#`), a
 * destination names an object the console holds, no loop, a free number.
 *
 * The plan tries each write inside a savepoint it then rolls back: what the review shows is what the job does,
 * in the same order (an object another imported one sends calls to comes first), with the same refusals.
 * Settings the console does not hold (a queue's announcements, a ring group's caller-ID prefix…) stay on the
 * PBX: the console's deploys write only the columns it owns.
 */
import { sql } from "drizzle-orm";
import type { z } from "zod";
import { queues, ringGroups } from "../../../db/schema";
import { type Destination, destinationLabel, parseDestination } from "../../../shared/destinations";
import { queueSchema, ringGroupSchema } from "../../../shared/inventory";
import type { ImportQueuesInput, ImportRingGroupsInput } from "../../../shared/pbx";
import type { FieldChange } from "../../../shared/plan";
import { byNumber } from "../../../shared/sort";
import type { Deps } from "../../core/deps";
import { DomainError } from "../../core/errors";
import { createQueue, type QueueInput, updateQueue } from "../../inventory/queues";
import { createRingGroup, type RingGroupInput, updateRingGroup } from "../../inventory/ring-groups";
import { withPbxHost } from "../host/host";
import { type ManagedRecord, managedOf } from "../objects/managed";
import { type PbxReadDeps, pbxReadPath } from "./read";

export interface PbxRingGroup {
  number: string;
  name: string;
  strategy: string;
  ringTime: number;
  members: string[];
  /** FreePBX's destination string (`postdest`), '' for none. */
  noAnswer: string;
}

export interface PbxQueue {
  number: string;
  name: string;
  strategy: string;
  agents: string[];
  maxWait: number;
  /** FreePBX's destination string (`dest`), '' for none. */
  timeout: string;
}

const RING_GROUPS_SQL = `SELECT HEX(grpnum), HEX(description), HEX(strategy), HEX(CAST(grptime AS CHAR)), HEX(grplist), HEX(postdest)
FROM ringgroups ORDER BY grpnum;`;
const QUEUES_SQL = `SELECT HEX(extension), HEX(descr), HEX(CAST(maxwait AS CHAR)), HEX(dest) FROM queues_config ORDER BY extension;`;
// A queue's static agents in ring order (their flags), then its strategy.
const QUEUE_DETAILS_SQL = `SELECT HEX(id), HEX(keyword), HEX(data) FROM queues_details
WHERE keyword IN ('strategy', 'member') ORDER BY id, keyword, flags;`;

const seconds = (v: string | null | undefined) => (v && /^\d+$/.test(v) ? Number(v) : 0);

/** The PBX's ring groups (SSH only: FreePBX's API has none). */
export async function readPbxRingGroups(deps: PbxReadDeps): Promise<{ via: "ssh"; rows: PbxRingGroup[] }> {
  pbxReadPath(deps, "ring groups");
  const rows = await withPbxHost(deps, (host) => host.selectHex(RING_GROUPS_SQL), {
    operation: "Reading the PBX's ring groups",
    deadlineMs: 120_000,
  });
  return {
    via: "ssh",
    rows: rows.map(([number, name, strategy, time, list, post]) => ({
      number: number ?? "",
      name: (name ?? "").trim(),
      strategy: strategy ?? "",
      ringTime: seconds(time),
      members: (list ?? "")
        .split("-")
        .map((m) => m.trim())
        .filter(Boolean),
      noAnswer: (post ?? "").trim(),
    })),
  };
}

/** The PBX's queues with their strategy and static agents (SSH only). */
export async function readPbxQueues(deps: PbxReadDeps): Promise<{ via: "ssh"; rows: PbxQueue[] }> {
  pbxReadPath(deps, "queues");
  const [config, details] = await withPbxHost(
    deps,
    async (host) => [await host.selectHex(QUEUES_SQL), await host.selectHex(QUEUE_DETAILS_SQL)] as const,
    { operation: "Reading the PBX's queues", deadlineMs: 120_000 },
  );
  const byNumber = new Map<string, PbxQueue>();
  for (const [number, name, maxWait, dest] of config)
    byNumber.set(number ?? "", {
      number: number ?? "",
      name: (name ?? "").trim(),
      strategy: "",
      agents: [],
      // FreePBX keeps "no limit" as an empty max wait.
      maxWait: seconds(maxWait),
      timeout: (dest ?? "").trim(),
    });
  for (const [id, keyword, data] of details) {
    const q = byNumber.get(id ?? "");
    if (!q) continue;
    if (keyword === "strategy") q.strategy = data ?? "";
    // A static agent as FreePBX writes it: `Local/1001@from-queue/n,0` (the penalty after the comma).
    const agent = keyword === "member" ? (data ?? "").match(/^Local\/([^@]+)@/)?.[1] : undefined;
    if (agent) q.agents.push(agent);
  }
  return { via: "ssh", rows: [...byNumber.values()] };
}

// ---------- the plan ----------

export type CallGroupKind = "ringGroup" | "queue";

/** One ring group's or queue's import: the decision, and the input the console's create or update is given. */
export interface CallGroupEntry {
  kind: CallGroupKind;
  number: string;
  label: string;
  action: "create" | "update" | "unchanged" | "refused";
  raw: FieldChange[];
  consoleId: number | null;
  reason?: string;
  input?: RingGroupInput | QueueInput;
  record?: ManagedRecord;
}

const destinationText = (d: Destination | null | undefined) => (d ? destinationLabel(d) : null);

/** What the Sync screen compares and the plan lists, field by field, for a ring group's or queue's input. */
function shown(kind: CallGroupKind, i: RingGroupInput | QueueInput): Record<string, string | null> {
  if (kind === "ringGroup") {
    const g = i as RingGroupInput;
    return {
      name: g.name,
      strategy: g.strategy,
      ringTime: String(g.ringTime),
      members: g.members.join(", "),
      noAnswer: destinationText(g.noAnswer),
    };
  }
  const q = i as QueueInput;
  return {
    name: q.name,
    strategy: q.strategy,
    agents: q.agents.join(", "),
    maxWait: String(q.maxWait),
    timeoutDestination: destinationText(q.timeoutDestination),
  };
}

/** The fields that differ (`from`: the console's, null when it has none; `to`: the PBX's). */
function changes(from: Record<string, string | null> | null, to: Record<string, string | null>): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, value] of Object.entries(to)) {
    const before = from ? (from[field] ?? null) : null;
    if (from ? before === value : value === null) continue;
    out.push({ field, from: before, to: value });
  }
  return out;
}

/** A FreePBX destination as the console's, or why the console cannot hold it. */
function destinationOf(value: string, what: string): { d: Destination | null } | { problem: string } {
  if (!value) return { d: null };
  const d = parseDestination(value);
  return d ? { d } : { problem: `Its ${what} (${value}) is not a destination the console holds` };
}

/** Values through the shared schema the forms use: the parsed input, or its first message. */
function parsed<T>(schema: z.ZodType<T>, values: unknown): { input: T } | { problem: string } {
  const r = schema.safeParse(values);
  return r.success ? { input: r.data } : { problem: r.error.issues[0]?.message ?? "Not a valid value" };
}

/** A PBX ring group as the console's input, or why the console cannot hold it. */
function ringGroupInput(p: PbxRingGroup): { input: RingGroupInput } | { problem: string } {
  const to = destinationOf(p.noAnswer, "no-answer destination");
  if ("problem" in to) return to;
  return parsed(ringGroupSchema, {
    number: p.number,
    name: p.name || `Ring group ${p.number}`,
    strategy: p.strategy,
    ringTime: p.ringTime,
    members: p.members,
    noAnswer: to.d,
  });
}

/** A PBX queue as the console's input, or why the console cannot hold it. */
function queueInput(p: PbxQueue): { input: QueueInput } | { problem: string } {
  const to = destinationOf(p.timeout, "timeout destination");
  if ("problem" in to) return to;
  return parsed(queueSchema, {
    number: p.number,
    name: p.name || `Queue ${p.number}`,
    strategy: p.strategy,
    agents: p.agents,
    maxWait: p.maxWait,
    timeoutDestination: to.d,
  });
}

type ConsoleGroup = { id: number; number: string; input: RingGroupInput | QueueInput };

/** The console's ring groups or queues by number, as inputs (what the import compares with). */
function consoleGroups(db: Deps["db"], kind: CallGroupKind): Map<string, ConsoleGroup> {
  const out = new Map<string, ConsoleGroup>();
  if (kind === "ringGroup")
    for (const g of db.select().from(ringGroups).all())
      out.set(g.number, {
        id: g.id,
        number: g.number,
        input: {
          number: g.number,
          name: g.name,
          strategy: g.strategy,
          ringTime: g.ringTime,
          members: g.members,
          noAnswer: g.noAnswerKind ? { kind: g.noAnswerKind, target: g.noAnswerTarget ?? "" } : null,
        },
      });
  else
    for (const q of db.select().from(queues).all())
      out.set(q.number, {
        id: q.id,
        number: q.number,
        input: {
          number: q.number,
          name: q.name,
          strategy: q.strategy,
          agents: q.agents,
          maxWait: q.maxWait,
          timeoutDestination: q.timeoutKind ? { kind: q.timeoutKind, target: q.timeoutTarget ?? "" } : null,
        },
      });
  return out;
}

/** The ring group or queue an input sends unanswered callers to, when it is one of `kind`. */
function sendsTo(kind: CallGroupKind, i: RingGroupInput | QueueInput): string | null {
  const d = kind === "ringGroup" ? (i as RingGroupInput).noAnswer : (i as QueueInput).timeoutDestination;
  return d && d.kind === (kind === "ringGroup" ? "ring-group" : "queue") ? d.target : null;
}

/** The numbers in an order where an object another one sends calls to comes first (a cycle keeps its order). */
function dependencyOrder(numbers: string[], next: (n: string) => string | null): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const set = new Set(numbers);
  const visit = (n: string, path: Set<string>) => {
    if (seen.has(n) || path.has(n)) return;
    path.add(n);
    const t = next(n);
    if (t && set.has(t)) visit(t, path);
    seen.add(n);
    out.push(n);
  };
  for (const n of numbers) visit(n, new Set());
  return out;
}

/** Writes one entry through the console's own create or update; the events go to `events`. */
function write(deps: Pick<Deps, "db" | "events">, e: CallGroupEntry): number {
  const input = e.input as RingGroupInput & QueueInput;
  if (e.kind === "ringGroup")
    return e.consoleId !== null ? updateRingGroup(deps, e.consoleId, input).id : createRingGroup(deps, input).id;
  return e.consoleId !== null ? updateQueue(deps, e.consoleId, input).id : createQueue(deps, input).id;
}

/** The plan's trial writes tell no one. */
const NO_EVENTS: Deps["events"] = { publish: () => {} };

/**
 * Each selected PBX ring group's or queue's import, in the order the job writes them. Every create and update
 * is tried in a savepoint that is rolled back before this returns (synchronously: nothing else writes in
 * between), so a refusal is the console's own words.
 */
export function planCallGroupsImport(
  deps: Pick<Deps, "db">,
  kind: CallGroupKind,
  pbxRows: (PbxRingGroup | PbxQueue)[],
  input: ImportRingGroupsInput | ImportQueuesInput,
): CallGroupEntry[] {
  const { db } = deps;
  const what = kind === "ringGroup" ? "Ring group" : "Queue";
  const onPbx = new Map(pbxRows.map((r) => [r.number, r]));
  const selected = "ringGroups" in input ? input.ringGroups : input.queues;
  const wanted = (input.mode === "all" ? [...onPbx.keys()] : [...new Set(selected)]).sort(byNumber);
  const inputs = new Map<string, { input: RingGroupInput | QueueInput } | { problem: string }>();
  for (const n of wanted) {
    const p = onPbx.get(n);
    if (p) inputs.set(n, kind === "ringGroup" ? ringGroupInput(p as PbxRingGroup) : queueInput(p as PbxQueue));
  }
  const order = dependencyOrder(wanted, (n) => {
    const i = inputs.get(n);
    return i && "input" in i ? sendsTo(kind, i.input) : null;
  });
  const records = new Map(managedOf(db, [kind]).map((r) => [r.key, r]));
  const mine = consoleGroups(db, kind);
  const entries: CallGroupEntry[] = [];
  db.run(sql`SAVEPOINT sync_plan`);
  try {
    for (const n of order) {
      const p = onPbx.get(n);
      const label = p ? `${n} - ${p.name || `${what} ${n}`}` : n;
      const base = { kind, number: n, label, raw: [] as FieldChange[], consoleId: null };
      const given = inputs.get(n);
      if (!p || !given) {
        entries.push({ ...base, action: "refused", reason: `${what} ${n} is not on the PBX (any more)` });
        continue;
      }
      if ("problem" in given) {
        entries.push({ ...base, action: "refused", reason: `${label}: ${given.problem}` });
        continue;
      }
      const current = mine.get(n);
      const raw = changes(current ? shown(kind, current.input) : null, shown(kind, given.input));
      const entry: CallGroupEntry = {
        ...base,
        action: !current ? "create" : raw.length ? "update" : "unchanged",
        raw,
        consoleId: current?.id ?? null,
        input: given.input,
        record: records.get(n),
      };
      if (entry.action !== "unchanged") {
        try {
          write({ db, events: NO_EVENTS }, entry);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          entries.push({ ...base, action: "refused", reason: `${label}: ${err.message}` });
          continue;
        }
      }
      entries.push(entry);
    }
  } finally {
    db.run(sql`ROLLBACK TO SAVEPOINT sync_plan`);
    db.run(sql`RELEASE SAVEPOINT sync_plan`);
  }
  return entries;
}

/** Writes one planned ring group or queue into the console (the job's step); answers its console id. */
export const writeCallGroup = (deps: Pick<Deps, "db" | "events">, e: CallGroupEntry): number => write(deps, e);

/** The Sync screen's rows: each PBX ring group or queue next to the console's of the same number. */
export function compareCallGroups(
  deps: Pick<Deps, "db">,
  kind: CallGroupKind,
  pbxRows: (PbxRingGroup | PbxQueue)[],
): {
  rows: { number: string; inDashboard: boolean; needsSync: boolean; pbxName: string; consoleName: string | null }[];
  consoleCount: number;
} {
  const mine = consoleGroups(deps.db, kind);
  const rows = [...pbxRows]
    .sort((a, b) => byNumber(a.number, b.number))
    .map((p) => {
      const c = mine.get(p.number);
      const given = kind === "ringGroup" ? ringGroupInput(p as PbxRingGroup) : queueInput(p as PbxQueue);
      const differs =
        c !== undefined && ("problem" in given || changes(shown(kind, c.input), shown(kind, given.input)).length > 0);
      return {
        number: p.number,
        inDashboard: c !== undefined,
        needsSync: differs,
        pbxName: p.name,
        consoleName: c ? c.input.name : null,
      };
    });
  return { rows, consoleCount: mine.size };
}

/**
 * Queues (FreePBX's queues module): a number whose callers wait for one of its static agents, rung by the
 * queue's strategy; after the max wait a caller goes to the timeout destination. The number shares the dial
 * plan with extensions, PTT groups and ring groups (`numbers.ts`); an agent is a console extension. A queue
 * that an inbound route, a ring group or another queue sends calls to cannot be deleted or renumbered: they
 * are named (ADR 0057).
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { extensions, queues } from "../../db/schema";
import type { Destination } from "../../shared/destinations";
import { type Queue, type queuePatchSchema, queueSchema } from "../../shared/inventory";
import { type DeleteAnswer, type Dependents, KIND_WORDS } from "../../shared/safe-delete";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../core/deps";
import { Conflict, Gone, Invalid, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { keyChangeRefusal } from "../pbx/objects/managed";
import { checkDestination, sendersDependents, sendersTo } from "./call-targets";
import { assertNumberFree, type DbOrTx, numberTakenMessage } from "./numbers";
import { mergePatch } from "./patch";

export type QueueRow = typeof queues.$inferSelect;
export type QueueInput = z.output<typeof queueSchema>;
export type QueuePatch = z.output<typeof queuePatchSchema>;

const timeoutOf = (row: QueueRow): Destination | null =>
  row.timeoutKind ? { kind: row.timeoutKind, target: row.timeoutTarget ?? "" } : null;

/** The wire form. */
export function toQueue(row: QueueRow): Queue {
  const { timeoutKind: _kind, timeoutTarget: _target, ...rest } = row;
  return { ...rest, timeoutDestination: timeoutOf(row), createdAt: row.createdAt.toISOString() };
}

/** Every queue, in numeric order of its number. */
export function listQueues(deps: Pick<Deps, "db">): Queue[] {
  return deps.db
    .select()
    .from(queues)
    .all()
    .sort((a, b) => byNumber(a.number, b.number))
    .map(toQueue);
}

function findQueue(db: DbOrTx, id: number): QueueRow {
  const row = db.select().from(queues).where(eq(queues.id, id)).get();
  if (!row) throw new NotFound("Queue");
  return row;
}

const extensionNumbers = (db: DbOrTx) =>
  new Set(
    db
      .select({ n: extensions.extension })
      .from(extensions)
      .all()
      .map((r) => r.n),
  );

/**
 * The agents in ring order without repeats; `Invalid` on `agents` naming any that is not a console extension
 * (a queue rings its agents as extensions: an outside number is no agent).
 */
function knownAgents(db: DbOrTx, given: string[]): string[] {
  const agents = [...new Set(given)];
  const known = extensionNumbers(db);
  const unknown = agents.filter((a) => !known.has(a));
  if (unknown.length) {
    const message = `Not existing extension(s): ${unknown.join(", ")} (a queue's agents are the console's extensions)`;
    throw new Invalid(message, { agents: message });
  }
  return agents;
}

/**
 * The queues that use an extension number, read in one query: those it is an agent of, and those that send
 * their callers to it or to its voicemail after the max wait.
 */
export function queueUses(db: DbOrTx, number: string): { agent: QueueRow[]; destination: QueueRow[] } {
  const all = db.select().from(queues).all();
  return {
    agent: all.filter((q) => q.agents.includes(number)),
    destination: all.filter(
      (q) => (q.timeoutKind === "extension" || q.timeoutKind === "voicemail") && q.timeoutTarget === number,
    ),
  };
}

/** The timeout destination, checked where the console knows its target (call-targets.ts). */
const checkTimeout = (db: DbOrTx, number: string, d: Destination | null) =>
  checkDestination(db, "timeoutDestination.target", { kind: "queue", number }, d);

const rowValues = (input: QueueInput, agents: string[]) => ({
  number: input.number,
  name: input.name,
  strategy: input.strategy,
  agents,
  maxWait: input.maxWait,
  timeoutKind: input.timeoutDestination?.kind ?? null,
  timeoutTarget: input.timeoutDestination ? input.timeoutDestination.target : null,
});

/** Creates a queue on a free number; its agents are console extensions. */
export function createQueue(deps: Pick<Deps, "db" | "events">, input: QueueInput): Queue {
  const agents = knownAgents(deps.db, input.agents);
  assertNumberFree(deps.db, input.number, "queue", "number");
  checkTimeout(deps.db, input.number, input.timeoutDestination);
  const row = deps.db.insert(queues).values(rowValues(input, agents)).returning().get();
  deps.events.publish({ type: "queues-updated", data: { id: row.id, action: "created" } });
  return toQueue(row);
}

/**
 * What sends calls to a queue: inbound routes with it as their destination, ring groups with it as their
 * no-answer destination and other queues with it as their timeout destination. Any of them blocks its delete
 * and a change of its number.
 */
export function queueDependents(db: DbOrTx, row: QueueRow): Dependents {
  const senders = sendersTo(db, ["queue"], row.number);
  return sendersDependents(
    { ...senders, queues: senders.queues.filter((q) => q.id !== row.id) },
    `queue ${row.number}`,
  );
}

/** GET /api/queues/:id/dependents. */
export const dependentsOfQueue = (deps: Pick<Deps, "db">, id: number): Dependents =>
  queueDependents(deps.db, findQueue(deps.db, id));

/** Deletes a queue nothing sends calls to (409 naming them otherwise); the token restores it for a few seconds. */
export function deleteQueue(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findQueue(deps.db, id);
  const { blockedBecause } = queueDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(queues).where(eq(queues.id, id)).run();
  deps.events.publish({ type: "queues-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "queue", (d) => restoreQueue(d, row));
}

/** Puts a deleted queue back as it was, unless its number was taken or one of its agents deleted since. */
function restoreQueue(deps: RestoreDeps, row: QueueRow): Queue {
  const taken = numberTakenMessage(deps.db, row.number, "queue");
  if (taken) throw new Gone(`Queue ${row.name} cannot be restored: ${taken}.`);
  const known = extensionNumbers(deps.db);
  const gone = row.agents.filter((a) => !known.has(a));
  if (gone.length)
    throw new Gone(`Queue ${row.name} cannot be restored: extension(s) ${gone.join(", ")} were deleted since.`);
  deps.db.insert(queues).values(row).run();
  deps.events.publish({ type: "queues-updated", data: { id: row.id, action: "created" } });
  return toQueue(row);
}

/**
 * Edits a queue: the given fields over the stored ones, by the create rules. A new number must be free, and
 * is refused while the queue is deployed (FreePBX cannot renumber it) or while something sends calls to the
 * old one (they are named).
 */
export function updateQueue(deps: Pick<Deps, "db" | "events">, id: number, patch: QueuePatch): Queue {
  const row = findQueue(deps.db, id);
  const current = {
    number: row.number,
    name: row.name,
    strategy: row.strategy,
    agents: row.agents,
    maxWait: row.maxWait,
    timeoutDestination: timeoutOf(row),
  };
  const input = validate(queueSchema, mergePatch(current, patch));
  const agents = knownAgents(deps.db, input.agents);
  if (input.number !== row.number) {
    const deployed = keyChangeRefusal(deps.db, "queue", row.id, row.number, input.number);
    if (deployed) throw new Conflict(deployed, { number: deployed });
    assertNumberFree(deps.db, input.number, "queue", "number");
    const users = queueDependents(deps.db, row).dependents;
    if (users.length) {
      const named = users.map((d) => `${KIND_WORDS[d.kind]} ${d.label}`);
      const message = `Queue ${row.number} cannot become ${input.number} while ${named.join(", ")} send${users.length === 1 ? "s" : ""} calls to it. Change ${users.length === 1 ? "it" : "them"} first.`;
      throw new Conflict(message, { number: message });
    }
  }
  checkTimeout(deps.db, input.number, input.timeoutDestination);
  const updated = deps.db.update(queues).set(rowValues(input, agents)).where(eq(queues.id, id)).returning().get();
  deps.events.publish({ type: "queues-updated", data: { id, action: "updated" } });
  return toQueue(updated);
}

/**
 * An extension about to be deleted stops being an agent of the queues it answers for, as FreePBX's own
 * extension delete takes its member rows out of every queue (queues `queues_hookProcess_core`); a queue it is the only
 * agent of would have nobody to answer, so that blocks the delete instead (`extensionDependents`). Returns
 * what to put back on undo.
 */
export function leaveQueues(db: DbOrTx, number: string): { id: number; agents: string[] }[] {
  const before: { id: number; agents: string[] }[] = [];
  for (const q of queueUses(db, number).agent) {
    before.push({ id: q.id, agents: q.agents });
    db.update(queues)
      .set({ agents: q.agents.filter((a) => a !== number) })
      .where(eq(queues.id, q.id))
      .run();
  }
  return before;
}

/** Undo of `leaveQueues`: each queue that still exists gets the extension back in its place. */
export function rejoinQueues(db: DbOrTx, number: string, before: { id: number; agents: string[] }[]): void {
  for (const b of before) {
    const q = db.select().from(queues).where(eq(queues.id, b.id)).get();
    if (!q || q.agents.includes(number)) continue;
    // Back in its old place among the agents still there (ring order matters to linear and rrordered).
    const kept = new Set(q.agents);
    const order = b.agents.filter((a) => a === number || kept.has(a));
    const agents = [...order, ...q.agents.filter((a) => !order.includes(a))];
    db.update(queues).set({ agents }).where(eq(queues.id, b.id)).run();
  }
}

/** Every extension number some queue has as an agent. */
export const queueAgents = (db: DbOrTx): Set<string> =>
  new Set(
    db
      .select({ agents: queues.agents })
      .from(queues)
      .all()
      .flatMap((q) => q.agents),
  );

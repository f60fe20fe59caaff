/**
 * Where the console's call-flow objects send calls, checked in one place: a ring group's no-answer
 * destination and a queue's timeout destination must name something the console has (when it is a kind the
 * console keeps), and a number that inbound routes, ring groups or queues send calls to is named when it is
 * about to be deleted or renumbered (ADR 0056, 0057). Ring groups and queues both need this, so it is
 * neither's module.
 */
import { eq } from "drizzle-orm";
import { extensions, inboundRoutes, pttGroups, queues, ringGroups } from "../../db/schema";
import type { Destination, DestinationKind } from "../../shared/destinations";
import { Invalid } from "../core/errors";
import { loopRefusal } from "../routing/loops";
import type { DbOrTx } from "./numbers";

export type RingGroupRow = typeof ringGroups.$inferSelect;
export type QueueRow = typeof queues.$inferSelect;

/** The object whose destination is checked: it cannot send calls to itself. */
export interface CallFlowObject {
  kind: "ring-group" | "queue";
  number: string;
}

const SELF_MESSAGE: Record<CallFlowObject["kind"], string> = {
  "ring-group": "A ring group cannot send its unanswered calls to itself",
  queue: "A queue cannot send its callers to itself after their max wait",
};

/**
 * Refuses (`Invalid` on `field`) a destination that names what the console keeps and does not have: an
 * extension (or its voicemail), a ring group, a queue or a PTT (page) group; or the object itself. IVRs, time
 * conditions and announcements are FreePBX's ids, which the console cannot check.
 */
export function checkDestination(db: DbOrTx, field: string, self: CallFlowObject, d: Destination | null): void {
  if (!d) return;
  const refuse = (message: string) => {
    throw new Invalid(message, { [field]: message });
  };
  switch (d.kind) {
    case "extension":
    case "voicemail":
      if (!db.select({ id: extensions.id }).from(extensions).where(eq(extensions.extension, d.target)).get())
        refuse(`Extension ${d.target} does not exist`);
      break;
    case "ring-group":
      if (self.kind === "ring-group" && d.target === self.number) refuse(SELF_MESSAGE["ring-group"]);
      if (!db.select({ id: ringGroups.id }).from(ringGroups).where(eq(ringGroups.number, d.target)).get())
        refuse(`Ring group ${d.target} does not exist`);
      break;
    case "queue":
      if (self.kind === "queue" && d.target === self.number) refuse(SELF_MESSAGE.queue);
      if (!db.select({ id: queues.id }).from(queues).where(eq(queues.number, d.target)).get())
        refuse(`Queue ${d.target} does not exist`);
      break;
    case "page-group":
      if (!db.select({ id: pttGroups.id }).from(pttGroups).where(eq(pttGroups.extension, d.target)).get())
        refuse(`PTT group ${d.target} does not exist`);
      break;
    default:
      break;
  }
  const loop = loopRefusal(db, self, d);
  if (loop) refuse(loop);
}

/** What sends calls to a target: inbound routes, ring groups (unanswered calls) and queues (after the max wait). */
export interface Senders {
  routes: { id: number; description: string }[];
  ringGroups: RingGroupRow[];
  queues: QueueRow[];
}

/** The inbound routes, ring groups and queues whose destination is one of `kinds` with this `target`. */
export function sendersTo(db: DbOrTx, kinds: readonly DestinationKind[], target: string): Senders {
  const routes = db
    .select({
      id: inboundRoutes.id,
      description: inboundRoutes.description,
      type: inboundRoutes.destinationType,
      to: inboundRoutes.destination,
    })
    .from(inboundRoutes)
    .all()
    .filter((r) => kinds.includes(r.type) && r.to === target)
    .map(({ id, description }) => ({ id, description }));
  const groups = db
    .select()
    .from(ringGroups)
    .all()
    .filter((g) => g.noAnswerKind !== null && kinds.includes(g.noAnswerKind) && g.noAnswerTarget === target);
  const waiting = db
    .select()
    .from(queues)
    .all()
    .filter((q) => q.timeoutKind !== null && kinds.includes(q.timeoutKind) && q.timeoutTarget === target);
  return { routes, ringGroups: groups, queues: waiting };
}

/** The sentences naming the ring groups and queues of `s` that send calls to `what` ("ring group 600"). */
export function callFlowSendersText(s: Pick<Senders, "ringGroups" | "queues">, what: string): string[] {
  const out: string[] = [];
  if (s.ringGroups.length)
    out.push(
      `Ring group(s) ${s.ringGroups.map((g) => `${g.name} (${g.number})`).join(", ")} send unanswered calls to ${what}.`,
    );
  if (s.queues.length)
    out.push(
      `Queue(s) ${s.queues.map((q) => `${q.name} (${q.number})`).join(", ")} send callers to ${what} after their max wait.`,
    );
  return out;
}

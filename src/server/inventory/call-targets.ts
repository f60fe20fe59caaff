/**
 * Where the console's call-flow objects send calls, checked in one place: a ring group's no-answer
 * destination and a queue's timeout destination must name something the console has (when it is a kind the
 * console keeps), and a number that inbound routes, ring groups or queues send calls to is named when it is
 * about to be deleted or renumbered (ADR 0056, 0057). Ring groups and queues both need this, so it is
 * neither's module.
 */
import { eq } from "drizzle-orm";
import {
  announcements,
  extensions,
  inboundRoutes,
  ivrs,
  pttGroups,
  queues,
  ringGroups,
  timeConditions,
} from "../../db/schema";
import type { Destination, DestinationKind } from "../../shared/destinations";
import type { Dependent, Dependents } from "../../shared/safe-delete";
import { Invalid } from "../core/errors";
import { loopRefusal } from "../routing/loops";
import type { DbOrTx } from "./numbers";

export type RingGroupRow = typeof ringGroups.$inferSelect;
export type QueueRow = typeof queues.$inferSelect;
export type IvrRow = typeof ivrs.$inferSelect;
export type AnnouncementRow = typeof announcements.$inferSelect;
export type TimeConditionRow = typeof timeConditions.$inferSelect;

/** The object whose destination is checked: it cannot send calls to itself. */
export interface CallFlowObject {
  kind: "ring-group" | "queue" | "ivr" | "announcement" | "time-condition";
  /** A ring group's or queue's number; another object's console id ("" before it is created). */
  number: string;
}

const SELF_MESSAGE: Record<CallFlowObject["kind"], string> = {
  "ring-group": "A ring group cannot send its unanswered calls to itself",
  queue: "A queue cannot send its callers to itself after their max wait",
  ivr: "An IVR cannot send calls to itself",
  announcement: "An announcement cannot send calls to itself",
  "time-condition": "A time condition cannot send calls to itself",
};

/**
 * Refuses (`Invalid` on `field`) a destination that names what the console keeps and does not have: an
 * extension (or its voicemail), a ring group, a queue, a PTT (page) group, an IVR, an announcement or a time
 * condition (by the console's id, ADR 0059); or the object itself.
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
    case "ivr":
    case "announcement":
    case "time-condition": {
      if (self.kind === d.kind && d.target === self.number) refuse(SELF_MESSAGE[d.kind]);
      const missing = callFlowObjectProblem(db, d);
      if (missing) refuse(missing);
      break;
    }
    default:
      break;
  }
  const loop = loopRefusal(db, self, d);
  if (loop) refuse(loop);
}

/**
 * Why a destination to an IVR or announcement names nothing the console has (its target is the console's id,
 * ADR 0059), or null; null for every other kind.
 */
export function callFlowObjectProblem(db: DbOrTx, d: Destination): string | null {
  if (d.kind !== "ivr" && d.kind !== "announcement" && d.kind !== "time-condition") return null;
  // The id as the console writes it (no leading zeros): the one text every sender and the deploy compare.
  const id = /^[1-9]\d{0,14}$/.test(d.target) ? Number(d.target) : 0;
  const found =
    d.kind === "ivr"
      ? db.select({ id: ivrs.id }).from(ivrs).where(eq(ivrs.id, id)).get()
      : d.kind === "announcement"
        ? db.select({ id: announcements.id }).from(announcements).where(eq(announcements.id, id)).get()
        : db.select({ id: timeConditions.id }).from(timeConditions).where(eq(timeConditions.id, id)).get();
  if (found) return null;
  const [what, one] = {
    ivr: ["IVR", "an IVR"],
    announcement: ["Announcement", "an announcement"],
    "time-condition": ["Time condition", "a time condition"],
  }[d.kind];
  return `${what} ${d.target} does not exist (${one} is chosen by the console's number for it)`;
}

/**
 * What sends calls to a target: inbound routes, ring groups (unanswered calls), queues (after the max wait),
 * IVRs (a key, a wrong key, no key) and announcements (after playing).
 */
export interface Senders {
  routes: { id: number; description: string }[];
  ringGroups: RingGroupRow[];
  queues: QueueRow[];
  ivrs: IvrRow[];
  announcements: AnnouncementRow[];
  timeConditions: TimeConditionRow[];
}

/** Every destination an IVR sends calls to: its options', then its wrong-key and no-key destinations. */
export function ivrDestinations(row: IvrRow): Destination[] {
  const out: Destination[] = row.options.map((o) => o.destination);
  if (row.invalidKind) out.push({ kind: row.invalidKind, target: row.invalidTarget ?? "" });
  if (row.timeoutKind) out.push({ kind: row.timeoutKind, target: row.timeoutTarget ?? "" });
  return out;
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
  const hits = (d: Destination) => kinds.includes(d.kind) && d.target === target;
  const menus = db
    .select()
    .from(ivrs)
    .all()
    .filter((i) => ivrDestinations(i).some(hits));
  const played = db
    .select()
    .from(announcements)
    .all()
    .filter((a) => a.afterKind !== null && hits({ kind: a.afterKind, target: a.afterTarget ?? "" }));
  const timed = db
    .select()
    .from(timeConditions)
    .all()
    .filter(
      (t) =>
        (t.matchKind !== null && hits({ kind: t.matchKind, target: t.matchTarget ?? "" })) ||
        (t.noMatchKind !== null && hits({ kind: t.noMatchKind, target: t.noMatchTarget ?? "" })),
    );
  return { routes, ringGroups: groups, queues: waiting, ivrs: menus, announcements: played, timeConditions: timed };
}

/** The sentences naming the ring groups, queues, IVRs and announcements of `s` that send calls to `what` ("ring group 600"). */
export function callFlowSendersText(s: Omit<Senders, "routes">, what: string): string[] {
  const out: string[] = [];
  if (s.ringGroups.length)
    out.push(
      `Ring group(s) ${s.ringGroups.map((g) => `${g.name} (${g.number})`).join(", ")} send unanswered calls to ${what}.`,
    );
  if (s.queues.length)
    out.push(
      `Queue(s) ${s.queues.map((q) => `${q.name} (${q.number})`).join(", ")} send callers to ${what} after their max wait.`,
    );
  if (s.ivrs.length) out.push(`IVR(s) ${s.ivrs.map((i) => i.name).join(", ")} send calls to ${what}.`);
  if (s.announcements.length)
    out.push(`Announcement(s) ${s.announcements.map((a) => a.name).join(", ")} send calls to ${what} after playing.`);
  if (s.timeConditions.length)
    out.push(`Time condition(s) ${s.timeConditions.map((t) => t.name).join(", ")} send calls to ${what}.`);
  return out;
}

/** The dependents (safe-delete.ts) of `s`: each sender, by its kind. */
export function sendersAsDependents(s: Senders): Dependent[] {
  return [
    ...s.routes.map((r) => ({ kind: "inbound-route" as const, id: r.id, label: r.description })),
    ...s.ringGroups.map((g) => ({ kind: "ring-group" as const, id: g.id, label: g.name })),
    ...s.queues.map((q) => ({ kind: "queue" as const, id: q.id, label: q.name })),
    ...s.ivrs.map((i) => ({ kind: "ivr" as const, id: i.id, label: i.name })),
    ...s.announcements.map((a) => ({ kind: "announcement" as const, id: a.id, label: a.name })),
    ...s.timeConditions.map((t) => ({ kind: "time-condition" as const, id: t.id, label: t.name })),
  ];
}

/**
 * What sends calls to a call-flow object, as a delete's answer: every sender, and the sentence that names them
 * (`what`: "ring group 600", "IVR Main menu"), or null when nothing does.
 */
export function sendersDependents(s: Senders, what: string): Dependents {
  const dependents = sendersAsDependents(s);
  const why: string[] = [];
  if (s.routes.length)
    why.push(`Inbound route(s) ${s.routes.map((r) => r.description).join(", ")} send calls to ${what}.`);
  why.push(...callFlowSendersText(s, what));
  return {
    dependents,
    blockedBecause: why.length ? `${why.join(" ")} Change ${dependents.length === 1 ? "it" : "them"} first.` : null,
  };
}

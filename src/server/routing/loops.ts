/**
 * Destination loops (IVR → time condition → the same IVR; ring group A → ring group B → A): a call that
 * enters one goes round it until the caller hangs up, so a change that closes one is refused, naming the
 * loop (ADR 0058).
 */
import type { Destination } from "../../shared/destinations";
import type { DbOrTx } from "../inventory/numbers";
import { consoleModel, type DestRef, destKey as key, type RoutingModel } from "./model";
import { labelOf, onwards } from "./simulate";

/**
 * A loop through `start`: the destinations from `start` back to it (`start` first), or null. A call goes round a
 * loop by itself (no answer, a timeout, after an announcement); an IVR's key is the caller's choice, so a way back
 * through one (a "main menu" key) is not a loop.
 */
export function loopThrough(model: RoutingModel, start: Destination): DestRef[] | null {
  const target = key(start);
  const seen = new Set<string>();
  const path: DestRef[] = [start];
  const visit = (d: DestRef): boolean => {
    for (const { to: next, chosen } of onwards(model, d)) {
      if (chosen) continue;
      if (key(next) === target) return true;
      if (seen.has(key(next))) continue;
      seen.add(key(next));
      path.push(next);
      if (visit(next)) return true;
      path.pop();
    }
    return false;
  };
  return visit(start) ? path : null;
}

/** The object whose onward destination is being set, as the model names it. */
export interface LoopSubject {
  kind: "ring-group" | "queue" | "ivr" | "announcement" | "time-condition";
  number: string;
}

/**
 * Why the change `apply` makes to the console's model (an object's destinations set) is refused: the loop it
 * closes through `start`, in words, or null.
 */
export function loopRefusalOf(db: DbOrTx, start: Destination, apply: (model: RoutingModel) => void): string | null {
  return loopOf(db, start, apply)?.message ?? null;
}

/** `loopRefusalOf`, with the loop's first step from `start` (which of its destinations closes it). */
export function loopOf(
  db: DbOrTx,
  start: Destination,
  apply: (model: RoutingModel) => void,
): { message: string; first: DestRef } | null {
  const model = consoleModel(db);
  apply(model);
  const loop = loopThrough(model, start);
  if (!loop) return null;
  const words = [...loop, start].map((x) => labelOf(model, x)).join(" → ");
  return {
    message: `This makes a loop: ${words}. A call would go round it until the caller hangs up`,
    first: loop[1] ?? start,
  };
}

/**
 * Why setting `subject`'s onward destination to `d` is refused: the loop it closes, in words ("This makes a
 * loop: Ring group 600 · Sales → Ring group 601 · Support → Ring group 600 · Sales. …"), or null.
 */
export function loopRefusal(db: DbOrTx, subject: LoopSubject, d: Destination | null): string | null {
  if (!d) return null;
  // These check their destinations together (an IVR has several): their modules ask `loopOf`.
  if (subject.kind === "ivr" || subject.kind === "announcement" || subject.kind === "time-condition") return null;
  const start: Destination = { kind: subject.kind, target: subject.number };
  return loopRefusalOf(db, start, (model) => {
    if (subject.kind === "ring-group") {
      const group = model.ringGroups.get(subject.number);
      model.ringGroups.set(subject.number, {
        name: group?.name ?? "",
        strategy: group?.strategy ?? "ringall",
        ringTime: group?.ringTime ?? 0,
        members: group?.members ?? [],
        noAnswer: d,
      });
    } else {
      const queue = model.queues.get(subject.number);
      model.queues.set(subject.number, {
        name: queue?.name ?? "",
        strategy: queue?.strategy ?? "ringall",
        agents: queue?.agents ?? [],
        maxWait: queue?.maxWait ?? 0,
        timeout: d,
      });
    }
  });
}

/**
 * Undo of a delete (ADR 0037): a delete keeps what it removed here, under a random token, for
 * `UNDO_WINDOW_MS`; `undoDelete` puts it back (the entity module's own restore, which checks that its
 * place is still free). Kept in memory, per database, at most `MAX_KEPT` at a time: an undo is a
 * seconds-long second chance, not a recycle bin, and a restart ends it.
 */
import { type DeleteAnswer, type RestoreAnswer, UNDO_WINDOW_MS, type UndoKind } from "../../shared/safe-delete";
import type { Deps } from "./deps";
import { Gone } from "./errors";
import { keptPerDatabase, newHandle } from "./kept";

/** What a restore needs: the database to write and the hub to say so. */
export type RestoreDeps = Pick<Deps, "db" | "events">;

interface Kept {
  kind: UndoKind;
  expiresAt: number;
  /** Puts the removed rows back exactly (same id, same sealed secret); throws `Gone` when it cannot. */
  restore: (deps: RestoreDeps) => RestoreAnswer["object"];
}

/** The most deletes kept at once; the oldest go first beyond it. */
export const MAX_KEPT = 200;

const storeOf = keptPerDatabase<Kept>();

/** Keeps a delete's restore for the undo window; the delete answers with the result. */
export function keepForUndo(deps: Pick<Deps, "db" | "now">, kind: UndoKind, restore: Kept["restore"]): DeleteAnswer {
  const now = deps.now();
  const store = storeOf(deps.db, now);
  const token = newHandle();
  store.set(token, { kind, expiresAt: now + UNDO_WINDOW_MS, restore });
  while (store.size > MAX_KEPT) store.delete(store.keys().next().value as string);
  return { undoToken: token, expiresInMs: UNDO_WINDOW_MS };
}

/**
 * Restores what the delete behind `token` removed; a token is used once. Unknown, used or expired:
 * `Gone`; the entity's restore throws `Gone` too when its number or name was taken in between.
 */
export function undoDelete(deps: Pick<Deps, "db" | "events" | "now">, token: string): RestoreAnswer {
  const store = storeOf(deps.db, deps.now());
  const entry = store.get(token);
  if (!entry) throw new Gone("This delete can no longer be undone: the undo expired or was already used");
  store.delete(token);
  return { kind: entry.kind, object: entry.restore(deps) };
}

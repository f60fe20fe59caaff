/**
 * Short-lived things kept in memory per database under a random handle (the undo of a delete, a new
 * mailbox's PIN until it is shown): a restart forgets them, and each store drops what has expired whenever
 * it is opened.
 */
import type { Db } from "../../db/client";

export interface Expiring {
  expiresAt: number;
}

/** A store per database: `open(db, now)` answers it with the expired entries gone. */
export function keptPerDatabase<T extends Expiring>(): (db: Db, now: number) => Map<string, T> {
  const kept = new WeakMap<Db, Map<string, T>>();
  return (db, now) => {
    let store = kept.get(db);
    if (!store) {
      store = new Map();
      kept.set(db, store);
    }
    for (const [handle, entry] of store) if (entry.expiresAt <= now) store.delete(handle);
    return store;
  };
}

/** A random handle (18 bytes, base64url): the only way to what it names. */
export const newHandle = () => Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url");

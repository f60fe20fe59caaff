/**
 * The off-site key (ADR 0064): made once by the console from 32 random bytes, shown to the administrator once
 * (with its file to download), kept here sealed with the secret box so the scheduled uploads can encrypt.
 * Rotating makes a new key for new copies; the earlier ones stay sealed here while copies at a target still need
 * them (for the drill), and the view says how many do, since a restore needs the key that copy was made with.
 */
import { eq, sql } from "drizzle-orm";
import { backupUploads, consoleSettings } from "../../db/schema";
import type { CreatedOffsiteKey, OffsiteKeyView } from "../../shared/offsite-backups";
import type { Deps } from "../core/deps";
import { Conflict } from "../core/errors";
import { keyIdOf, keyText, newOffsiteKey, type OffsiteKey } from "./envelope";

const SETTING = "offsiteKeys";

interface StoredKey {
  id: string;
  /** The key's bytes, base64, sealed with the secret box. */
  sealed: string;
  createdAt: number;
  retiredAt?: number;
}
interface StoredKeys {
  current: StoredKey | null;
  previous: StoredKey[];
}

function readKeys(deps: Pick<Deps, "db">): StoredKeys {
  const row = deps.db
    .select({ value: consoleSettings.value })
    .from(consoleSettings)
    .where(eq(consoleSettings.key, SETTING))
    .get();
  const v = row?.value as Partial<StoredKeys> | undefined;
  return { current: v?.current ?? null, previous: Array.isArray(v?.previous) ? v.previous : [] };
}

function writeKeys(deps: Pick<Deps, "db" | "now">, keys: StoredKeys): void {
  const at = new Date(deps.now());
  deps.db
    .insert(consoleSettings)
    .values({ key: SETTING, value: keys, updatedAt: at })
    .onConflictDoUpdate({ target: consoleSettings.key, set: { value: keys, updatedAt: at } })
    .run();
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Copies still at a target (not deleted, not failed) per key id. */
function copiesByKey(deps: Pick<Deps, "db">): Map<string, number> {
  const rows = deps.db
    .select({ keyId: backupUploads.keyId, n: sql<number>`count(*)` })
    .from(backupUploads)
    .where(eq(backupUploads.state, "ok"))
    .groupBy(backupUploads.keyId)
    .all();
  return new Map(rows.filter((r) => r.keyId).map((r) => [r.keyId as string, Number(r.n)]));
}

/** GET /api/backups/key: which key new copies use, and the earlier keys copies still need. */
export function offsiteKeyView(deps: Pick<Deps, "db">): OffsiteKeyView {
  const keys = readKeys(deps);
  const copies = copiesByKey(deps);
  return {
    keyId: keys.current?.id ?? null,
    createdAt: keys.current ? iso(keys.current.createdAt) : null,
    previous: keys.previous
      .map((k) => ({
        keyId: k.id,
        createdAt: iso(k.createdAt),
        retiredAt: iso(k.retiredAt ?? k.createdAt),
        copies: copies.get(k.id) ?? 0,
      }))
      .filter((k) => k.copies > 0),
  };
}

/**
 * POST /api/backups/key: the first key, or with `rotate` a new one in place of the current (409 without it, so a
 * second click does not silently replace the key the administrator just stored). The answer is the only place
 * the key is ever shown. Earlier keys that no copy needs any more are forgotten.
 */
export function createOffsiteKey(
  deps: Pick<Deps, "db" | "now" | "box" | "events">,
  opts: { rotate?: boolean },
): CreatedOffsiteKey {
  const keys = readKeys(deps);
  if (keys.current && !opts.rotate) {
    throw new Conflict(
      `An off-site key exists (${keys.current.id}): rotate it to make a new one (copies made with it still need it)`,
    );
  }
  const key = newOffsiteKey();
  const now = deps.now();
  const needed = copiesByKey(deps);
  const previous = [...keys.previous, ...(keys.current ? [{ ...keys.current, retiredAt: now }] : [])].filter(
    (k) => (needed.get(k.id) ?? 0) > 0,
  );
  writeKeys(deps, {
    current: { id: key.id, sealed: deps.box.seal(key.bytes.toString("base64")), createdAt: now },
    previous,
  });
  deps.events.publish({ type: "offsite-backups-updated", data: { key: key.id } });
  return { key: keyText(key), keyId: key.id, createdAt: iso(now) };
}

function opened(deps: Pick<Deps, "box">, k: StoredKey): OffsiteKey | null {
  try {
    const bytes = Buffer.from(deps.box.open(k.sealed), "base64");
    return bytes.length === 32 && keyIdOf(bytes) === k.id ? { bytes, id: k.id } : null;
  } catch {
    // Sealed with another DATA_DIR/secret.key (a database restored elsewhere): not usable here.
    return null;
  }
}

/** The key new copies are encrypted with, or null when none was made (or it cannot be opened here). */
export function currentOffsiteKey(deps: Pick<Deps, "db" | "box">): OffsiteKey | null {
  const k = readKeys(deps).current;
  return k ? opened(deps, k) : null;
}

/** The key of a copy's header id, current or earlier, when the console still has it. */
export function offsiteKeyById(deps: Pick<Deps, "db" | "box">): (id: string) => Buffer | null {
  const keys = readKeys(deps);
  const all = [...(keys.current ? [keys.current] : []), ...keys.previous];
  return (id) => {
    const k = all.find((x) => x.id === id);
    return k ? (opened(deps, k)?.bytes ?? null) : null;
  };
}

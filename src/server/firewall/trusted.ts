/**
 * The console's trusted networks (ADR 0067), kept in `console_settings` under `firewallTrusted`: the
 * console never bans inside them, and copies each into every jail's `ignoreip` (fail2ban forgets runtime
 * `ignoreip` entries when it restarts, so the console puts them back whenever it reads the jails).
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { consoleSettings } from "../../db/schema";
import type { TrustedNetwork } from "../../shared/firewall";

const KEY = "firewallTrusted";
/** A list an administrator keeps by hand; more is a mistake (or an attempt to fill the database). */
export const MAX_TRUSTED = 100;

const isEntry = (v: unknown): v is TrustedNetwork =>
  typeof v === "object" &&
  v !== null &&
  ["network", "note", "addedAt", "addedBy"].every((k) => typeof (v as Record<string, unknown>)[k] === "string");

/** The stored list, oldest first; a value that no longer parses (a hand-edited database) reads as empty. */
export function trustedNetworks(db: Db): TrustedNetwork[] {
  const row = db
    .select({ value: consoleSettings.value })
    .from(consoleSettings)
    .where(eq(consoleSettings.key, KEY))
    .get();
  const value = row?.value;
  return Array.isArray(value) && value.every(isEntry) ? value : [];
}

export function saveTrustedNetworks(db: Db, list: TrustedNetwork[], at: Date): void {
  db.insert(consoleSettings)
    .values({ key: KEY, value: list, updatedAt: at })
    .onConflictDoUpdate({ target: consoleSettings.key, set: { value: list, updatedAt: at } })
    .run();
}

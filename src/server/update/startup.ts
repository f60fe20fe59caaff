/**
 * What a console's start does about an update (docs/decisions/0065-self-update.md): before the database is
 * opened, put back the pre-update database a roll-back asked for; once it is open, record in the audit trail
 * the outcomes the updater left in status.json that are not there yet (the updater, root and outside the
 * console, does not write the database). GET /api/update records them too, for an outcome that came after
 * this start (a roll-back's, written once the old binary answers).
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { consoleSettings } from "../../db/schema";
import { recordAudit, SYSTEM_ACTOR } from "../accounts/audit";
import type { Deps } from "../core/deps";
import { restoreAfterRollback } from "./database";
import { readStatus } from "./state";

/** console_settings: the time of the newest update outcome already in the audit trail. */
const AUDITED_KEY = "update.auditedThrough";

export function beforeOpen(dataDir: string, dbFile: string): void {
  try {
    const done = restoreAfterRollback(dataDir, dbFile);
    if (done) console.log(`update: ${done}`);
  } catch (err) {
    console.error(`update: the database from before the update could not be put back: ${(err as Error).message}`);
  }
}

/** Audits each outcome newer than the last audited one, at the time it happened, as `update.install`. */
export function auditOutcomes(deps: Pick<Deps, "db"> & Partial<Pick<Deps, "events">>, dataDir: string): void {
  const { history } = readStatus(dataDir);
  if (history.length === 0) return;
  const row = deps.db
    .select({ value: consoleSettings.value })
    .from(consoleSettings)
    .where(eq(consoleSettings.key, AUDITED_KEY))
    .get();
  const through = typeof row?.value === "number" ? row.value : 0;
  const fresh = history.filter((r) => typeof r.at === "number" && r.at > through);
  if (fresh.length === 0) return;
  for (const result of fresh) {
    recordAudit(
      { db: deps.db, events: deps.events, now: () => result.at },
      {
        actor: SYSTEM_ACTOR,
        action: "update.install",
        outcome: result.outcome === "updated" ? "ok" : "failed",
        objectLabel: result.to,
        detail: result.message,
      },
    );
  }
  const last = Math.max(...fresh.map((r) => r.at));
  deps.db
    .insert(consoleSettings)
    .values({ key: AUDITED_KEY, value: last, updatedAt: new Date() })
    .onConflictDoUpdate({ target: consoleSettings.key, set: { value: last, updatedAt: new Date() } })
    .run();
}

export function afterOpen(dataDir: string, db: Db): void {
  try {
    auditOutcomes({ db }, dataDir);
  } catch (err) {
    console.error(`update: the last update's outcome was not audited: ${(err as Error).message}`);
  }
}

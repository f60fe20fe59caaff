/**
 * What GET /metrics reports of the console's state (ADR 0066), read at each scrape: a few GROUP BY and
 * COUNT queries, the live PBX from the monitor's memory (never AMI per scrape), and the newest backup
 * file's time. Only numbers and bounded labels (job kinds and states, deploy states).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../db/client";
import { BACKUP_FOLDER } from "../backup/snapshot";
import type { Deps } from "../core/deps";
import type { LiveMonitor } from "../live/monitor";

export interface MetricsSnapshot {
  version: string;
  jobs: { kind: string; state: string; count: number }[];
  jobsRunning: number;
  deploys: { state: string; count: number }[];
  /** Epoch seconds, null when no deployment succeeded. */
  deployLastSuccess: number | null;
  amiUp: boolean;
  extensions: { total: number; registered: number };
  trunks: { total: number; registering: number; registered: number };
  activeCalls: number;
  alertsFiring: number;
  /** Seconds since the newest backup, null when there is none. */
  backupAge: { local: number | null; offsite: number | null };
}

export type CollectDeps = Pick<Deps, "db" | "config" | "now"> & { live: Pick<LiveMonitor, "status">; version: string };

const all = <T>(db: Db, sql: string): T[] => db.$client.query(sql).all() as T[];
const one = <T>(db: Db, sql: string): T | null => (db.$client.query(sql).get() as T | null) ?? null;

/** The newest file's modification time in DATA_DIR/backups (ms), null when there is none. */
function newestBackupFile(dataDir: string): number | null {
  const folder = join(dataDir, BACKUP_FOLDER);
  let newest: number | null = null;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return null;
  }
  for (const name of names) {
    // A dot file is a backup being written (or not a backup at all).
    if (name.startsWith(".")) continue;
    try {
      const st = statSync(join(folder, name));
      if (st.isFile() && (newest === null || st.mtimeMs > newest)) newest = st.mtimeMs;
    } catch {
      // Deleted between the listing and the stat (the schedule's pruning).
    }
  }
  return newest;
}

export function collectSnapshot(deps: CollectDeps): MetricsSnapshot {
  const { db } = deps;
  const now = deps.now();
  const jobs = all<{ kind: string; state: string; count: number }>(
    db,
    "SELECT kind, state, COUNT(*) AS count FROM jobs GROUP BY kind, state ORDER BY kind, state",
  );
  const lastDeploy = one<{ at: number | null }>(
    db,
    "SELECT MAX(finished_at) AS at FROM jobs WHERE kind = 'deploy' AND state = 'succeeded'",
  );
  const firing = one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM alert_events WHERE state = 'firing'");
  const offsite = one<{ at: number | null }>(
    db,
    "SELECT MAX(finished_at) AS at FROM backup_uploads WHERE state = 'ok'",
  );
  const local = newestBackupFile(deps.config.dataDir);
  const live = deps.live.status();
  const age = (at: number | null | undefined) =>
    at === null || at === undefined ? null : Math.max(0, (now - at) / 1000);
  return {
    version: deps.version,
    jobs,
    jobsRunning: jobs.filter((j) => j.state === "running").reduce((n, j) => n + j.count, 0),
    deploys: jobs.filter((j) => j.kind === "deploy").map((j) => ({ state: j.state, count: j.count })),
    deployLastSuccess: lastDeploy?.at ? lastDeploy.at / 1000 : null,
    amiUp: live.connected,
    extensions: { total: live.extensions.length, registered: live.extensions.filter((e) => e.registered).length },
    trunks: {
      total: live.trunks.length,
      registering: live.trunks.filter((t) => t.registration !== "not-registering").length,
      registered: live.trunks.filter((t) => t.registration === "registered").length,
    },
    activeCalls: live.activeCalls,
    alertsFiring: firing?.n ?? 0,
    backupAge: { local: age(local), offsite: age(offsite?.at) },
  };
}

/**
 * What this console tells a fleet hub about itself (ADR 0076): its health from what it already keeps (the
 * live monitor's memory, the alert engine's rows, the deploy jobs, the backup folder: the same readings as
 * GET /metrics), and its own objects matching a text. A figure whose source is away now is null, never a
 * guess.
 */
import type { Db } from "../../db/client";
import { FLEET_LIMITS, type FleetSearchItem, type FleetSelf, type FleetSelfSearch } from "../../shared/fleet";
import type { Deps } from "../core/deps";
import type { LiveMonitor } from "../live/monitor";
import { collectSnapshot } from "../metrics/collect";

export type SelfDeps = Pick<Deps, "db" | "config" | "now"> & { live: Pick<LiveMonitor, "status">; version: string };

export function fleetSelf(deps: SelfDeps): FleetSelf {
  const snap = collectSnapshot(deps);
  const live = deps.live.status();
  const connected = live.connected;
  return {
    name: deps.config.serverLabel,
    version: deps.version,
    pbx: {
      // Without manager settings the console cannot tell whether the PBX answers.
      reachable: connected ? true : live.source === "none" ? null : false,
      ami: connected ? "connected" : (live.reason ?? "not connected"),
    },
    registrations: connected ? { registered: snap.extensions.registered, total: snap.extensions.total } : null,
    activeCalls: connected ? snap.activeCalls : null,
    alertsFiring: snap.alertsFiring,
    lastDeployAt: snap.deployLastSuccess === null ? null : new Date(snap.deployLastSuccess * 1000).toISOString(),
    backupAgeSeconds: snap.backupAge.local === null ? null : Math.round(snap.backupAge.local),
  };
}

/** One kind of object the search reads: its table, the columns matched and how a row is shown. */
interface SearchSource {
  kind: FleetSearchItem["kind"];
  sql: string;
  item: (row: Record<string, string | null>) => Omit<FleetSearchItem, "kind">;
}

const SOURCES: SearchSource[] = [
  {
    kind: "extension",
    sql: "SELECT extension AS k, name FROM extensions WHERE extension LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' ORDER BY extension",
    item: (r) => ({ key: String(r.k), label: `${r.k} ${r.name ?? ""}`.trim(), url: "/extensions" }),
  },
  {
    kind: "inbound-route",
    sql: "SELECT id AS k, did_number AS did, description FROM inbound_routes WHERE did_number LIKE ?1 ESCAPE '\\' OR description LIKE ?1 ESCAPE '\\' ORDER BY description",
    item: (r) => ({
      key: String(r.k),
      label: r.did ? `${r.did} ${r.description}` : String(r.description),
      url: "/inbound-routes",
    }),
  },
  {
    kind: "trunk",
    sql: "SELECT id AS k, name, host FROM trunks WHERE name LIKE ?1 ESCAPE '\\' OR host LIKE ?1 ESCAPE '\\' ORDER BY name",
    item: (r) => ({ key: String(r.k), label: `${r.name} (${r.host})`, url: "/trunks" }),
  },
  {
    kind: "ring-group",
    sql: "SELECT number AS k, name FROM ring_groups WHERE number LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' ORDER BY number",
    item: (r) => ({ key: String(r.k), label: `${r.k} ${r.name}`, url: "/ring-groups" }),
  },
  {
    kind: "queue",
    sql: "SELECT number AS k, name FROM queues WHERE number LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' ORDER BY number",
    item: (r) => ({ key: String(r.k), label: `${r.k} ${r.name}`, url: "/queues" }),
  },
  {
    kind: "page-group",
    sql: "SELECT extension AS k, name FROM ptt_groups WHERE extension LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' ORDER BY extension",
    item: (r) => ({ key: String(r.k), label: `${r.k} ${r.name}`, url: "/ptt-groups" }),
  },
];

/** A LIKE pattern matching `text` anywhere, its wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** This console's objects whose number, name, DID, description or host contains `q` (case-insensitive). */
export function fleetSelfSearch(deps: { db: Db }, q: string): FleetSelfSearch {
  const limit = FLEET_LIMITS.searchItems;
  const pattern = containing(q);
  const items: FleetSearchItem[] = [];
  let truncated = false;
  for (const source of SOURCES) {
    const room = limit - items.length;
    const rows = deps.db.$client.query(`${source.sql} LIMIT ${room + 1}`).all(pattern) as Record<
      string,
      string | null
    >[];
    if (rows.length > room) truncated = true;
    for (const row of rows.slice(0, room)) items.push({ kind: source.kind, ...source.item(row) });
  }
  return { items, truncated };
}

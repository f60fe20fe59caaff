/**
 * Outbound routes in dial order (ADR 0040): `POST /api/outbound-routes/order` takes a
 * permutation of every route id (else 400), the list follows it, stored rows keep their old order on
 * upgrade, and deploying writes FreePBX's `outbound_route_sequence` in that order, against a REAL MariaDB,
 * with the routes made in FreePBX left in their places.
 */
import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { openDatabase } from "../../src/db/client";
import { embeddedMigrations, runMigrations } from "../../src/db/migrate";
import { deployTarget } from "../../src/server/pbx/deploy/apply";
import { planTarget } from "../../src/server/pbx/plan/plan";
import { startTestServer, type TestServer } from "../helpers/server";
import { emptyFreepbx } from "../pbx-host/gui-objects";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);

interface Route {
  id: number;
  name: string;
  position: number;
  routeOrder: number;
}

async function withRoutes(s: TestServer, names: string[]): Promise<Route[]> {
  const trunk = await s.call("POST", "/api/trunks", { name: "carrier", type: "sip", host: "sip.example.com" });
  expect(trunk.status).toBe(201);
  for (const name of names) {
    const r = await s.call("POST", "/api/outbound-routes", {
      name,
      dialPatterns: ["9NXXXXXX"],
      trunkId: trunk.json.id,
    });
    expect(r.status).toBe(201);
  }
  return (await s.call("GET", "/api/outbound-routes")).json;
}

const namesOf = (routes: Route[]) => routes.map((r) => r.name);

describe("the order API", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await s.setup();
  });
  afterAll(async () => {
    await s?.stop();
  });

  test("new routes are tried last; a permutation sets the order, which the list keeps", async () => {
    const routes = await withRoutes(s, ["local", "long", "intl"]);
    expect(namesOf(routes)).toEqual(["local", "long", "intl"]);
    expect(routes.map((r) => r.position)).toEqual([0, 1, 2]);
    const [local, long, intl] = routes as [Route, Route, Route];

    const res = await s.call("POST", "/api/outbound-routes/order", { ids: [intl.id, local.id, long.id] });
    expect(res.status).toBe(200);
    expect(namesOf(res.json)).toEqual(["intl", "local", "long"]);
    const again: Route[] = (await s.call("GET", "/api/outbound-routes")).json;
    expect(namesOf(again)).toEqual(["intl", "local", "long"]);
    expect(again.map((r) => r.position)).toEqual([0, 1, 2]);
    // The older field says the same order (highest first).
    expect(again.map((r) => r.routeOrder)).toEqual([2, 1, 0]);

    const audit = await s.call("GET", "/api/audit?action=outbound-route.reorder");
    expect(audit.status).toBe(200);
    const entry = audit.json.items?.[0] ?? audit.json[0];
    expect(entry.action).toBe("outbound-route.reorder");
    expect(JSON.stringify(entry.changes)).toContain(`${intl.id} intl, ${local.id} local, ${long.id} long`);

    // A route created after a reorder goes to the end.
    const trunkId = (await s.call("GET", "/api/trunks")).json[0].id;
    await s.call("POST", "/api/outbound-routes", { name: "late", dialPatterns: ["0."], trunkId });
    expect(namesOf((await s.call("GET", "/api/outbound-routes")).json)).toEqual(["intl", "local", "long", "late"]);
  });

  test("anything but a permutation of every route id is a 400 on ids, and changes nothing", async () => {
    const before: Route[] = (await s.call("GET", "/api/outbound-routes")).json;
    const ids = before.map((r) => r.id);
    const bad = [
      { ids: ids.slice(1) },
      { ids: [...ids, ids[0]] },
      { ids: [...ids.slice(1), ids[0] as number, 999_999] },
      { ids: [ids[0], ids[0], ...ids.slice(2)] },
      { ids: "1,2,3" },
      { ids: ids.map(String) },
      {},
    ];
    for (const body of bad) {
      const res = await s.call("POST", "/api/outbound-routes/order", body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.error.fields ?? {}).some((f) => f.startsWith("ids"))).toBe(true);
    }
    expect((await s.call("GET", "/api/outbound-routes")).json).toEqual(before);
  });
});

describe("upgrading", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test("stored routes get their current order (highest route order first, then oldest) as their position", () => {
    const dir = mkdtempSync(join(tmpdir(), "pbx-db-"));
    dirs.push(dir);
    const file = join(dir, "t.db");
    const old = drizzle(new Database(file));
    const all = embeddedMigrations();
    const upTo = all.findIndex((m) => m.sql.some((q) => q.includes("ADD `position`")));
    expect(upTo).toBeGreaterThan(0);
    runMigrations(old, all.slice(0, upTo));
    old.$client.run("INSERT INTO trunks (name, type, host) VALUES ('t', 'sip', 'sip.example.com')");
    const insert =
      "INSERT INTO outbound_routes (name, dial_patterns, trunk_id, route_order) VALUES (?, '[\"9.\"]', 1, ?)";
    for (const [name, order] of [
      ["a", 0],
      ["b", 5],
      ["c", 0],
      ["d", 9],
    ] as const)
      old.$client.run(insert, [name, order]);
    old.$client.close();

    const db = openDatabase(file);
    expect(db.$client.query("SELECT name, position FROM outbound_routes ORDER BY position").all()).toEqual([
      { name: "d", position: 0 },
      { name: "b", position: 1 },
      { name: "a", position: 2 },
      { name: "c", position: 3 },
    ]);
    db.$client.close();
  });
});

describe("deploying the order to FreePBX (real MariaDB)", () => {
  let pbx: PbxHost;
  let s: TestServer;
  beforeAll(async () => {
    pbx = await startPbxHost();
    await emptyFreepbx(pbx);
    s = await startTestServer(pbx.consoleEnv());
    await s.setup();
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await pbx?.stop();
  });

  const sequence = async () =>
    (
      await pbx.query(
        "SELECT r.name, s.seq FROM outbound_route_sequence s JOIN outbound_routes r ON r.route_id = s.route_id ORDER BY s.seq, r.name",
      )
    ).map((row: Record<string, unknown>) => `${row.seq}:${row.name}`);
  const deploy = () => deployTarget(s.app, "all", undefined, { mode: "direct", adoptConflicts: true });

  test("the console's routes take its order among their places; FreePBX's own routes keep theirs", async () => {
    // Two routes made in FreePBX, at the top and in the middle of the sequence.
    await pbx.query(
      "INSERT INTO outbound_routes (route_id, name, mohclass, notification_on) VALUES (50, 'gui-emergency', 'default', 'call'), (51, 'gui-fax', 'default', 'call')",
    );
    await pbx.query("INSERT INTO outbound_route_sequence (route_id, seq) VALUES (50, 0), (51, 1)");

    const routes = await withRoutes(s, ["local", "long", "intl"]);
    await deploy();
    expect(await sequence()).toEqual(["0:gui-emergency", "1:gui-fax", "2:local", "3:long", "4:intl"]);

    // FreePBX's own route is moved between two of the console's by someone in FreePBX.
    await pbx.query("UPDATE outbound_route_sequence SET seq = 5 WHERE route_id = 51");
    await pbx.query(
      "UPDATE outbound_route_sequence s JOIN outbound_routes r ON r.route_id = s.route_id SET s.seq = 1 WHERE r.name = 'long'",
    );
    expect(await sequence()).toEqual(["0:gui-emergency", "1:long", "2:local", "4:intl", "5:gui-fax"]);

    const [local, long, intl] = routes as [Route, Route, Route];
    expect((await s.call("POST", "/api/outbound-routes/order", { ids: [intl.id, local.id, long.id] })).status).toBe(
      200,
    );

    // The plan says which routes move, as places among the console's routes.
    const plan = await planTarget(s.app, "all");
    const moves = plan.wire.items
      .filter((i) => i.kind === "outboundRoute")
      .map((i) => [i.label, i.changes.find((c) => c.field.includes("dial order"))]);
    expect(moves).toEqual([
      ["intl", { field: "outbound_route_sequence (dial order)", from: "3 of 3", to: "1 of 3" }],
      ["local", undefined],
      ["long", { field: "outbound_route_sequence (dial order)", from: "1 of 3", to: "3 of 3" }],
    ]);

    await deploy();
    // The console's places (1, 2, 4) now hold intl, local, long; FreePBX's routes did not move.
    expect(await sequence()).toEqual(["0:gui-emergency", "1:intl", "2:local", "4:long", "5:gui-fax"]);

    // Deploying again changes nothing.
    await deploy();
    expect(await sequence()).toEqual(["0:gui-emergency", "1:intl", "2:local", "4:long", "5:gui-fax"]);
    const replan = await planTarget(s.app, "all");
    expect(replan.wire.items.filter((i) => i.kind === "outboundRoute").map((i) => i.action)).toEqual([
      "unchanged",
      "unchanged",
      "unchanged",
    ]);
  });
});

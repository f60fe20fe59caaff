import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { renderMigrationsModule } from "../../scripts/migrations-module";
import { openDatabase } from "../../src/db/client";
import { embeddedMigrations, runMigrations } from "../../src/db/migrate";
import * as schema from "../../src/db/schema";

const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), "pbx-db-"));
  dirs.push(dir);
  return join(dir, "t.db");
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("the embedded migrations module matches the migrations folder", async () => {
  expect(await Bun.file(`${import.meta.dir}/../../src/db/migrations.gen.ts`).text()).toBe(
    await renderMigrationsModule(),
  );
});

test("migrations create every table and column of the drizzle schema", () => {
  const db = openDatabase(tempDb());
  const tables = Object.values(schema).map((t) => getTableConfig(t as never));
  expect(tables.map((t) => t.name).sort()).toEqual(
    [
      "ai_assistants",
      "ai_call_logs",
      "ai_messages",
      "ai_prices",
      "ai_routing_rules",
      "ai_test_runs",
      "ai_test_scripts",
      "alert_channels",
      "alert_deliveries",
      "alert_events",
      "alert_rules",
      "announcements",
      "api_credentials",
      "api_tokens",
      "audit_log",
      "backup_targets",
      "backup_uploads",
      "call_transcripts",
      "config_backups",
      "console_settings",
      "extensions",
      "fleet_members",
      "fleet_templates",
      "inbound_routes",
      "ivrs",
      "job_results",
      "jobs",
      "outbound_routes",
      "pbx_objects",
      "provisioning_tokens",
      "ptt_groups",
      "queues",
      "ring_groups",
      "sessions",
      "sign_in_throttle",
      "sip_provider_credentials",
      "table_versions",
      "test_call_results",
      "test_calls",
      "time_conditions",
      "time_groups",
      "trunks",
      "user_totp",
      "users",
    ].sort(),
  );
  for (const t of tables) {
    const cols = (db.$client.query(`PRAGMA table_info(${t.name})`).all() as { name: string }[]).map((c) => c.name);
    expect(cols.sort()).toEqual(t.columns.map((c) => c.name).sort());
  }
  db.$client.close();
});

test("a second start applies nothing and keeps the data", () => {
  const file = tempDb();
  const first = openDatabase(file);
  first.$client.run("INSERT INTO extensions (extension, name) VALUES ('1001', 'Front desk')");
  first.$client.close();
  const second = openDatabase(file);
  expect(runMigrations(second)).toBe(0);
  expect(second.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get()).toEqual({
    n: embeddedMigrations().length,
  });
  expect(second.$client.query("SELECT name FROM extensions").get()).toEqual({ name: "Front desk" });
  second.$client.close();
});

test("upgrading a database that has the dropped decorative tables keeps every stored credential", () => {
  const file = tempDb();
  const old = drizzle(new Database(file));
  const all = embeddedMigrations();
  const upTo = all.findIndex((m) => m.sql.some((s) => s.includes("DROP TABLE `vps_status`")));
  expect(upTo).toBeGreaterThan(0);
  expect(runMigrations(old, all.slice(0, upTo))).toBe(upTo);
  old.$client.run(
    "INSERT INTO api_credentials (name, type, api_url, status, last_used) VALUES ('FreePBX', 'freepbx', 'https://pbx.example/gql', 'active', 1)",
  );
  old.$client.run("INSERT INTO vps_status (status) VALUES ('running')");
  old.$client.close();
  const db = openDatabase(file);
  const tables = (
    db.$client.query("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]
  ).map((r) => r.name);
  expect(tables).not.toContain("vps_status");
  expect(db.$client.query("SELECT name, type, api_url FROM api_credentials").all()).toEqual([
    { name: "FreePBX", type: "freepbx", api_url: "https://pbx.example/gql" },
  ]);
  db.$client.close();
});

test("the connection runs in WAL mode with foreign keys and a busy timeout", () => {
  const db = openDatabase(tempDb());
  expect(db.$client.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
  expect(db.$client.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
  expect(db.$client.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
  db.$client.close();
});

test("the migration applies on a plain bun:sqlite database too", () => {
  const file = tempDb();
  openDatabase(file).$client.close();
  const raw = new Database(file, { readonly: true });
  const names = raw.query("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[];
  expect(names.map((n) => n.name)).toContain("__drizzle_migrations");
  raw.close();
});

test("upgrading to roles makes the existing user an enabled administrator", () => {
  const file = tempDb();
  const old = drizzle(new Database(file));
  const all = embeddedMigrations();
  const upTo = all.findIndex((m) => m.sql.some((s) => s.includes("ADD `role`")));
  expect(upTo).toBeGreaterThan(0);
  expect(runMigrations(old, all.slice(0, upTo))).toBe(upTo);
  old.$client.run("INSERT INTO users (id, username, password) VALUES ('u1', 'admin', 'hash')");
  old.$client.close();
  const db = openDatabase(file);
  expect(db.$client.query("SELECT username, role, disabled FROM users").all()).toEqual([
    { username: "admin", role: "admin", disabled: 0 },
  ]);
  db.$client.close();
});

test("upgrading to the call-flow IVRs keeps the wizard's IVRs: their retries, greeting and no-key extension; names made unique", () => {
  const file = tempDb();
  const old = drizzle(new Database(file));
  const all = embeddedMigrations();
  const upTo = all.findIndex((m) => m.sql.some((s) => s.includes("CREATE TABLE `announcements`")));
  expect(upTo).toBeGreaterThan(0);
  expect(runMigrations(old, all.slice(0, upTo))).toBe(upTo);
  old.$client.run(
    "INSERT INTO ivrs (name, description, announcement, timeout, invalid_retries, timeout_destination, invalid_destination) VALUES ('Main IVR', 'wizard', '7', 10, 2, '1001', 'somewhere'), ('Main IVR', NULL, NULL, 90, 12, NULL, '1002')",
  );
  old.$client.close();
  const db = openDatabase(file);
  expect(
    db.$client
      .query(
        "SELECT name, greeting, timeout, retries, options, timeout_kind, timeout_target, invalid_kind, invalid_target FROM ivrs ORDER BY id",
      )
      .all(),
  ).toEqual([
    {
      name: "Main IVR",
      greeting: 7,
      timeout: 10,
      retries: 2,
      options: "[]",
      timeout_kind: "extension",
      timeout_target: "1001",
      invalid_kind: null,
      invalid_target: null,
    },
    {
      name: "Main IVR (2)",
      greeting: null,
      timeout: 60,
      retries: 9,
      options: "[]",
      timeout_kind: null,
      timeout_target: null,
      invalid_kind: "extension",
      invalid_target: "1002",
    },
  ]);
  db.$client.close();
});

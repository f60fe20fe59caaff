// Migration 0011: a stored trunk with a username and a secret keeps its credentials; any other becomes
// IP-authenticated (a trunk without credentials was deployed with empty authentication).
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { openDatabase } from "../../src/db/client";
import { embeddedMigrations, runMigrations } from "../../src/db/migrate";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("upgrading sets each stored trunk's authentication from its credentials", () => {
  const dir = mkdtempSync(join(tmpdir(), "pbx-db-"));
  dirs.push(dir);
  const file = join(dir, "t.db");
  const old = drizzle(new Database(file));
  const all = embeddedMigrations();
  const upTo = all.findIndex((m) => m.sql.some((s) => s.includes("ADD `auth_mode`")));
  expect(upTo).toBeGreaterThan(0);
  expect(runMigrations(old, all.slice(0, upTo))).toBe(upTo);
  const insert = "INSERT INTO trunks (name, type, host, username, secret) VALUES (?, 'sip', 'sip.example.com', ?, ?)";
  old.$client.run(insert, ["both", "user", "sealed-secret"]);
  old.$client.run(insert, ["wizard", null, null]);
  old.$client.run(insert, ["user only", "user", null]);
  old.$client.run(insert, ["empty", "", ""]);
  old.$client.close();

  const db = openDatabase(file);
  expect(db.$client.query("SELECT name, auth_mode, provider_addresses FROM trunks ORDER BY id").all()).toEqual([
    { name: "both", auth_mode: "credentials", provider_addresses: "[]" },
    { name: "wizard", auth_mode: "ip", provider_addresses: "[]" },
    { name: "user only", auth_mode: "ip", provider_addresses: "[]" },
    { name: "empty", auth_mode: "ip", provider_addresses: "[]" },
  ]);
  db.$client.close();
});

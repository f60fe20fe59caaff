// The table versions are read once per turn of the event loop and shared (src/db/table-versions.ts,
// ADR 0035): a write by this process is seen at once, a write by another process from the next turn on.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { TableVersions } from "../../src/db/table-versions";

let dir: string;
let db: Db;
let other: Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pbx-versions-"));
  db = openDatabase(join(dir, "pbx-console.db"));
  other = new Database(join(dir, "pbx-console.db"));
  other.exec("PRAGMA busy_timeout = 5000;");
});
afterEach(() => {
  other.close();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const addExtension = (conn: Database, extension: string) =>
  conn.run("INSERT INTO extensions (extension, name) VALUES (?, ?)", [extension, `User ${extension}`]);

test("this process's write is seen by the very next read, in the same turn", () => {
  const versions = new TableVersions(db);
  const before = versions.read().get("extensions") as number;
  addExtension(db.$client, "1001");
  expect(versions.read().get("extensions")).toBe(before + 1);
  // A write to another table also ends the share, and leaves this one's version alone.
  const settings = versions.read().get("console_settings") as number;
  db.$client.run("INSERT INTO console_settings (key, value, updated_at) VALUES ('k', '1', 0)");
  const after = versions.read();
  expect([after.get("console_settings"), after.get("extensions")]).toEqual([settings + 1, before + 1]);
});

test("another process's write is seen from the next turn; within a turn the read is shared", async () => {
  const versions = new TableVersions(db);
  const first = versions.read();
  const before = first.get("extensions") as number;
  addExtension(other, "1002");
  // The same turn: one read serves every check (the share is what saves the locks).
  expect(versions.read()).toBe(first);
  await nextTurn();
  expect(versions.read().get("extensions")).toBe(before + 1);
  // And the turn after that reads again rather than keeping the last answer.
  addExtension(other, "1003");
  await nextTurn();
  expect(versions.read().get("extensions")).toBe(before + 2);
});

// The session check keeps what it read while nothing it depends on was written (ADR 0035). Every write
// below goes through a second SQLite connection, as `pbx-console create-admin`, `unlock` or any other
// process would: the console learns of it only from the table versions its triggers keep. Each case
// first makes the session's lookup kept (two requests), then writes, then asks again.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";

let s: TestServer;
let other: Database;
beforeEach(async () => {
  s = await startTestServer();
  await s.setup();
  other = new Database(s.dbFile);
  other.exec("PRAGMA busy_timeout = 5000;");
});
afterEach(async () => {
  other.close();
  await s.stop();
});

const info = async () => (await s.call("GET", "/api/info")).status;

async function kept() {
  expect(await info()).toBe(200);
  expect(await info()).toBe(200);
}

test("a session deleted by another process is refused at the next request", async () => {
  await kept();
  other.run("DELETE FROM sessions");
  expect(await info()).toBe(401);
});

test("a user disabled by another process is refused at the next request", async () => {
  await kept();
  other.run("UPDATE users SET disabled = 1 WHERE username = ?", [ADMIN.username]);
  expect(await info()).toBe(401);
});

test("a role changed by another process applies at the next request", async () => {
  const users = await s.call("GET", "/api/users");
  expect(users.status).toBe(200);
  await kept();
  other.run("UPDATE users SET role = 'viewer' WHERE username = ?", [ADMIN.username]);
  const after = await s.call("GET", "/api/users");
  expect(after.status).toBe(403);
});

test("two-factor sign-in required by another process holds the session at the next request", async () => {
  expect((await s.call("GET", "/api/extensions")).status).toBe(200);
  await kept();
  other.run(
    "INSERT INTO console_settings (key, value, updated_at) VALUES ('requireTotp', 'true', ?) ON CONFLICT(key) DO UPDATE SET value = 'true'",
    [Date.now()],
  );
  // /api/info is allowed before two-factor set-up; a list is not.
  const res = await s.call("GET", "/api/extensions");
  expect(res.status).toBe(403);
});

test("an idle session expires by time even while its lookup is kept", async () => {
  await kept();
  // Move the clock past the idle limit without writing anything: the kept row's times still decide.
  s.advance(31 * 60 * 1000);
  expect(await info()).toBe(401);
});

test("a write to an unrelated table keeps the lookup; the answers stay right", async () => {
  await kept();
  other.run("UPDATE table_versions SET version = version + 1 WHERE name = 'extensions'");
  expect(await info()).toBe(200);
});

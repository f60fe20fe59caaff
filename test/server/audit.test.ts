// The audit trail: who did what, from where, with field-level before/after and no
// secret ever stored; cursor paging and filters; CSV export; read-only through the API; retention.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { auditCount, pruneAudit, recordAudit } from "../../src/server/accounts/audit";
import { csvCell } from "../../src/server/core/csv";
import { AUDIT_CSV_COLUMNS, AUDIT_MASK, type AuditEntry, type AuditPage } from "../../src/shared/audit";
import { ADMIN, signedInServer, startTestServer } from "../helpers/server";

setDefaultTimeout(30_000);

const s = signedInServer();

const SIP_SECRET = "Sip-Secret-4d7f9a21c3";
const API_KEY = "hostinger-key-9f8e7d6c5b4a";
const NEW_PASSWORD = "a brand new password 42";

/** The newest rows, optionally filtered. */
async function audit(query = ""): Promise<AuditEntry[]> {
  const res = await s.call("GET", `/api/audit${query ? `?${query}` : ""}`);
  expect(res.status).toBe(200);
  return (res.json as AuditPage).items;
}

const latest = async (action: string) => (await audit(`action=${action}`))[0];

/** Every stored audit row as text: a secret must appear nowhere in it. */
const allRows = () => s.snapshot("audit_log");

/** A second client with its own cookie, signed in as `username`. */
async function clientAs(username: string, password: string, role: "viewer" | "operator" | "admin") {
  const created = await s.call("POST", "/api/users", { username, password, role });
  expect(created.status).toBe(201);
  const other = await fetch(`${s.base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  expect(other.status).toBe(200);
  const cookie = (other.headers.get("set-cookie") ?? "").split(";")[0] as string;
  return {
    id: (created.json as { id: string }).id,
    call: (method: string, path: string, body?: unknown) =>
      fetch(`${s.base}${path}`, {
        method,
        headers: { cookie, ...(method === "GET" ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}

describe("what is recorded", () => {
  test("sign-ins, failed and successful, with the actor and the client address; never the password", async () => {
    const bad = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: ADMIN.username, password: "not-the-password-xyz" }),
    });
    expect(bad.status).toBe(401);
    const good = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    expect(good.status).toBe(200);
    const logins = await audit("action=auth.login&limit=2");
    expect(logins.map((e) => [e.actor, e.outcome, e.clientIp])).toEqual([
      [ADMIN.username, "ok", "127.0.0.1"],
      [ADMIN.username, "failed", "127.0.0.1"],
    ]);
    expect(logins[1]?.detail).toBe("Wrong username or password");
    expect(allRows()).not.toContain("not-the-password-xyz");
    expect(allRows()).not.toContain(ADMIN.password);
  });

  test("a sign-in with an unknown name records the name that was typed", async () => {
    await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "mallory", password: "guess guess guess" }),
    });
    const row = await latest("auth.login");
    expect(row).toMatchObject({ actor: "mallory", outcome: "failed" });
  });

  test("creating and deleting an extension: field-level after, then before; the SIP secret only masked", async () => {
    const created = await s.call("POST", "/api/extensions", {
      extension: "2101",
      name: "Front desk",
      secret: SIP_SECRET,
    });
    expect(created.status).toBe(201);
    const id = String(created.json.id);
    const create = await latest("extension.create");
    expect(create).toMatchObject({
      actor: ADMIN.username,
      outcome: "ok",
      objectType: "extension",
      objectId: id,
      objectLabel: "Front desk",
    });
    expect(create?.changes).toContainEqual({ field: "extension", to: "2101" });
    expect(create?.changes).toContainEqual({ field: "name", to: "Front desk" });
    expect(create?.changes).toContainEqual({ field: "secret", to: AUDIT_MASK });
    // Empty fields of a new object are not listed.
    expect(create?.changes.filter((c) => c.to === "null" || c.to === "")).toEqual([]);

    expect((await s.call("DELETE", `/api/extensions/${id}`)).status).toBe(200);
    const del = await latest("extension.delete");
    expect(del).toMatchObject({ objectId: id, objectLabel: "Front desk", outcome: "ok" });
    expect(del?.changes).toContainEqual({ field: "extension", from: "2101" });
    expect(allRows()).not.toContain(SIP_SECRET);
  });

  test("a credential save records which fields changed, secrets as set and masked", async () => {
    const saved = await s.call("POST", "/api/credentials", { type: "hostinger", name: "Hostinger", apiKey: API_KEY });
    expect(saved.status).toBe(200);
    const row = await latest("credential.save");
    expect(row).toMatchObject({ objectType: "credential", objectId: "hostinger", outcome: "ok" });
    const key = row?.changes.find((c) => c.field.startsWith("apiKey"));
    expect(key).toEqual({ field: "apiKey (secret)", from: AUDIT_MASK, to: AUDIT_MASK });
    expect(allRows()).not.toContain(API_KEY);
    expect(allRows()).not.toContain(API_KEY.slice(-4));
  });

  test("user changes: role from → to, a password reset masked; refused attempts recorded as denied", async () => {
    const viewer = await clientAs("audit-viewer", "viewer password 123", "viewer");
    const patched = await s.call("PATCH", `/api/users/${viewer.id}`, { role: "operator", password: NEW_PASSWORD });
    expect(patched.status).toBe(200);
    const row = await latest("user.update");
    expect(row).toMatchObject({ objectId: viewer.id, objectLabel: "audit-viewer" });
    expect(row?.changes).toContainEqual({ field: "role", from: "viewer", to: "operator" });
    expect(row?.changes).toContainEqual({ field: "password", to: AUDIT_MASK });
    expect(allRows()).not.toContain(NEW_PASSWORD);

    // The reset signed them out; as an operator now, they try to make themselves an administrator.
    const login = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "audit-viewer", password: NEW_PASSWORD }),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const escalate = await fetch(`${s.base}/api/users/${viewer.id}`, {
      method: "PATCH",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ role: "admin" }),
    });
    expect(escalate.status).toBe(403);
    const denied = await latest("user.update");
    expect(denied).toMatchObject({ actor: "audit-viewer", outcome: "denied", objectId: viewer.id });
    expect(denied?.detail).toBe("Your role (operator) cannot do this");
  });

  test("sign-out, deploy attempts and the backup download are recorded", async () => {
    const op = await clientAs("audit-op", "operator password 1", "operator");
    expect((await op.call("POST", "/api/auth/logout", {})).status).toBe(200);
    expect(await latest("auth.logout")).toMatchObject({ actor: "audit-op", outcome: "ok" });

    // No PBX configured: the deployment fails, and the audit says so (never a success that did not happen).
    const deploy = await s.call("POST", "/api/deploy/extensions", {});
    expect(deploy.status).toBeGreaterThanOrEqual(400);
    expect(await latest("deploy.extensions")).toMatchObject({ actor: ADMIN.username, outcome: "failed" });

    const backup = await s.call("GET", "/api/backup");
    expect(backup.status).toBe(200);
    expect(await latest("backup.download")).toMatchObject({ actor: ADMIN.username, outcome: "ok" });
  });

  test("an invalid write is recorded as failed with the attempted values (secrets masked)", async () => {
    const res = await s.call("POST", "/api/extensions", { extension: "abc", name: "Bad", secret: SIP_SECRET });
    expect(res.status).toBe(400);
    const row = await latest("extension.create");
    expect(row?.outcome).toBe("failed");
  });

  test("reads are not recorded, and an anonymous request to a write records nothing", async () => {
    const before = auditCount(s.db);
    await s.call("GET", "/api/extensions");
    const anon = await fetch(`${s.base}/api/extensions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(anon.status).toBe(401);
    expect(auditCount(s.db)).toBe(before);
  });
});

describe("reading the trail", () => {
  test("newest first with cursor paging that neither repeats nor skips a row", async () => {
    for (let i = 0; i < 7; i++)
      recordAudit(s.app, { actor: "pager", action: "test.page", outcome: "ok", detail: `n${i}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.call("GET", `/api/audit?actor=pager&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      const page = res.json as AuditPage;
      seen.push(...page.items.map((e) => e.detail ?? ""));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["n6", "n5", "n4", "n3", "n2", "n1", "n0"]);
  });

  test("filters: action prefix, outcome, and text matched literally (wildcards are not wildcards)", async () => {
    recordAudit(s.app, { actor: "filter", action: "test.a", outcome: "ok", objectLabel: "100% sure" });
    recordAudit(s.app, { actor: "filter", action: "test.b", outcome: "failed", objectLabel: "plain" });
    expect((await audit("actor=filter&action=test.")).length).toBe(2);
    expect((await audit("actor=filter&action=test.a")).map((e) => e.objectLabel)).toEqual(["100% sure"]);
    expect((await audit("actor=filter&outcome=failed")).map((e) => e.action)).toEqual(["test.b"]);
    expect((await audit("actor=filter&q=%25")).map((e) => e.objectLabel)).toEqual(["100% sure"]);
    expect((await audit("actor=filter&q=_")).length).toBe(0);
  });

  test("bad filters are 400 with field messages", async () => {
    for (const q of [
      "limit=0",
      "limit=501",
      "limit=x",
      "cursor=abc",
      "cursor=-1",
      "action=DROP%20TABLE",
      "outcome=maybe",
    ]) {
      const res = await s.call("GET", `/api/audit?${q}`);
      expect(res.status, q).toBe(400);
      expect(Object.keys(res.json.error.fields ?? {}).length, q).toBeGreaterThan(0);
    }
  });

  test("operators and viewers cannot read it", async () => {
    const op = await clientAs("audit-op2", "operator password 2", "operator");
    expect((await op.call("GET", "/api/audit")).status).toBe(403);
    expect((await op.call("GET", "/api/audit/export.csv")).status).toBe(403);
  });

  test("CSV export: the header, one line per row, quoting, and no formula a spreadsheet would run", async () => {
    recordAudit(s.app, {
      actor: "csv",
      action: "test.csv",
      outcome: "ok",
      objectLabel: '=HYPERLINK("http://evil","x")',
      detail: "a, b\nc",
      changes: [{ field: "name", from: "old", to: "new" }],
    });
    const res = await fetch(`${s.base}/api/audit/export.csv?actor=csv`, { headers: { cookie: s.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toContain("attachment");
    const text = await res.text();
    const [header, ...rest] = text.split("\r\n").filter((l) => l !== "");
    expect(header).toBe(AUDIT_CSV_COLUMNS.join(","));
    const body = rest.join("\r\n");
    expect(body).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(body).toContain('"a, b\nc"');
    expect(body).toContain("name: old → new");
    expect(csvCell("+1 555")).toBe("'+1 555");
    expect(csvCell("-cmd")).toBe("'-cmd");
    expect(csvCell(null)).toBe("");
  });

  test("an export that matches nothing is the header line alone (and ends)", async () => {
    const res = await fetch(`${s.base}/api/audit/export.csv?actor=nobody-at-all`, { headers: { cookie: s.cookie } });
    expect(await res.text()).toBe(`${AUDIT_CSV_COLUMNS.join(",")}\r\n`);
  });

  test("the export streams every matching row (more than one batch)", async () => {
    for (let i = 0; i < 1203; i++) recordAudit(s.app, { actor: "bulk", action: "test.bulk", outcome: "ok" });
    const res = await fetch(`${s.base}/api/audit/export.csv?actor=bulk`, { headers: { cookie: s.cookie } });
    const lines = (await res.text()).split("\r\n").filter((l) => l !== "");
    expect(lines.length).toBe(1 + 1203);
  });
});

describe("while another connection holds the write lock", () => {
  test("the audited call is answered, and its row is written in order once the lock is free", async () => {
    const { Database } = await import("bun:sqlite");
    const other = new Database(s.dbFile);
    other.exec("BEGIN IMMEDIATE");
    let released = false;
    try {
      recordAudit(s.app, { actor: "locked", action: "test.locked", outcome: "ok", detail: "first" });
      const backup = await s.call("GET", "/api/backup");
      expect(backup.status).toBe(200);
      recordAudit(s.app, { actor: "locked", action: "test.locked", outcome: "ok", detail: "third" });
      // Nothing could be written yet.
      expect(other.query("SELECT count(*) AS n FROM audit_log WHERE actor = 'locked'").get()).toEqual({ n: 0 });
      other.exec("COMMIT");
      released = true;
    } finally {
      if (!released) other.exec("ROLLBACK");
      other.close();
    }
    let rows: AuditEntry[] = [];
    for (let i = 0; i < 50 && rows.length < 2; i++) {
      await Bun.sleep(50);
      rows = await audit("actor=locked");
    }
    expect(rows.map((e) => e.detail)).toEqual(["third", "first"]);
    const download = (await audit("action=backup.download"))[0];
    expect(download?.id).toBeGreaterThan(rows[1]?.id ?? Infinity);
    expect(download?.id).toBeLessThan(rows[0]?.id ?? 0);
  });
});

describe("rows cannot be changed or removed", () => {
  test("no API method changes or deletes a row", async () => {
    const before = allRows();
    for (const method of ["PUT", "PATCH", "DELETE", "POST"]) {
      const res = await s.call(method, "/api/audit", {});
      expect(res.status, method).toBe(405);
      const one = await s.call(method, "/api/audit/1", {});
      expect(one.status, method).toBe(404);
    }
    // Only the rows this test's own refused calls added (none: a 405 is not an audited call).
    expect(allRows()).toBe(before);
  });

  test("the database itself refuses an UPDATE", () => {
    expect(() => s.db.$client.run("UPDATE audit_log SET actor = 'someone else'")).toThrow(
      "audit rows cannot be changed",
    );
  });
});

describe("retention", () => {
  test("rows older than AUDIT_RETENTION_DAYS go; newer rows stay", async () => {
    const t = await startTestServer({ AUDIT_RETENTION_DAYS: "30" });
    try {
      const day = 24 * 60 * 60 * 1000;
      const base = Date.now();
      const at = (ms: number) => ({ ...t.app, now: () => ms });
      recordAudit(at(base - 31 * day), { actor: "old", action: "test.old", outcome: "ok" });
      recordAudit(at(base - 29 * day), { actor: "recent", action: "test.recent", outcome: "ok" });
      expect(pruneAudit(at(base))).toBe(1);
      const actors = t.db.$client.query("SELECT actor FROM audit_log").all() as { actor: string }[];
      expect(actors.map((r) => r.actor)).toEqual(["recent"]);
    } finally {
      await t.stop();
    }
  });

  test("the default is 365 days, and a bad value stops start-up", async () => {
    const { loadConfig } = await import("../../src/server/config");
    expect(loadConfig({}, false).auditRetentionDays).toBe(365);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: "90" }, false).auditRetentionDays).toBe(90);
    for (const bad of ["0", "-5", "ten", "36501"]) {
      expect(() => loadConfig({ AUDIT_RETENTION_DAYS: bad }, false), bad).toThrow("AUDIT_RETENTION_DAYS");
    }
  });
});

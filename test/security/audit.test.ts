/**
 * Attacks on the audit trail, against the built binary (ADR 0022):
 * - every secret that passes through an audited call (SIP secrets, API keys, passwords, a private key,
 *   TOTP secrets and codes, API tokens, wrong passwords of failed sign-ins) is searched for, in every
 *   encoding redaction knows, in the CSV export and in the database files: it must be in neither;
 * - rewriting or deleting rows through the API (every method, override headers, SQL in the filters);
 * - a sign-in flood is recorded attempt by attempt (nothing is lost under the throttle);
 * - a user who is not an administrator reads nothing of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { totp } from "../../src/server/accounts/totp";
import { secretForms } from "../../src/server/redact";
import { AUDIT_CSV_COLUMNS } from "../../src/shared/audit";
import { ADMIN, type Binary, startBinary } from "./binary";

let bin: Binary;
beforeAll(async () => {
  bin = await startBinary({ logRequests: false });
  expect((await bin.setup()).status).toBe(201);
}, 30_000);
afterAll(async () => {
  await bin?.stop();
});

/** A distinct secret per use, long enough that finding it anywhere cannot be a coincidence. */
const secret = (label: string) => `${label}-${crypto.randomUUID().replaceAll("-", "")}`;
const secrets: string[] = [];
const keep = (label: string) => {
  const s = secret(label);
  secrets.push(s);
  return s;
};

async function exportCsv(query = ""): Promise<string> {
  const res = await fetch(`${bin.base}/api/audit/export.csv${query}`, { headers: { cookie: bin.cookie } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The database and its WAL as text (the audit rows are plain there: only secrets are sealed). */
const databaseText = () =>
  readdirSync(bin.dataDir)
    .filter((f) => f.startsWith("pbx-console.db"))
    .map((f) => readFileSync(join(bin.dataDir, f)).toString("latin1"))
    .join("\n");

async function signInElsewhere(username: string, password: string, code?: string) {
  return fetch(`${bin.base}/api/auth/login`, {
    method: "POST",
    // A connection per attempt, as a bot's would be (and none left pooled for the next request).
    headers: { "content-type": "application/json", connection: "close" },
    keepalive: false,
    body: JSON.stringify({ username, password, ...(code ? { code } : {}) }),
  });
}

describe("no secret reaches the trail", () => {
  test("secrets sent through 14 kinds of audited call are in neither the export nor the database", async () => {
    const ok = (res: { status: number }, status = 200) => expect(res.status).toBe(status);
    ok(await bin.call("POST", "/api/extensions", { extension: "4101", name: "Desk", secret: keep("sip") }), 201);
    ok(
      await bin.call("POST", "/api/trunks", {
        name: "carrier",
        type: "sip",
        host: "sip.example.net",
        username: "acct",
        secret: keep("trunk"),
      }),
      201,
    );
    ok(await bin.call("POST", "/api/credentials", { type: "hostinger", name: "Hostinger", apiKey: keep("hkey") }));
    ok(
      await bin.call("POST", "/api/credentials", {
        type: "openai",
        name: "OpenAI",
        apiKey: keep("sk"),
        webhookSecret: keep("whsec"),
        projectId: "proj_audit",
      }),
    );
    ok(
      await bin.call("POST", "/api/credentials", {
        type: "ssh",
        name: "PBX host",
        host: "127.0.0.1",
        username: "root",
        privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${keep("pk")}\n-----END OPENSSH PRIVATE KEY-----`,
        password: keep("sshpw"),
      }),
    );
    ok(await bin.call("POST", "/api/credentials/test", { type: "telnyx", name: "Telnyx", apiKey: keep("tkey") }));
    const userPassword = keep("userpw");
    const user = await bin.call("POST", "/api/users", {
      username: "auditee",
      password: userPassword,
      role: "operator",
    });
    ok(user, 201);
    ok(await bin.call("PATCH", `/api/users/${user.json.id}`, { password: keep("resetpw") }));
    for (let i = 0; i < 3; i++) ok(await signInElsewhere("auditee", keep("wrongpw")), 401);
    const token = await bin.call("POST", "/api/ai/tokens", { name: "bridge" });
    ok(token, 201);
    secrets.push(token.json.token);
    const setup = await bin.call("POST", "/api/auth/totp/setup", {});
    ok(setup);
    secrets.push(setup.json.secret);
    const code = totp(setup.json.secret, Date.now());
    const enabled = await bin.call("POST", "/api/auth/totp/enable", { code });
    ok(enabled);
    secrets.push(...(enabled.json.recoveryCodes as string[]));
    const newPassword = keep("newpw");
    ok(await bin.call("POST", "/api/auth/password", { currentPassword: ADMIN.password, newPassword }));

    const csv = await exportCsv();
    const db = databaseText();
    const rows = csv.split("\r\n").filter((l) => l !== "").length - 1;
    expect(rows).toBeGreaterThanOrEqual(16);
    let forms = 0;
    for (const s of secrets) {
      for (const form of secretForms(s)) {
        forms++;
        expect(csv.includes(form), `${s.split("-")[0]} in the CSV export`).toBe(false);
        expect(db.includes(form), `${s.split("-")[0]} in the database files`).toBe(false);
      }
    }
    // The figure for SECURITY.md.
    console.log(
      `audit: ${secrets.length} secrets in ${forms} encodings absent from ${rows} audit rows and the database`,
    );
    // …and the calls are there, with what changed.
    for (const action of ["extension.create", "trunk.create", "credential.save", "credential.test", "user.update"]) {
      expect(csv).toContain(`,${action},ok,`);
    }
    expect(csv).toContain("apiKey (secret): ••••••");
    expect(csv.split("\r\n").filter((l) => l.includes(",auditee,") && l.includes(",auth.login,failed,")).length).toBe(
      3,
    );
  });
});

describe("rows cannot be rewritten or deleted through the API", () => {
  test("every method, method-override headers and SQL in the filters change nothing", async () => {
    const before = await exportCsv();
    const attempts: { status: number }[] = [];
    for (const path of ["/api/audit", "/api/audit/1", "/api/audit/export.csv", "/api/audit?id=1"]) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        attempts.push(await bin.call(method, path, { actor: "someone else", detail: "rewritten" }));
      }
      for (const override of ["DELETE", "PUT", "PATCH"]) {
        attempts.push(
          await bin.call("GET", path, undefined, { "x-http-method-override": override, "x-method-override": override }),
        );
      }
    }
    for (const q of [
      "q=%27%20OR%20%271%27%3D%271",
      "q=%27%3B%20DELETE%20FROM%20audit_log%3B--",
      "actor=x%27%3B%20UPDATE%20audit_log%20SET%20actor%3D%27y",
      "cursor=1%20OR%201%3D1",
      "action=auth.%27--",
    ]) {
      attempts.push(await bin.call("GET", `/api/audit?${q}`));
    }
    expect(attempts.filter((a) => a.status >= 500)).toEqual([]);
    expect(attempts.filter((a) => ![200, 400, 404, 405].includes(a.status))).toEqual([]);
    // Nothing was rewritten, deleted or added by any of them.
    expect(await exportCsv()).toBe(before);
    console.log(`audit: ${attempts.length} rewrite/delete attempts, the trail unchanged`);
  });

  test("text filters are literal: an injected condition matches nothing", async () => {
    const res = await bin.call("GET", "/api/audit?q=%27%20OR%20%271%27%3D%271");
    expect(res.status).toBe(200);
    expect(res.json.items).toEqual([]);
  });
});

describe("only administrators read it", () => {
  test("an operator and a viewer get 403 on the list and the export, and learn nothing", async () => {
    for (const role of ["operator", "viewer"] as const) {
      const password = `${role} password 12345`;
      expect((await bin.call("POST", "/api/users", { username: `reader-${role}`, password, role })).status).toBe(201);
      const login = await signInElsewhere(`reader-${role}`, password);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
      for (const path of ["/api/audit", "/api/audit/export.csv"]) {
        const res = await fetch(`${bin.base}${path}`, { headers: { cookie } });
        expect(res.status).toBe(403);
        const text = await res.text();
        expect(text).not.toContain(AUDIT_CSV_COLUMNS.join(","));
        expect(text).not.toContain("auth.login");
      }
    }
  });
});

describe("a sign-in flood", () => {
  // Last: the flood leaves this address throttled.
  test("is recorded attempt by attempt, throttled ones included", async () => {
    const count = async () =>
      (await exportCsv("?actor=flood&action=auth.login")).split("\r\n").filter((l) => l !== "").length - 1;
    const before = await count();
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => signInElsewhere("flood", "not the password at all")),
    ).then((all) => all.map((r) => r.status));
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // Rows are written as each answer goes out; give the last ones a moment.
    let after = await count();
    for (let i = 0; i < 20 && after < before + 60; i++) {
      await Bun.sleep(50);
      after = await count();
    }
    expect(after - before).toBe(60);
    console.log(`audit: 60 parallel failed sign-ins (${statuses.filter((s) => s === 429).length} throttled) → 60 rows`);
  }, 60_000);
});

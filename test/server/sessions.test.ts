// Sessions: the list of one's own sessions, signing out others, the password change, and the sync
// socket closing whenever its session ends (sign-out, another browser's "sign out", password change,
// expiry, or a session removed by another process).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { hashPassword, insertUser } from "../../src/server/accounts/users";
import type { SessionInfo } from "../../src/shared/auth";
import type { WsEvent } from "../../src/shared/ws-events";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";

let s: TestServer;
let events: WsEvent[];
beforeEach(async () => {
  s = await startTestServer();
  await s.setup();
  events = [];
  const hub = s.app.events;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    // "audit-updated" is the transport's (each audited call adds a row), not the routes' own events.
    if (event.type !== "audit-updated") events.push(event);
    send(event);
  };
});
afterEach(async () => {
  await s.stop();
});

/** Signs in a second browser; returns its cookie (this client's cookie is kept). */
async function otherBrowser(userAgent = "Other Browser/1.0", user = ADMIN): Promise<string> {
  const keep = s.cookie;
  const res = await s.call("POST", "/api/auth/login", user, { cookie: "", "user-agent": userAgent });
  expect(res.status).toBe(200);
  const cookie = s.cookie;
  s.cookie = keep;
  return cookie;
}

/** An open sync socket for this cookie, and a promise of its close (code and time). */
async function socket(cookie: string) {
  const ws = new WebSocket(`${s.base.replace("http", "ws")}/ws?type=sync`, { headers: { cookie } } as never);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket did not open"));
  });
  const closed = new Promise<{ code: number; at: number }>((resolve) => {
    ws.onclose = (ev) => resolve({ code: ev.code, at: performance.now() });
  });
  return { ws, closed };
}

/** Resolves with the close, or null when the socket is still open after `ms`. */
const closedWithin = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, Bun.sleep(ms).then(() => null)]) as Promise<T | null>;

const status = async (cookie: string) => (await s.call("GET", "/api/info", undefined, { cookie })).status;

describe("the sessions list", () => {
  test("lists own sessions with address and browser, marks the current one, never a token", async () => {
    await otherBrowser("Firefox/140.0");
    const res = await s.call("GET", "/api/auth/sessions");
    expect(res.status).toBe(200);
    const list = res.json as SessionInfo[];
    expect(list).toHaveLength(2);
    expect(list.filter((x) => x.current)).toHaveLength(1);
    const other = list.find((x) => !x.current) as SessionInfo;
    expect(other.clientIp).toBe("127.0.0.1");
    expect(other.userAgent).toBe("Firefox/140.0");
    expect(Object.keys(other).sort()).toEqual(["clientIp", "createdAt", "current", "id", "lastSeenAt", "userAgent"]);
    const token = s.cookie.split("=")[1] as string;
    const hashes = (s.db.$client.query("SELECT token_hash FROM sessions").all() as { token_hash: string }[]).map(
      (r) => r.token_hash,
    );
    for (const secret of [token, ...hashes]) expect(res.text).not.toContain(secret);
  });

  test("another user's sessions are neither listed nor ended", async () => {
    insertUser(s.db, "second", await hashPassword("second password 1"));
    const theirs = await otherBrowser("Theirs/1", { username: "second", password: "second password 1" });
    const mine = (await s.call("GET", "/api/auth/sessions")).json as SessionInfo[];
    expect(mine).toHaveLength(1);
    const theirId = s.db.$client
      .query("SELECT s.id FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username = 'second'")
      .get() as { id: string };
    expect(mine[0]?.id).not.toBe(theirId.id);
    expect((await s.call("DELETE", `/api/auth/sessions/${theirId.id}`)).status).toBe(404);
    expect(await status(theirs)).toBe(200);
  });

  test("signing out another session ends it and closes its socket; an unknown id is 404", async () => {
    const other = await otherBrowser();
    const { closed } = await socket(other);
    const id = ((await s.call("GET", "/api/auth/sessions")).json as SessionInfo[]).find((x) => !x.current)?.id;
    events = [];
    const start = performance.now();
    expect((await s.call("DELETE", `/api/auth/sessions/${id}`)).status).toBe(204);
    const close = await closedWithin(closed, 1000);
    expect(close).not.toBeNull();
    expect(close?.code).toBe(4001);
    expect(await status(other)).toBe(401);
    expect(await status(s.cookie)).toBe(200);
    expect(events.map((e) => e.type)).toEqual(["sessions-updated"]);
    expect((await s.call("DELETE", `/api/auth/sessions/${id}`)).status).toBe(404);
    console.log(`socket closed ${((close?.at ?? 0) - start).toFixed(0)} ms after "sign out" from another browser`);
  });

  test("sign out everywhere else keeps this browser", async () => {
    const a = await otherBrowser("A/1");
    const b = await otherBrowser("B/1");
    const sockets = await Promise.all([socket(a), socket(b), socket(s.cookie)]);
    const res = await s.call("POST", "/api/auth/sessions/sign-out-others");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ signedOut: 2 });
    expect(await closedWithin(sockets[0].closed, 1000)).not.toBeNull();
    expect(await closedWithin(sockets[1].closed, 1000)).not.toBeNull();
    expect(await closedWithin(sockets[2].closed, 300)).toBeNull();
    expect(await status(a)).toBe(401);
    expect(await status(b)).toBe(401);
    expect(await status(s.cookie)).toBe(200);
    expect((await s.call("GET", "/api/auth/sessions")).json).toHaveLength(1);
    sockets[2].ws.close();
  });
});

describe("the socket closes when its session ends", () => {
  test("on sign-out, within a second", async () => {
    const { closed } = await socket(s.cookie);
    const start = performance.now();
    expect((await s.call("POST", "/api/auth/logout")).status).toBe(200);
    const close = await closedWithin(closed, 1000);
    expect(close?.code).toBe(4001);
    console.log(`socket closed ${((close?.at ?? 0) - start).toFixed(0)} ms after sign-out`);
  });

  test("on expiry (the periodic sweep)", async () => {
    const { closed } = await socket(s.cookie);
    s.advance(31 * 60 * 1000);
    s.app.sessions.sweep();
    expect((await closedWithin(closed, 1000))?.code).toBe(4001);
  });

  test("when another process removed the session (create-admin resets a password)", async () => {
    const { closed } = await socket(s.cookie);
    s.db.$client.run("DELETE FROM sessions");
    s.app.sessions.sweep();
    expect((await closedWithin(closed, 1000))?.code).toBe(4001);
  });

  test("a live session's socket stays open through the sweep", async () => {
    const { ws, closed } = await socket(s.cookie);
    s.app.sessions.sweep();
    expect(await closedWithin(closed, 300)).toBeNull();
    ws.close();
  });
});

describe("changing the password", () => {
  const NEW = "a brand new passphrase";

  test("needs the right current password (field message) and is throttled like sign-in", async () => {
    const wrong = await s.refused(
      "users",
      () => s.call("POST", "/api/auth/password", { currentPassword: "not it at all", newPassword: NEW }),
      400,
    );
    expect(wrong.fields?.currentPassword).toBe("The current password is wrong");
    for (let i = 0; i < 4; i++)
      await s.call("POST", "/api/auth/password", { currentPassword: `nope-${i}`, newPassword: NEW });
    const limited = await s.call("POST", "/api/auth/password", { currentPassword: ADMIN.password, newPassword: NEW });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("validates the new password like set-up does", async () => {
    const short = await s.refused(
      "users",
      () => s.call("POST", "/api/auth/password", { currentPassword: ADMIN.password, newPassword: "short" }),
      400,
    );
    expect(short.fields?.newPassword).toBe("Password must be at least 12 characters");
    const same = await s.refused(
      "users",
      () => s.call("POST", "/api/auth/password", { currentPassword: ADMIN.password, newPassword: ADMIN.password }),
      400,
    );
    expect(same.fields?.newPassword).toBe("The new password must differ from the current one");
  });

  test("changes it, signs out every other session (sockets closed) and keeps this one", async () => {
    const other = await otherBrowser();
    const { closed } = await socket(other);
    const mine = await socket(s.cookie);
    events = [];
    const res = await s.call("POST", "/api/auth/password", { currentPassword: ADMIN.password, newPassword: NEW });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ signedOut: 1 });
    expect((await closedWithin(closed, 1000))?.code).toBe(4001);
    expect(await closedWithin(mine.closed, 300)).toBeNull();
    expect(await status(other)).toBe(401);
    expect(await status(s.cookie)).toBe(200);
    expect(events.map((e) => e.type)).toEqual(["sessions-updated"]);
    const old = await s.call("POST", "/api/auth/login", ADMIN, { cookie: "" });
    expect(old.status).toBe(401);
    const fresh = await s.call("POST", "/api/auth/login", { username: ADMIN.username, password: NEW }, { cookie: "" });
    expect(fresh.status).toBe(200);
    mine.ws.close();
  });
});

/**
 * The live views on the real Asterisk manager interface: registrations come and go as softphones do, an
 * active call shows both legs and the console's hang-up ends the real call, a trunk's outbound registration
 * shows its state, and wrong-password registrations (Asterisk's own security events) reach the attack view.
 * Each change is awaited on the console's WebSocket, as the browser receives it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ActiveCallsView, PbxLiveStatus, PbxSecurity } from "../../src/shared/live";
import { type PbxConsole, startPbxConsole } from "./console";
import { type Registrar, startRegistrar } from "./registrar";
import { Softphone } from "./softphone";
import { reset, until } from "./testbed";

let pbx: PbxConsole;
let registrar: Registrar;
let ws: WebSocket;
const events: { type: string; at: number }[] = [];
const ids: Record<string, number> = {};
const phones: Softphone[] = [];

beforeAll(async () => {
  await reset();
  registrar = await startRegistrar("127.0.0.3");
  pbx = await startPbxConsole();
  for (const ext of ["2301", "2302"])
    ids[ext] = (await pbx.create("/api/extensions", { extension: ext, name: `Live ${ext}` })).id;
  await pbx.create("/api/trunks", {
    name: "carrier",
    type: "sip",
    host: registrar.address,
    port: registrar.port,
    authMode: "credentials",
    username: "acct100",
    secret: "carrier-secret-0123456789",
    registrationEnabled: true,
  });
  await pbx.deploy("all");
  ws = new WebSocket(`ws://127.0.0.1:${pbx.bin.port}/ws?type=sync`, {
    headers: { cookie: pbx.bin.cookie },
  } as never);
  ws.onmessage = (m) => events.push({ type: JSON.parse(String(m.data)).type, at: performance.now() });
  await new Promise((done, fail) => {
    ws.onopen = done;
    ws.onerror = fail;
  });
}, 600_000);

afterAll(async () => {
  ws?.close();
  await Promise.all(phones.map((p) => p.stop()));
  registrar?.stop();
  await pbx?.stop();
});

const status = async (): Promise<PbxLiveStatus> => (await pbx.call("GET", "/api/pbx/status")).json;
const extension = async (n: string) => (await status()).extensions.find((e) => e.extension === n);

/** Waits for a WebSocket event of this type after `since`, then for the view to say what `check` wants. */
async function after<T>(type: string, since: number, check: () => Promise<T | undefined>, what: string) {
  await until(`a ${type} event`, () => (events.some((e) => e.type === type && e.at >= since) ? true : undefined));
  return until(what, check);
}

test("the console's manager connection is up on the real Asterisk", async () => {
  const s = await until("AMI connected", async () => ((await status()).connected ? await status() : undefined));
  expect(s.source).toBe("settings");
  expect(s.extensions.map((e) => e.extension)).toEqual(expect.arrayContaining(["2301", "2302"]));
  expect(s.extensions.find((e) => e.extension === "2301")?.registered).toBe(false);
}, 60_000);

test("a softphone registering and leaving changes the extension's registration", async () => {
  const since = performance.now();
  const phone = await Softphone.start({ user: "2301", secret: await pbx.sipSecret(ids["2301"] as number) });
  const on = await after(
    "pbx-status-updated",
    since,
    async () => {
      const e = await extension("2301");
      return e?.registered ? e : undefined;
    },
    "2301 registered",
  );
  expect(on.contacts[0]?.uri).toContain("2301");
  expect(on.contacts[0]?.address).toContain("127.0.0.1");
  const left = performance.now();
  await phone.stop();
  await after(
    "pbx-status-updated",
    left,
    async () => ((await extension("2301"))?.registered === false ? true : undefined),
    "2301 unregistered",
  );
}, 60_000);

test("an active call shows both legs, and the console's hang-up ends the real call", async () => {
  const a = await Softphone.start({ user: "2301", secret: await pbx.sipSecret(ids["2301"] as number) });
  const b = await Softphone.start({
    user: "2302",
    secret: await pbx.sipSecret(ids["2302"] as number),
    autoAnswer: true,
  });
  phones.push(a, b);
  const since = performance.now();
  await a.dial("2302");
  await b.waitFor("CALL_ESTABLISHED");
  const call = await after(
    "calls-updated",
    since,
    async () => {
      const v: ActiveCallsView = (await pbx.call("GET", "/api/calls/active")).json;
      const c = v.calls.find((x) => x.state === "up");
      return c && c.channels.length >= 2 ? c : undefined;
    },
    "the call, answered, with both legs",
  );
  expect(call.direction).toBe("internal");
  expect(call.caller.number).toBe("2301");
  expect(call.callee.number).toBe("2302");
  const names = call.channels.map((c) => c.channel);
  expect(names.some((n) => n.startsWith("PJSIP/2301-"))).toBe(true);
  expect(names.some((n) => n.startsWith("PJSIP/2302-"))).toBe(true);
  expect((await status()).activeCalls).toBe(1);

  const caller = names.find((n) => n.startsWith("PJSIP/2301-")) as string;
  const hung = await pbx.call("POST", "/api/calls/hangup", { channel: caller });
  expect(hung.status, hung.text).toBe(200);
  await a.waitFor("CALL_CLOSED");
  await b.waitFor("CALL_CLOSED");
  await until("no call in progress", async () => {
    const v: ActiveCallsView = (await pbx.call("GET", "/api/calls/active")).json;
    return v.calls.length === 0 ? true : undefined;
  });
}, 90_000);

test("a registering trunk shows its registration state", async () => {
  const registered = await until(
    "the carrier trunk registered",
    async () => {
      const t = (await status()).trunks.find((x) => x.name === "carrier");
      return t?.registration === "registered" ? t : undefined;
    },
    60_000,
  );
  expect(registered.name).toBe("carrier");
  expect(registrar.registers).toBeGreaterThan(0);
}, 90_000);

test("wrong-password registrations appear in the attack view", async () => {
  const since = performance.now();
  const intruder = await Softphone.start({ user: "2302", secret: "not-the-secret", waitRegistered: false });
  phones.push(intruder);
  expect(await intruder.registration()).toBe("failed");
  const seen = await after(
    "pbx-security-updated",
    since,
    async () => {
      const v: PbxSecurity = (await pbx.call("GET", "/api/pbx/security")).json;
      const src = v.lastHour.sources.find((s) => s.address === "127.0.0.1");
      return src?.accounts.some((a) => a.account === "2302") ? src : undefined;
    },
    "the failed sign-in of 2302 from 127.0.0.1",
  );
  expect(seen.failures).toBeGreaterThan(0);
}, 90_000);

/**
 * Alert rules on the real PBX (ADR 0063): the built console's engine watches the real Asterisk through its
 * manager connection and sends to a signed webhook channel, received by a local receiver that checks the
 * Standard Webhooks signature itself. A softphone stops → the extension-offline alert fires once; it starts
 * again → the resolved message. A trunk whose provider refuses its registration → the trunk alert fires; the
 * provider accepts again and the trunk registers → resolved.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AlertEventsPage } from "../../src/shared/alerts";
import type { PbxLiveStatus } from "../../src/shared/live";
import { generateWebhookSecret } from "../fakes/standard-webhooks";
import { type ReceivedWebhook, startFakeWebhookReceiver } from "../fakes/webhook-receiver";
import { consoleForFile } from "./console";
import { cli, until } from "./testbed";

interface AlertPayload {
  type: string;
  data: { what: string; subject: string; ruleName: string; title: string; eventId: number | null };
}

const { pbx, phone } = consoleForFile();
const secret = generateWebhookSecret();
const receiver = startFakeWebhookReceiver({ secret });

/**
 * A provider's registrar whose answer the test sets: 403 Forbidden (the account refused) or 200 OK, each
 * echoing what RFC 3261 needs of the REGISTER.
 */
async function startProvider(address: string) {
  const state = { accept: false, registers: 0 };
  const socket = await Bun.udpSocket({
    hostname: address,
    port: 0,
    socket: {
      data(sock, buf, port, from) {
        const text = buf.toString();
        if (!text.startsWith("REGISTER ")) return;
        state.registers++;
        const headers = text.split("\r\n\r\n")[0]?.split("\r\n").slice(1) ?? [];
        const all = (name: string) => headers.filter((h) => h.toLowerCase().startsWith(`${name.toLowerCase()}:`));
        const one = (name: string) => all(name)[0] ?? "";
        const to = one("To");
        const lines = [
          state.accept ? "SIP/2.0 200 OK" : "SIP/2.0 403 Forbidden",
          ...all("Via"),
          one("From"),
          to.includes(";tag=") ? to : `${to};tag=reg${state.registers}`,
          one("Call-ID"),
          one("CSeq"),
          ...(state.accept ? [`${one("Contact")};expires=120`] : []),
          "Content-Length: 0",
          "",
          "",
        ];
        sock.send(lines.join("\r\n"), port, from);
      },
    },
  });
  return { state, address, port: socket.port, stop: () => socket.close() };
}

let provider: Awaited<ReturnType<typeof startProvider>>;
let channelId: number;
let extensionId: number;

beforeAll(async () => {
  provider = await startProvider("127.0.0.4");
  extensionId = (await pbx.create("/api/extensions", { extension: "2471", name: "Alert desk" })).id;
  await pbx.create("/api/trunks", {
    name: "flaky",
    type: "sip",
    host: provider.address,
    port: provider.port,
    authMode: "credentials",
    username: "acct471",
    secret: "flaky-secret-0123456789",
    registrationEnabled: true,
  });
  await pbx.deploy("all");
  channelId = (
    await pbx.create("/api/alerts/channels", {
      kind: "webhook",
      name: "Ops receiver",
      url: `${receiver.url}/alerts`,
      secret,
    })
  ).id;
}, 600_000);

afterAll(async () => {
  provider?.stop();
  await receiver.stop();
});

const status = async (): Promise<PbxLiveStatus> => (await pbx.call("GET", "/api/pbx/status")).json;
const payloads = () =>
  receiver.state.received.map((r: ReceivedWebhook) => r.payload as AlertPayload).filter((p) => p.type !== "alert.test");
const about = (subject: string, what?: string) =>
  payloads().filter((p) => p.data.subject === subject && (what === undefined || p.data.what === what));

test("a softphone stops: the extension-offline alert fires once; it comes back: resolved", async () => {
  const secretOf = await pbx.sipSecret(extensionId);
  let desk = await phone({ user: "2471", secret: secretOf });
  await until("2471 registered", async () =>
    (await status()).extensions.find((e) => e.extension === "2471")?.registered ? true : undefined,
  );
  const rule = await pbx.create("/api/alerts/rules", {
    name: "Front desk phone",
    kind: "extension-offline",
    params: { extension: "2471", seconds: 3 },
    repeatMinutes: 0,
    channelIds: [channelId],
  });

  const stopped = Date.now();
  await desk.stop();
  const fired = await until("the firing message", () => about("extension:2471", "firing")[0], 60_000);
  // Not before the hold: the phone was gone for at least 3 s when the message was made.
  expect(Date.now() - stopped).toBeGreaterThanOrEqual(3000);
  expect(fired).toMatchObject({
    type: "alert.firing",
    data: { ruleName: "Front desk phone", title: expect.stringMatching(/^Extension 2471 has no registered phone/) },
  });
  expect(receiver.state.refused).toEqual([]);
  const firing: AlertEventsPage = (await pbx.call("GET", "/api/alerts/events?state=firing")).json;
  expect(firing.items).toMatchObject([{ ruleId: rule.id, subject: "extension:2471", state: "firing" }]);

  desk = await phone({ user: "2471", secret: secretOf });
  const resolved = await until("the resolved message", () => about("extension:2471", "resolved")[0], 60_000);
  expect(resolved.data.title).toMatch(/^Resolved: Extension 2471 has no registered phone \(lasted \d+ s\)$/);
  expect(resolved.data.eventId).toBe(fired.data.eventId);
  // Fired once: passes went by while it lasted, and none sent it again.
  expect(about("extension:2471", "firing")).toHaveLength(1);
  const history: AlertEventsPage = (await pbx.call("GET", `/api/alerts/events?ruleId=${rule.id}`)).json;
  expect(history.items).toMatchObject([{ state: "resolved", notifications: 2 }]);
  expect(history.items[0]?.deliveries.map((d) => [d.what, d.ok, d.channelName])).toEqual([
    ["resolved", true, "Ops receiver"],
    ["firing", true, "Ops receiver"],
  ]);
}, 180_000);

test("a trunk the provider refuses fires the trunk alert; registered again, it resolves", async () => {
  await until(
    "flaky rejected",
    async () => {
      const t = (await status()).trunks.find((x) => x.name === "flaky");
      return t && t.registration !== "registered" && t.registration !== "unknown" ? t : undefined;
    },
    60_000,
  );
  await pbx.create("/api/alerts/rules", {
    name: "Carrier",
    kind: "trunk-unregistered",
    params: { trunk: "flaky", seconds: 3 },
    channelIds: [channelId],
  });
  const fired = await until("the trunk's firing message", () => about("trunk:flaky", "firing")[0], 60_000);
  expect(fired.data.title).toMatch(/^Trunk flaky is (rejected|failed|unregistered)/);

  // The provider takes the account again; the PBX registers at once when told to (as at its next retry).
  provider.state.accept = true;
  await cli("pjsip send register flaky");
  await until(
    "flaky registered",
    async () =>
      (await status()).trunks.find((x) => x.name === "flaky")?.registration === "registered" ? true : undefined,
    60_000,
  );
  const resolved = await until("the trunk's resolved message", () => about("trunk:flaky", "resolved")[0], 60_000);
  expect(resolved.data.title).toStartWith("Resolved: Trunk flaky is");
  expect(about("trunk:flaky", "firing")).toHaveLength(1);
}, 180_000);

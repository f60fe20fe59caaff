/**
 * The PBX as a document (ADR 0075), proved on the real FreePBX 17 and Asterisk 22: a YAML document naming a trunk
 * to a provider, two extensions (one with its SIP secret written in clear), an outbound route by its trunk's name
 * and a DID is planned and applied to the console, deployed, and real calls follow it; an edit of the document
 * moves the DID to the other phone, field by field in the plan, and the next call rings there; the console's
 * own export then plans to nothing.
 */
import { describe, expect, test } from "bun:test";
import type { ConfigPlan } from "../../src/shared/config-document";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";

const { pbx, phone } = consoleForFile();

const DID = "4445550700";
const SECRET = "Doc-Secret-2701-qwerty";
let provider: Softphone;
let first: Softphone;
let second: Softphone;

const document = (port: number, didTo: string) => `version: 1
trunks:
  - name: doc-provider
    type: sip
    host: 127.0.0.2
    port: ${port}
    authMode: ip
    providerAddresses: [127.0.0.2]
extensions:
  - extension: "2701"
    name: Document One
    secret: ${SECRET}
  - extension: "2702"
    name: Document Two
outboundRoutes:
  - name: doc-out
    trunk: doc-provider
    dialPatterns: [5552XXX]
inboundRoutes:
  - description: Document number
    didNumber: "${DID}"
    destinationType: extension
    destination: "${didTo}"
`;

async function planAndApply(text: string): Promise<ConfigPlan> {
  const planned = await pbx.call("POST", "/api/config/plan", { document: text });
  expect(planned.status, planned.text).toBe(200);
  const applied = await pbx.call("POST", "/api/config/apply", { fingerprint: planned.json.fingerprint });
  expect(applied.status, applied.text).toBe(200);
  return planned.json;
}

const idOf = async (extension: string) =>
  ((await pbx.call("GET", "/api/extensions")).json as { id: number; extension: string }[]).find(
    (e) => e.extension === extension,
  )?.id as number;

describe("a document applied to the console and deployed to the real PBX", () => {
  test("plan → apply → deploy: the trunk, extensions and routes the document names are on the PBX", async () => {
    provider = await phone({ user: "5552345", bindAddress: "127.0.0.2", autoAnswer: true });
    const plan = await planAndApply(document(provider.sipPort, "2702"));
    expect(plan.counts).toEqual({ create: 5, update: 0, delete: 0, unchanged: 0 });
    expect(JSON.stringify(plan)).not.toContain(SECRET);
    await pbx.deploy("all");
  }, 300_000);

  test("the secret written in the document registers a phone, and a call leaves through the trunk named by name", async () => {
    first = await phone({ user: "2701", secret: SECRET });
    const before = provider.events.length;
    await first.dial("5552345");
    await provider.waitFor("CALL_ESTABLISHED", { since: before });
    await first.waitFor("CALL_ESTABLISHED");
    await first.hangup();
    await provider.waitFor("CALL_CLOSED", { since: before });
  }, 120_000);

  test("a call to the DID rings the extension the document routes it to", async () => {
    second = await phone({ user: "2702", secret: await pbx.sipSecret(await idOf("2702")) });
    const before = second.events.length;
    const from = provider.events.length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    await second.waitFor("CALL_INCOMING", { since: before });
    await second.accept();
    await provider.waitFor("CALL_ESTABLISHED", { since: from });
    await second.hangup();
    await provider.waitFor("CALL_CLOSED", { since: from });
  }, 120_000);

  test("the document edited: the plan names the one field, and after the deploy the DID rings the other phone", async () => {
    const plan = await planAndApply(document(provider.sipPort, "2701"));
    expect(plan.counts).toEqual({ create: 0, update: 1, delete: 0, unchanged: 4 });
    expect(plan.items.find((i) => i.action === "update")).toMatchObject({
      id: `inboundRoutes:${DID}`,
      changes: [{ field: "destination", from: "2702", to: "2701" }],
    });
    await pbx.deploy("all");
    const before = first.events.length;
    const from = provider.events.length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    await first.waitFor("CALL_INCOMING", { since: before });
    await first.accept();
    await provider.waitFor("CALL_ESTABLISHED", { since: from });
    await first.hangup();
    await provider.waitFor("CALL_CLOSED", { since: from });
  }, 300_000);

  test("the console's export, planned again, changes nothing", async () => {
    const exported = await pbx.call("GET", "/api/config/export?format=yaml");
    expect(exported.text).not.toContain(SECRET);
    const again = await pbx.call("POST", "/api/config/plan", { document: exported.text, prune: true });
    expect(again.status, again.text).toBe(200);
    expect(again.json.counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 5 });
  }, 60_000);
});

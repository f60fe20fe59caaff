/**
 * Call history from real calls: internal, outbound over a trunk and inbound to a DID, each held until
 * Asterisk counts talk time, then hung up. Asterisk writes the records through cdr_adaptive_odbc into
 * `asteriskcdrdb.cdr`; the console shows one item per call with the disposition, talk time and duration the
 * records hold, the trunk and direction, and the CSV export has the same calls.
 */
import { expect, test } from "bun:test";
import type { CdrCall, CdrPage } from "../../src/shared/live";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile();
const DID = "4445550199";

/**
 * Holds the answered call until it has been talking `seconds`, then `hangs` up. Talk time (the records'
 * billsec) counts from the answer, not from the channel's creation: the channel's own duration includes
 * the ringing, which on a loaded machine is long enough to end the call early. So the wait starts when
 * Asterisk first shows `party`'s channel up and in a bridge (answered, talking), which is after the answer.
 */
async function talk(party: string, seconds: number, hangs: Softphone) {
  const answeredBy = await until(
    `${party}'s call answered and bridged`,
    async () => {
      // concise: channel!context!exten!priority!state!app!data!callerid!accountcode!peeraccount!amaflags!duration!bridgeid!…
      const line = (await cli("core show channels concise"))
        .split("\n")
        .map((l) => l.split("!"))
        .find((f) => f[0]?.startsWith(`PJSIP/${party}-`) && f[4] === "Up" && !!f[12]);
      return line ? performance.now() : undefined;
    },
    30_000,
  );
  await until(
    `${party}'s call talking ${seconds} s`,
    async () => (performance.now() - answeredBy >= seconds * 1000 ? true : undefined),
    30_000,
  );
  await hangs.hangup();
}

test("real calls appear once each, with the records' disposition, talk time and duration, and in the CSV", async () => {
  const provider = await phone({ user: "5551999", bindAddress: "127.0.0.2", autoAnswer: true });
  const trunk = await pbx.create("/api/trunks", {
    name: "carrier",
    type: "sip",
    host: "127.0.0.2",
    port: provider.sipPort,
    authMode: "ip",
    providerAddresses: ["127.0.0.2"],
  });
  const ids: Record<string, number> = {};
  for (const ext of ["2401", "2402"])
    ids[ext] = (await pbx.create("/api/extensions", { extension: ext, name: `History ${ext}` })).id;
  await pbx.create("/api/outbound-routes", { name: "out", dialPatterns: ["5551XXX"], trunkId: trunk.id });
  await pbx.create("/api/inbound-routes", {
    description: "Sales",
    didNumber: DID,
    destination: "2402",
    destinationType: "extension",
  });
  await pbx.deploy("all");
  const a = await phone({ user: "2401", secret: await pbx.sipSecret(ids["2401"] as number) });
  const b = await phone({
    user: "2402",
    secret: await pbx.sipSecret(ids["2402"] as number),
    autoAnswer: true,
  });

  // Internal: 2401 → 2402.
  await a.dial("2402");
  await b.waitFor("CALL_ESTABLISHED");
  await talk("2401", 2, a);
  await b.waitFor("CALL_CLOSED");
  // Outbound: 2401 → 5551999 over the trunk.
  let mark = a.events.length;
  await a.dial("5551999");
  await provider.waitFor("CALL_ESTABLISHED");
  await talk("2401", 1, a);
  await a.waitFor("CALL_CLOSED", { since: mark });
  // Inbound: the provider calls the DID, which rings 2402.
  mark = b.events.length;
  await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
  await b.waitFor("CALL_ESTABLISHED", { since: mark });
  await talk("2402", 1, b);
  await b.waitFor("CALL_CLOSED", { since: mark });

  // The records as Asterisk wrote them (one row per leg; grouped by linkedid).
  const rows = await until("three calls in asteriskcdrdb.cdr", async () => {
    const r = await sql(
      "asteriskcdrdb",
      "SELECT linkedid, src, dst, disposition, billsec, duration, did FROM cdr ORDER BY sequence",
    );
    return new Set(r.map((x) => x[0])).size >= 3 ? r : undefined;
  });
  const byCall = new Map<string, string[][]>();
  for (const r of rows) byCall.set(r[0] as string, [...(byCall.get(r[0] as string) ?? []), r]);

  const page: CdrPage = await until("the console's history to list three calls", async () => {
    const res = await pbx.call("GET", "/api/cdr");
    expect(res.status, res.text).toBe(200);
    return res.json.items.length >= 3 ? res.json : undefined;
  });
  expect(page.grouping).toBe("linkedid");
  expect(page.items).toHaveLength(byCall.size);
  const find = (pred: (c: CdrCall) => boolean, what: string) => {
    const c = page.items.find(pred);
    if (!c) throw new Error(`no ${what} call in ${JSON.stringify(page.items, null, 1)}`);
    return c;
  };
  const internal = find((c) => c.direction === "internal", "internal");
  const outbound = find((c) => c.direction === "outbound", "outbound");
  const inbound = find((c) => c.direction === "inbound", "inbound");
  for (const c of [internal, outbound, inbound]) {
    const legs = byCall.get(c.id) ?? [];
    expect(legs.length, c.id).toBeGreaterThan(0);
    expect(c.disposition).toBe("ANSWERED");
    expect(c.talkSec).toBe(Math.max(...legs.map((l) => Number(l[4]))));
    expect(c.durationSec).toBeGreaterThanOrEqual(c.talkSec);
    expect(c.legs).toBe(legs.length);
  }
  expect(internal.talkSec).toBeGreaterThanOrEqual(2);
  expect(internal).toMatchObject({ from: { number: "2401" }, to: { number: "2402" }, trunk: null });
  expect(outbound).toMatchObject({ from: { number: "2401" }, to: { number: "5551999" }, trunk: "carrier" });
  expect(inbound).toMatchObject({ did: DID, to: { number: "2402" }, trunk: "carrier" });
  expect(inbound.extensions).toContain("2402");

  const csv = await pbx.call("GET", "/api/cdr/export.csv");
  expect(csv.status).toBe(200);
  const lines = csv.text.trim().split("\r\n");
  expect(lines).toHaveLength(1 + page.items.length);
  for (const c of page.items) {
    const line = lines.find((l) => l.endsWith(`,${c.id}`));
    expect(line, c.id).toBeDefined();
    expect(line).toContain(`,${c.direction},`);
    expect(line).toContain(`,ANSWERED,${c.durationSec},${c.talkSec},`);
  }
}, 300_000);

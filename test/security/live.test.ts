/**
 * Attacks on the live PBX views, against the built binary (ADR 0027):
 * - hang-up bodies that would reach more than one call through AMI (`/regex/` channels, header injection
 *   with CR/LF, channels not in progress) — the fake AMI records every action the console sends;
 * - a flood of failed SIP sign-ins from many addresses (what a scanning bot produces) — memory stays bounded;
 * - injected text in the call history's filters — literal, and the call records are never written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeAmi, startFakeAmi } from "../fakes/ami";
import { cdrRow, localDateTime } from "../pbx-host/cdr-calls";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { ADMIN, type Binary, startBinary } from "./binary";

const AMI_SECRET = "ami-secret-do-not-leak-7f3a";
let ami: FakeAmi;
let pbx: PbxHost;
let bin: Binary;

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  ami = await startFakeAmi({ secret: AMI_SECRET });
  pbx = await startPbxHost();
  ami.addEndpoint("1001", { kind: "extension" });
  ami.addEndpoint("1002", { kind: "extension" });
  ami.register("1001", { uri: "sip:1001@203.0.113.5:5060", viaAddr: "203.0.113.5:5060" });
  ami.register("1002", { uri: "sip:1002@203.0.113.6:5060", viaAddr: "203.0.113.6:5060" });
  bin = await startBinary({
    env: {
      AMI_HOST: ami.host,
      AMI_PORT: String(ami.port),
      AMI_USERNAME: "admin",
      AMI_SECRET,
      CDR_DATABASE_URL: pbx.cdr.url,
    },
  });
  expect((await bin.setup(ADMIN)).status).toBe(201);
  await until(async () => (await bin.call("GET", "/api/pbx/status")).json?.connected === true, "AMI login");
}, 90_000);

afterAll(async () => {
  await bin?.stop();
  await ami?.stop();
  await pbx?.stop();
});

describe("hang up reaches exactly one known channel", () => {
  test("regex channels, header injection and unknown channels send nothing to AMI", async () => {
    const call = ami.startCall({ from: "1001", to: "1002" });
    ami.answer(call.linkedid);
    await until(async () => (await bin.call("GET", "/api/calls/active")).json?.calls?.length === 1, "the call");
    const real = call.channels[0] as string;
    const hostile = [
      "/.*/",
      "/PJSIP\\/.*/",
      "/./",
      `${real}\r\nAction: Originate\r\nChannel: PJSIP/1002\r\nApplication: System\r\nData: id`,
      `${real}\nAction: Hangup\nChannel: /.*/`,
      `${real}\r\n\r\nAction: Command\r\nCommand: core stop now`,
      "PJSIP/9999-00000001",
      `${real}x`,
      "Local/1001@from-internal-00000001;1",
      "PJSIP/1001-00000004 ",
      "",
      "a".repeat(5000),
      `${real}%0d%0aAction: Originate`,
      `${real}\u2028Action: Originate`,
    ];
    const before = ami.actions.length;
    const statuses: number[] = [];
    for (const channel of hostile) {
      const res = await bin.call("POST", "/api/calls/hangup", { channel });
      statuses.push(res.status);
      expect([400, 404]).toContain(res.status);
    }
    // Also as non-JSON-string values.
    for (const channel of [["/.*/"], { $regex: ".*" }, 42, null]) {
      const res = await bin.call("POST", "/api/calls/hangup", { channel });
      statuses.push(res.status);
      expect(res.status).toBe(400);
    }
    const sent = ami.actions.slice(before).filter((a) => a.name.toLowerCase() !== "ping");
    expect(sent).toEqual([]);
    // The call is still up on the PBX.
    expect((await bin.call("GET", "/api/calls/active")).json.calls).toHaveLength(1);
    console.log(
      `live: ${statuses.length} hostile hang-up bodies → ${statuses.filter((s) => s === 400).length}×400, ` +
        `${statuses.filter((s) => s === 404).length}×404, 0 AMI actions sent`,
    );

    // The exact channel works, and only that channel is named.
    const ok = await bin.call("POST", "/api/calls/hangup", { channel: real });
    expect(ok.status).toBe(200);
    const hangups = ami.actions.slice(before).filter((a) => a.name.toLowerCase() === "hangup");
    expect(hangups.map((a) => a.fields.channel)).toEqual([real]);
  });

  test("the AMI secret is in no answer and no log line", async () => {
    const paths = ["/api/pbx/status", "/api/calls/active", "/api/pbx/security", "/api/credentials"];
    for (const path of paths) expect((await bin.call("GET", path)).text).not.toContain(AMI_SECRET);
    expect(bin.log()).not.toContain(AMI_SECRET);
  });
});

describe("a scanning bot's failed sign-ins", () => {
  test("three floods of 50,000 failures from new addresses: the console keeps at most its limits, the totals exact", async () => {
    const N = 50_000;
    const rss: number[] = [bin.rss()];
    let sent = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < N; i++, sent++) {
        const address = `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`;
        ami.securityEvent({ type: "InvalidAccountID", account: `scan${sent % 997}`, address });
        if (i % 5_000 === 4_999) await Bun.sleep(20);
      }
      await until(
        async () => (await bin.call("GET", "/api/pbx/security")).json?.lastDay?.failures >= sent,
        "the failures to be counted",
        30_000,
      );
      rss.push(bin.rss());
    }
    const res = await bin.call("GET", "/api/pbx/security");
    expect(res.json.lastDay.failures).toBe(3 * N);
    expect(res.json.lastDay.sources.length).toBeLessThanOrEqual(100);
    expect(res.text.length).toBeLessThan(200_000);
    // What the console keeps stays within its limits whatever the bot sends (the totals stay exact).
    const tracked = res.json.tracked;
    expect(tracked.sources).toBe(tracked.maxSources);
    expect(tracked.accounts).toBeLessThanOrEqual(tracked.maxAccounts);
    const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
    const growth = rss.slice(1).map((r, i) => r - (rss[i] as number));
    console.log(
      `live: 3 × ${N.toLocaleString("en")} failed sign-ins from ${(3 * N).toLocaleString("en")} addresses: ` +
        `${tracked.sources.toLocaleString("en")} sources and ${tracked.accounts.toLocaleString("en")} accounts kept ` +
        `(limits ${tracked.maxSources.toLocaleString("en")} / ${tracked.maxAccounts.toLocaleString("en")}); ` +
        `RSS ${rss.map(mb).join(" → ")} MB (per flood +${growth.map(mb).join(", +")}), ` +
        `/api/pbx/security ${(res.text.length / 1024).toFixed(1)} KB`,
    );
    // RSS is a figure, not the proof (the garbage collector decides when it returns memory): only a
    // sanity bound, far below what 150,000 kept sources would take.
    expect((rss[3] as number) - (rss[0] as number)).toBeLessThan(512 * 1024 * 1024);
  }, 120_000);
});

describe("the call history's filters", () => {
  test("injected text is matched literally and the call records are never written", async () => {
    const at = localDateTime(new Date(Date.now() - 60 * 60 * 1000));
    await pbx.cdr.insert([
      cdrRow({ calldate: at, src: "1001", dst: "1002", uniqueid: "1.1", linkedid: "1.1", disposition: "ANSWERED" }),
      cdrRow({ calldate: at, src: "1002", dst: "1001", uniqueid: "1.2", linkedid: "1.2", disposition: "BUSY" }),
    ]);
    const before = await pbx.cdr.checksum();
    const attacks = [
      "' OR 1=1 -- ",
      "%",
      "_",
      "1001' UNION SELECT user,password,3,4 FROM mysql.user -- ",
      "\\",
      "'; DELETE FROM cdr; -- ",
      "1001%' OR '%'='",
    ];
    let rows = 0;
    for (const q of attacks) {
      const res = await bin.call("GET", `/api/cdr?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      rows += res.json.items.length;
      const csv = await bin.call("GET", `/api/cdr/export.csv?q=${encodeURIComponent(q)}`);
      expect(csv.status).toBe(200);
      expect(csv.text.trim().split("\n")).toHaveLength(1); // the header only
    }
    expect(rows).toBe(0);
    // A plain search finds the real call, so the filter is live.
    expect((await bin.call("GET", "/api/cdr?q=1001")).json.items.length).toBe(2);
    for (const bad of ["cursor=%27%20OR%201%3D1", "from=yesterday", "limit=100000", "disposition=ANSWERED%27--"]) {
      expect((await bin.call("GET", `/api/cdr?${bad}`)).status).toBe(400);
    }
    expect(await pbx.cdr.checksum()).toBe(before);
    console.log(`live: ${attacks.length * 2} injected call-history searches, 0 rows matched, cdr checksum unchanged`);
  });
});

/**
 * Deploy, end to end, on the real FreePBX 17 and Asterisk 22: objects made through the console's API go
 * out through plan → apply with a real `fwconsole reload`, and softphones prove them with real calls.
 */
import { describe, expect, test } from "bun:test";
import { RELOAD_RACED_ITEM, RELOAD_WAITING_ITEM } from "../../src/server/pbx/host/reload";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, holdReloadLock, sh, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile();

describe("extensions deployed by the console", () => {
  const ids: Record<string, number> = {};

  test("Test Connection over SSH reaches the real FreePBX and names its version", async () => {
    const res = await pbx.call("POST", "/api/credentials/test", { type: "ssh" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      success: true,
      message: expect.stringMatching(/^Connected to 127\.0\.0\.1: FW Console - FreePBX Utility 17\.\d+\.\d+/),
    });
    expect((await pbx.call("GET", "/api/credentials/connection-status")).json.ssh).toEqual({
      configured: true,
      connected: true,
    });
  });

  test("go out through plan and apply with a real reload, and Asterisk lists their endpoints", async () => {
    for (const [ext, name, voicemail] of [
      ["2101", "Alice Admin", true],
      ["2102", "Bob Builder", false],
    ] as const) {
      const made = await pbx.create("/api/extensions", { extension: ext, name, voicemail });
      ids[ext] = made.id;
    }
    const plan = await pbx.plan("extensions");
    expect(plan.items.filter((i) => i.action === "create").map((i) => i.id)).toEqual(
      expect.arrayContaining(["extension:2101", "extension:2102"]),
    );
    await pbx.deploy("extensions");
    const endpoints = await cli("pjsip show endpoints");
    expect(endpoints).toContain("2101/2101");
    expect(endpoints).toContain("2102/2102");
    expect((await sql("asterisk", "SELECT value FROM admin WHERE variable = 'need_reload'"))[0]?.[0]).toBe("false");
  }, 300_000);

  test("softphones register with the secrets the console issued, and a call rings and is answered", async () => {
    const a = await phone({ user: "2101", secret: await pbx.sipSecret(ids["2101"] as number) });
    const b = await phone({ user: "2102", secret: await pbx.sipSecret(ids["2102"] as number) });
    await until("both contacts in Asterisk", async () => {
      const contacts = await cli("pjsip show contacts");
      return contacts.includes("2101/sip:") && contacts.includes("2102/sip:") ? true : undefined;
    });
    const before = a.events.length;
    await a.dial("2102");
    await b.waitFor("CALL_INCOMING");
    await a.waitFor("CALL_RINGING", { since: before });
    await b.accept();
    await a.waitFor("CALL_ESTABLISHED", { since: before });
    await b.waitFor("CALL_ESTABLISHED");
    await a.hangup();
    await b.waitFor("CALL_CLOSED");
    await Promise.all([a.stop(), b.stop()]);
  }, 120_000);

  test("AstDB holds what the dialplan reads: the device's dial string, and the user's hint carries its device", async () => {
    expect((await cli("database get DEVICE/2101 dial")).trim()).toBe("Value: PJSIP/2101");
    expect((await cli("database get AMPUSER/2101 device")).trim()).toBe("Value: 2101");
    expect((await cli("database get AMPUSER/2101 cidname")).trim()).toBe("Value: Alice Admin");
    // Core's default limit on simultaneous outbound calls (Advanced Settings), as FreePBX gives a new extension.
    const [[limit]] = (await sql(
      "asterisk",
      "SELECT value FROM freepbx_settings WHERE keyword = 'CONCURRENCYLIMITDEFAULT'",
    )) as [[string]];
    expect(limit).toBe("3");
    expect((await cli("database get AMPUSER/2101 concurrency_limit")).trim()).toBe(`Value: ${limit}`);
    expect((await cli("database get AMPUSER/2101 hint")).trim()).toMatch(/^Value: PJSIP\/2101(&|,|$)/);
    expect(await cli("core show hint 2101")).toContain("PJSIP/2101");
  }, 60_000);

  test("an edit reaches Asterisk; the review and the apply log in once each, and both sessions end", async () => {
    const res = await pbx.call("PATCH", `/api/extensions/${ids["2102"]}`, { name: "Bob Renamed" });
    expect(res.status, res.text).toBe(200);
    const before = pbx.ssh.sessions();
    const plan = await pbx.plan("extensions");
    expect(plan.items.find((i) => i.id === "extension:2102")?.action).toBe("update");
    await pbx.deploy("extensions");
    // deploy() reviews once more, then applies: the apply's job writes in the session that checked the plan.
    const ended = await until("the sessions to end", () => {
      const now = pbx.ssh.sessions();
      return now.ended - before.ended === now.logins - before.logins ? now : undefined;
    });
    expect(ended.logins - before.logins).toBe(3);
    expect((await cli("database get AMPUSER/2102 cidname")).trim()).toBe("Value: Bob Renamed");
    expect(await sql("asterisk", "SELECT name FROM users WHERE extension = '2102'")).toEqual([["Bob Renamed"]]);
    expect(await cli("pjsip show endpoint 2102")).toContain("Bob Renamed");
  }, 300_000);

  /** Waits until a running job says it waits for FreePBX's lock. */
  const waitingForLock = (jobId: number, item = RELOAD_WAITING_ITEM) =>
    until(
      `the job to say "${item}"`,
      async () => {
        const job = (await pbx.call("GET", `/api/jobs/${jobId}`)).json;
        expect(job.state).toBe("running");
        return job.current === item ? true : undefined;
      },
      120_000,
    );

  test("a reload that meets FreePBX's own lock waits for it, then reaches Asterisk", async () => {
    const lock = await holdReloadLock();
    try {
      const res = await pbx.call("PATCH", `/api/extensions/${ids["2102"]}`, { name: "Bob Waited" });
      expect(res.status, res.text).toBe(200);
      const jobId = await pbx.startDeploy("extensions");
      await waitingForLock(jobId);
      // Still waiting while the lock is held: nothing reached Asterisk yet.
      expect((await cli("database get AMPUSER/2102 cidname")).trim()).toBe("Value: Bob Waited");
      expect(await cli("pjsip show endpoint 2102")).not.toContain("Bob Waited");
      await lock.release();
      const job = await pbx.finished(jobId);
      expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");
      expect(job.summary.reload.output).toMatch(/another fwconsole held FreePBX's lock; \d+ tries over \d+ s/);
      expect(job.summary.reload.output).toContain("Reload Complete");
      expect(await cli("pjsip show endpoint 2102")).toContain("Bob Waited");
    } finally {
      await lock.release();
    }
  }, 300_000);

  test("a roll back's reload waits for FreePBX's lock too, then Asterisk has the rows as they were", async () => {
    const history = (await pbx.call("GET", "/api/deploy/history")).json;
    const last = (history.items ?? history)[0];
    expect(last.backup?.objects).toContain("extension 2102");
    const lock = await holdReloadLock();
    try {
      const rb = await pbx.call("POST", `/api/deploy/history/${last.backup.id}/rollback`, {});
      expect(rb.status, rb.text).toBe(202);
      await waitingForLock(rb.json.jobId);
      expect(await sql("asterisk", "SELECT name FROM users WHERE extension = '2102'")).toEqual([["Bob Renamed"]]);
      expect(await cli("pjsip show endpoint 2102")).toContain("Bob Waited");
      await lock.release();
      const job = await pbx.finished(rb.json.jobId);
      expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");
      expect(await cli("pjsip show endpoint 2102")).toContain("Bob Renamed");
    } finally {
      await lock.release();
    }
  }, 300_000);

  test("a reload whose keyring check meets another gpg's temporary file tries again, then reaches Asterisk", async () => {
    // FreePBX's reload stats every file it lists in the keyring directory; a gpg replacing pubring.kbx removes
    // its pubring.kbx.tmp in between. A link to nowhere is that file, listed but gone, for as long as it stays.
    const tmp = "/home/asterisk/.gnupg/pubring.kbx.tmp";
    await sh(["ln", "-sfn", "/nonexistent/pubring.kbx.tmp", tmp]);
    try {
      const res = await pbx.call("PATCH", `/api/extensions/${ids["2102"]}`, { name: "Bob Raced" });
      expect(res.status, res.text).toBe(200);
      const jobId = await pbx.startDeploy("extensions");
      await waitingForLock(jobId, RELOAD_RACED_ITEM);
      expect(await cli("pjsip show endpoint 2102")).not.toContain("Bob Raced");
      await sh(["rm", "-f", tmp]);
      const job = await pbx.finished(jobId);
      expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");
      expect(job.summary.reload.output).toMatch(
        /FreePBX's keyring changed while the reload checked it; \d+ tries over \d+ s/,
      );
      expect(job.summary.reload.output).toContain("Reload Complete");
      expect(await cli("pjsip show endpoint 2102")).toContain("Bob Raced");
    } finally {
      await sh(["rm", "-f", tmp]);
    }
  }, 300_000);

  test("a reload FreePBX refuses fails the deployment with FreePBX's own reason; the rows stay written", async () => {
    // FreePBX cannot write its dialplan file (read-only for its owner, the asterisk user): its reload stops
    // with Symfony's error block.
    const file = "/etc/asterisk/extensions_additional.conf";
    await sh(["chmod", "0444", file]);
    try {
      const res = await pbx.call("PATCH", `/api/extensions/${ids["2102"]}`, { name: "Bob Refused" });
      expect(res.status, res.text).toBe(200);
      const job = await pbx.finished(await pbx.startDeploy("extensions"));
      expect(job.state, JSON.stringify(job.summary)).toBe("failed");
      const reason = `file_put_contents(${file}): Failed to open stream: Permission denied`;
      expect(job.summary.reload).toMatchObject({ ok: false, exitCode: 2, reason });
      expect(job.summary.results.find((r: { name: string }) => r.name === "2102")?.message).toBe(
        `Saved in the FreePBX database, but fwconsole reload failed (exit 2): ${reason}`,
      );
      expect(await sql("asterisk", "SELECT name FROM users WHERE extension = '2102'")).toEqual([["Bob Refused"]]);
      expect(await cli("pjsip show endpoint 2102")).not.toContain("Bob Refused");
      // The console says FreePBX still needs its reload.
      expect((await pbx.call("GET", "/api/deploy/status")).json).toMatchObject({ needReload: true });
    } finally {
      await sh(["chmod", "0644", file]);
    }
  }, 300_000);

  test("a deleted extension is gone from Asterisk and no longer registers", async () => {
    const secret = await pbx.sipSecret(ids["2101"] as number);
    const res = await pbx.call("DELETE", `/api/extensions/${ids["2101"]}`);
    expect(res.status, res.text).toBeLessThan(300);
    const plan = await pbx.plan("extensions");
    expect(plan.items.find((i) => i.id === "extension:2101")?.action).toBe("delete");
    await pbx.deploy("extensions");
    expect(await cli("pjsip show endpoints")).not.toContain("2101/2101");
    expect(await cli("database show AMPUSER/2101")).toContain("0 results found");
    expect(await sql("asterisk", "SELECT COUNT(*) FROM sip WHERE id = '2101'")).toEqual([["0"]]);
    const ghost = await phone({ user: "2101", secret, waitRegistered: false });
    expect(await ghost.registration()).toBe("failed");
  }, 300_000);
});

describe("a trunk, routes and a page group deployed by the console", () => {
  const ids: Record<string, number> = {};
  let provider: Softphone;
  let caller: Softphone;
  let callee: Softphone;
  const DID = "4445550100";

  test("deploy: trunk to a provider, outbound and inbound routes, a page group, voicemail", async () => {
    // The provider answers at its own loopback address, as a real one has its own: the trunk is matched by it.
    // baresip answers only calls to its account's user: the provider's user is the number dialled out.
    provider = await phone({ user: "5551234", bindAddress: "127.0.0.2", autoAnswer: true });
    const trunk = await pbx.create("/api/trunks", {
      name: "provider",
      type: "sip",
      host: "127.0.0.2",
      port: provider.sipPort,
      authMode: "ip",
      providerAddresses: ["127.0.0.2"],
    });
    for (const [ext, name] of [
      ["2201", "Carol Caller"],
      ["2202", "Dave Desk"],
      ["2203", "Erin Echo"],
    ] as const)
      ids[ext] = (await pbx.create("/api/extensions", { extension: ext, name, voicemail: ext === "2202" })).id;
    await pbx.create("/api/outbound-routes", { name: "to-provider", dialPatterns: ["5551XXX"], trunkId: trunk.id });
    await pbx.create("/api/inbound-routes", {
      description: "Main number",
      didNumber: DID,
      destination: "2202",
      destinationType: "extension",
    });
    await pbx.create("/api/ptt-groups", { name: "Floor", extension: "7201", members: ["2202", "2203"] });
    const job = await pbx.deploy("all");
    await pbx.deploy("ptt-groups");
    expect(await cli("pjsip show endpoint provider")).toContain("Endpoint:  provider");
    // An IP-authenticated trunk does not register: its status is FreePBX's own (`fwconsole trunks --list`).
    const listed = (await pbx.call("GET", "/api/trunks")).json as { name: string; status: string }[];
    expect(listed.find((t) => t.name === "provider")?.status).toBe("deployed");
    expect(await cli("voicemail show users for default")).toMatch(/default\s+2202\s+Dave Desk/);

    // The new mailbox's PIN is random, written to FreePBX's voicemail.conf, and shown once from the results.
    const line = (await Bun.file("/etc/asterisk/voicemail.conf").text()).split("\n").find((l) => /^2202\s*=/.test(l));
    // FreePBX's reload rewrites the file from its Voicemail module (`2202=…`); the console wrote `2202 => …`.
    const pin = line?.match(/^2202\s*=>?\s*(\d+),Dave Desk,/)?.[1];
    expect(pin).toMatch(/^\d{6}$/);
    expect(pin).not.toContain("2202");
    const item = job.summary.extensions.results.find((r: { name: string }) => r.name === "2202");
    const handle = item?.voicemailPin?.handle;
    expect(handle).toBeString();
    expect(JSON.stringify(job)).not.toContain(pin as string);
    const shown = await pbx.call("POST", "/api/deploy/voicemail-pins", { handles: [handle] });
    expect(shown.status, shown.text).toBe(200);
    expect(shown.json.pins).toEqual([{ handle, extension: "2202", context: "default", pin }]);
    expect((await pbx.call("POST", "/api/deploy/voicemail-pins", { handles: [handle] })).status).toBe(410);
  }, 300_000);

  test("an outbound call leaves through the trunk to the provider", async () => {
    caller = await phone({ user: "2201", secret: await pbx.sipSecret(ids["2201"] as number) });
    const before = provider.events.length;
    await caller.dial("5551234");
    const incoming = await provider.waitFor("CALL_ESTABLISHED", { since: before });
    expect(String(incoming.param ?? incoming.peeruri)).toContain("127.0.0.1");
    await caller.waitFor("CALL_ESTABLISHED");
    await caller.hangup();
    await provider.waitFor("CALL_CLOSED", { since: before });
  }, 120_000);

  test("an inbound call to the DID reaches its extension", async () => {
    callee = await phone({ user: "2202", secret: await pbx.sipSecret(ids["2202"] as number) });
    const before = callee.events.length;
    const from = provider.events.length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    await callee.waitFor("CALL_INCOMING", { since: before });
    await callee.accept();
    await provider.waitFor("CALL_ESTABLISHED", { since: from });
    await callee.hangup();
    await provider.waitFor("CALL_CLOSED", { since: from });
  }, 120_000);

  test("a page reaches every member at once, and ends for all when the pager hangs up", async () => {
    // Members answer as a paging speaker does (baresip 1.0 does not read the page's auto-answer headers,
    // so the headers are checked on Asterisk's side: each member leg is dialled with them).
    await callee.stop();
    const members = [
      await phone({ user: "2202", secret: await pbx.sipSecret(ids["2202"] as number), autoAnswer: true }),
      await phone({ user: "2203", secret: await pbx.sipSecret(ids["2203"] as number), autoAnswer: true }),
    ];
    const from = caller.events.length;
    await caller.dial("7201");
    await Promise.all(members.map((m) => m.waitFor("CALL_ESTABLISHED")));
    await caller.waitFor("CALL_ESTABLISHED", { since: from });
    const channels = (await cli("core show channels concise")).split("\n");
    expect(channels.find((l) => l.startsWith("PJSIP/2201-"))).toContain("!app-pagegroups!7201!");
    for (const m of ["2202", "2203"])
      expect(channels.find((l) => l.includes(`!PAGE${m}!`) && l.includes("!Dial!"))).toContain("answer-after=0");
    await caller.hangup();
    await Promise.all(members.map((m) => m.waitFor("CALL_CLOSED")));
  }, 120_000);
});

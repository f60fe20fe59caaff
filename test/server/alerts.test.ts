// Alert rules and the engine (ADR 0063). The engine is driven pass by pass with an injected clock and injected
// conditions: it holds a condition for the rule's seconds, fires once, repeats on the interval, resolves with a
// resolved message, survives a restart without firing again, and folds an alert storm into a summary per channel.
// Each kind's evaluator is fed real inputs: the live monitor over the fake AMI, this host's metrics from a /proc
// tree, failed sign-ins through the API into the audit trail, backup and test-call rows, a real certificate.
// Then the API: validation with field messages, 409 on a taken name, channels that must exist, roles, the
// events and the audit of every rule change, and the history's filters and cursor.
import { afterAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alertChannels, backupTargets, backupUploads, testCallResults, testCalls } from "../../src/db/schema";
import { recordAudit, SYSTEM_ACTOR } from "../../src/server/accounts/audit";
import {
  type AlertCondition,
  type AlertSources,
  evaluateRule,
  newReadingCache,
  Readings,
} from "../../src/server/alerts/conditions";
import { AlertEngine, type DeliverFn } from "../../src/server/alerts/engine";
import { listAlertEvents, pruneAlertHistory } from "../../src/server/alerts/history";
import type { AlertMessage } from "../../src/server/alerts/message";
import { createAlertRule } from "../../src/server/alerts/rules";
import { HostMetricsReader } from "../../src/server/integrations/host-metrics";
import { type AlertEvent, type AlertRule, type AlertRuleInput, alertRuleSchema } from "../../src/shared/alerts";
import type { AuditPage } from "../../src/shared/audit";
import type { WsEvent } from "../../src/shared/ws-events";
import { type FakeAmi, startFakeAmi } from "../fakes/ami";
import { ADMIN, signedInServer } from "../helpers/server";

setDefaultTimeout(30_000);

const AMI_SECRET = "alerts-ami-secret";
const ami: FakeAmi = await startFakeAmi({ secret: AMI_SECRET });
// The PBX's endpoints, there when the console logs in: 2599 is the PBX's own, not the console's.
for (const ext of ["2501", "2502", "2599"]) ami.addEndpoint(ext, { kind: "extension" });
ami.addEndpoint("carrier", { kind: "trunk" });
ami.setTrunkRegistration("carrier", "Registered");
const dir = mkdtempSync(join(tmpdir(), "pbx-alerts-"));

const s = signedInServer({
  env: {
    AMI_HOST: ami.host,
    AMI_PORT: String(ami.port),
    AMI_USERNAME: "admin",
    AMI_SECRET,
    // Nothing listens on port 9: the call records database does not answer.
    CDR_DATABASE_URL: "mysql://cdr:cdr-password@127.0.0.1:9/asteriskcdrdb",
  },
  clean: [
    "alert_deliveries",
    "alert_events",
    "alert_rules",
    "alert_channels",
    "test_call_results",
    "test_calls",
    "backup_uploads",
    "backup_targets",
    "extensions",
  ],
});

afterAll(async () => {
  await ami?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let published: WsEvent[] = [];
beforeEach(async () => {
  // The app's own engine stays out of the way: these tests drive engines of their own over the same database.
  await s.app.alerts.stop();
  published = [];
  const hub = s.app.events as { publish: (e: WsEvent) => void; __wrapped?: boolean };
  if (hub.__wrapped) return;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    published.push(event);
    send(event);
  };
  hub.__wrapped = true;
});

const until = async (what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
};

/* ───────────────────────────── the engine, pass by pass ───────────────────────────── */

const T0 = Date.parse("2026-03-02T10:00:00Z");

/** A channel row (the channels' own module makes them through their API; the engine only needs the row). */
function channel(name: string): number {
  return s.db
    .insert(alertChannels)
    .values({ name, kind: "webhook", settings: { url: "https://example.com/hook" }, updatedAt: new Date() })
    .returning()
    .get().id;
}

interface Rig {
  engine: AlertEngine;
  sent: { channelId: number; message: AlertMessage }[];
  /** The conditions each rule's evaluation answers (by rule name); null: not known now. */
  holds: Map<string, AlertCondition[] | null>;
  at: (ms: number) => Promise<void>;
  clock: { now: number };
}

function rig(opts: { deliver?: DeliverFn; perChannelPerMinute?: number; deliveryTimeoutMs?: number } = {}): Rig {
  const clock = { now: T0 };
  const sent: Rig["sent"] = [];
  const holds = new Map<string, AlertCondition[] | null>();
  const deliver: DeliverFn =
    opts.deliver ??
    (async (channelId, message) => {
      sent.push({ channelId, message });
      return { ok: true };
    });
  const engine = new AlertEngine(
    { ...s.app, now: () => clock.now },
    {
      deliver,
      evaluate: (rule) => (holds.has(rule.name) ? (holds.get(rule.name) ?? null) : []),
      perChannelPerMinute: opts.perChannelPerMinute,
      deliveryTimeoutMs: opts.deliveryTimeoutMs,
    },
  );
  return {
    engine,
    sent,
    holds,
    clock,
    async at(ms: number) {
      clock.now = T0 + ms;
      await engine.tick();
      await engine.idle();
    },
  };
}

const rule = (input: Record<string, unknown>) =>
  createAlertRule({ ...s.app, now: () => T0 }, alertRuleSchema.parse({ name: "Rule", ...input }) as AlertRuleInput);
const events = () => listAlertEvents(s.app, { limit: 200 }).items;
const what = (r: Rig) => r.sent.map((x) => x.message.what);

describe("the engine", () => {
  test("holds the condition for the rule's seconds, fires once, repeats on the interval, resolves with a message", async () => {
    const hook = channel("Ops hook");
    rule({
      name: "Carrier down",
      kind: "trunk-unregistered",
      params: { seconds: 30 },
      channelIds: [hook],
      repeatMinutes: 10,
    });
    const r = rig();
    r.holds.set("Carrier down", [{ subject: "trunk:carrier", message: "Trunk carrier is rejected" }]);

    await r.at(0);
    await r.at(29_000);
    expect(r.sent).toEqual([]);
    expect(events()).toEqual([]);

    await r.at(30_000);
    expect(what(r)).toEqual(["firing"]);
    const fired = r.sent[0]?.message as AlertMessage;
    expect(fired).toMatchObject({
      eventId: expect.any(Number),
      ruleName: "Carrier down",
      kind: "trunk-unregistered",
      subject: "trunk:carrier",
      title: "Trunk carrier is rejected (for 30 s)",
      startedAt: T0,
      at: T0 + 30_000,
    });
    expect(r.sent[0]?.channelId).toBe(hook);
    const [ev] = events();
    expect(ev).toMatchObject({ state: "firing", subject: "trunk:carrier", startedAt: new Date(T0).toISOString() });

    // Still there: nothing more until the repeat is due.
    await r.at(60_000);
    await r.at(30_000 + 9 * 60_000);
    expect(what(r)).toEqual(["firing"]);
    await r.at(30_000 + 10 * 60_000);
    expect(what(r)).toEqual(["firing", "repeat"]);
    expect(r.sent[1]?.message.title).toBe("Still: Trunk carrier is rejected (for 10 min)");
    await r.at(30_000 + 15 * 60_000);
    expect(what(r)).toEqual(["firing", "repeat"]);
    await r.at(30_000 + 20 * 60_000);
    expect(what(r)).toEqual(["firing", "repeat", "repeat"]);

    // Over: resolved, once.
    r.holds.set("Carrier down", []);
    await r.at(30_000 + 21 * 60_000);
    await r.at(30_000 + 22 * 60_000);
    expect(what(r)).toEqual(["firing", "repeat", "repeat", "resolved"]);
    expect(r.sent[3]?.message.title).toBe("Resolved: Trunk carrier is rejected (lasted 21 min)");
    expect(events()).toMatchObject([
      {
        id: ev?.id,
        state: "resolved",
        notifications: 4,
        resolvedAt: new Date(T0 + 30_000 + 21 * 60_000).toISOString(),
      },
    ]);
  });

  test("a condition that ends before its hold never fires; one that comes back counts again", async () => {
    rule({
      name: "Phone",
      kind: "extension-offline",
      params: { seconds: 60, extension: "2501" },
      channelIds: [channel("c")],
    });
    const r = rig();
    const off = [{ subject: "extension:2501", message: "Extension 2501 has no registered phone" }];
    r.holds.set("Phone", off);
    await r.at(0);
    await r.at(50_000);
    r.holds.set("Phone", []);
    await r.at(55_000);
    r.holds.set("Phone", off);
    await r.at(60_000);
    await r.at(110_000);
    expect(r.sent).toEqual([]);
    await r.at(120_000);
    expect(what(r)).toEqual(["firing"]);
    expect(events()[0]?.startedAt).toBe(new Date(T0 + 60_000).toISOString());
  });

  test("a source's own since-time counts toward the hold (AMI down for a while fires at once)", async () => {
    rule({ name: "AMI", kind: "ami-unreachable", params: { seconds: 60 }, channelIds: [channel("c")] });
    const r = rig();
    r.holds.set("AMI", [{ subject: "ami", message: "The manager interface is not connected", since: T0 - 120_000 }]);
    await r.at(0);
    expect(r.sent.map((x) => x.message.title)).toEqual(["The manager interface is not connected (for 2 min)"]);
  });

  test("restart-safe: a new engine neither fires again nor loses the firing alert; not knowing changes nothing", async () => {
    const c = channel("c");
    rule({ name: "Disk", kind: "disk-usage", params: { percent: 80 }, channelIds: [c], repeatMinutes: 30 });
    const first = rig();
    const full = [{ subject: "disk", message: "The disk is 91% full" }];
    first.holds.set("Disk", full);
    await first.at(0);
    expect(what(first)).toEqual(["firing"]);
    await first.engine.stop();

    // The console restarts: a new engine over the same database.
    const second = rig();
    second.holds.set("Disk", null);
    await second.at(60_000);
    second.holds.set("Disk", full);
    await second.at(120_000);
    await second.at(29 * 60_000);
    expect(second.sent).toEqual([]);
    expect(events()).toMatchObject([{ state: "firing" }]);
    // The repeat counts from the last message, which the first engine sent.
    await second.at(30 * 60_000);
    expect(what(second)).toEqual(["repeat"]);
    second.holds.set("Disk", []);
    await second.at(31 * 60_000);
    expect(what(second)).toEqual(["repeat", "resolved"]);
    expect(events()).toHaveLength(1);
  });

  test("a rule turned off ends its alerts with a message; a deleted rule's end without one", async () => {
    const c = channel("c");
    const off = rule({ name: "Off", kind: "memory-usage", channelIds: [c] });
    const gone = rule({ name: "Gone", kind: "cdr-unreachable", channelIds: [c] });
    const r = rig();
    r.holds.set("Off", [{ subject: "memory", message: "Memory is 97% used" }]);
    r.holds.set("Gone", [
      { subject: "cdr", message: "The call records database does not answer", since: T0 - 600_000 },
    ]);
    await r.at(0);
    await r.at(300_000);
    expect(what(r)).toEqual(["firing", "firing"]);
    const patched = await s.call("PATCH", `/api/alerts/rules/${off.id}`, { enabled: false });
    expect(patched.status, patched.text).toBe(200);
    const deleted = await s.call("DELETE", `/api/alerts/rules/${gone.id}`);
    expect(deleted.status).toBe(204);
    await r.at(310_000);
    expect(r.sent.slice(2).map((x) => x.message.title)).toEqual([
      "Resolved: Memory is 97% used (lasted 5 min; the rule was turned off)",
    ]);
    expect(events().map((e) => [e.ruleName, e.state, e.ruleId])).toEqual([
      ["Off", "resolved", off.id],
      ["Gone", "resolved", null],
    ]);
  });

  test("an alert storm: at most N messages a channel a minute, the rest in one summary when there is room", async () => {
    const c = channel("Storm");
    const quiet = channel("Quiet");
    rule({ name: "Phones", kind: "extension-offline", params: { seconds: 0 }, channelIds: [c] });
    rule({ name: "Carrier", kind: "trunk-unregistered", params: { seconds: 0 }, channelIds: [quiet] });
    const r = rig({ perChannelPerMinute: 5 });
    r.holds.set(
      "Phones",
      Array.from({ length: 12 }, (_, i) => ({
        subject: `extension:${2600 + i}`,
        message: `Extension ${2600 + i} is offline`,
      })),
    );
    r.holds.set("Carrier", [{ subject: "trunk:carrier", message: "Trunk carrier is failed" }]);
    await r.at(0);
    const to = (id: number) => r.sent.filter((x) => x.channelId === id).map((x) => x.message);
    expect(to(c)).toHaveLength(5);
    // Another channel has its own share.
    expect(to(quiet).map((m) => m.what)).toEqual(["firing"]);
    await r.at(30_000);
    expect(to(c)).toHaveLength(5);
    await r.at(60_000);
    const summary = to(c)[5] as AlertMessage;
    expect(to(c)).toHaveLength(6);
    expect(summary).toMatchObject({ eventId: null, kind: "summary", what: "firing", ruleName: "Phones" });
    expect(summary.title).toBe("7 alert messages held back by the rate limit (7 firing)");
    expect(summary.text.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(7);
    // Each alert the summary carried has its delivery in the history.
    const held = events().filter((e) => e.ruleName === "Phones" && e.deliveries.length > 0);
    expect(held).toHaveLength(7);
    expect(held[0]?.deliveries[0]).toMatchObject({ channelId: c, channelName: "Storm", what: "firing", ok: true });
    // All resolve at once: the channel had a message a moment ago, so four go and eight wait for the summary.
    r.holds.set("Phones", []);
    await r.at(61_000);
    expect(to(c)).toHaveLength(10);
    await r.at(121_000);
    expect(to(c)).toHaveLength(11);
    expect(to(c)[10]?.title).toBe("8 alert messages held back by the rate limit (8 resolved)");
  });

  test("a delivery that never answers holds up no pass and is given up at its deadline", async () => {
    const c = channel("Slow");
    rule({ name: "Slow", kind: "disk-usage", channelIds: [c] });
    let signal: AbortSignal | null = null;
    const r = rig({
      deliveryTimeoutMs: 100,
      deliver: (_id, _m, s) => {
        signal = s;
        return new Promise(() => {});
      },
    });
    r.holds.set("Slow", [{ subject: "disk", message: "The disk is 99% full" }]);
    const started = performance.now();
    r.clock.now = T0;
    await r.engine.tick();
    expect(performance.now() - started).toBeLessThan(80);
    await r.engine.idle();
    expect((signal as AbortSignal | null)?.aborted).toBe(true);
    expect(events()).toMatchObject([{ state: "firing" }]);
  });

  test("the history keeps resolved alerts for the retention and prunes older ones", async () => {
    rule({ name: "Old", kind: "disk-usage", channelIds: [] });
    const r = rig();
    r.holds.set("Old", [{ subject: "disk", message: "full" }]);
    await r.at(0);
    r.holds.set("Old", []);
    await r.at(1_000);
    expect(pruneAlertHistory({ db: s.db, now: () => T0 + 89 * 86_400_000 })).toBe(0);
    expect(pruneAlertHistory({ db: s.db, now: () => T0 + 91 * 86_400_000 })).toBe(1);
    expect(events()).toEqual([]);
  });
});

/* ───────────────────────────── each kind from real inputs ───────────────────────────── */

/** A /proc tree for the host metrics reader: memory `usedPct` % used. */
function procTree(usedPct: number): string {
  const proc = mkdtempSync(join(dir, "proc-"));
  mkdirSync(join(proc, "net"));
  writeFileSync(join(proc, "stat"), "cpu  100 0 100 800 0 0 0 0 0 0\n");
  writeFileSync(
    join(proc, "net/dev"),
    "Inter-|   Receive\n face |bytes\n  eth0: 1000 0 0 0 0 0 0 0 2000 0 0 0 0 0 0 0\n",
  );
  const total = 8_000_000;
  writeFileSync(
    join(proc, "meminfo"),
    `MemTotal:       ${total} kB\nMemFree:         100000 kB\nMemAvailable:   ${Math.round(total * (1 - usedPct / 100))} kB\n`,
  );
  writeFileSync(join(proc, "uptime"), "12345.67 20000.00\n");
  return proc;
}

function sources(over: Partial<AlertSources> = {}): AlertSources {
  return { ...s.app, ...over };
}
const evaluate = async (input: Record<string, unknown>, over: Partial<AlertSources> = {}) =>
  evaluateRule(alertRuleSchema.parse({ name: "E", ...input }), new Readings(sources(over), newReadingCache()));

describe("each kind's evaluator", () => {
  test("extensions and trunks from the live monitor over the manager interface", async () => {
    ami.register("2501", { uri: "sip:2501@192.0.2.10:5060", viaAddr: "192.0.2.10:5060" });
    await until("AMI connected with 2501 registered", () =>
      Boolean(s.app.live.status().extensions.find((e) => e.extension === "2501")?.registered),
    );
    // The console's own extensions: 2599 is on the PBX but not the console's, 2503 is not on the PBX yet.
    for (const n of ["2501", "2502", "2503"]) await s.call("POST", "/api/extensions", { extension: n, name: `E ${n}` });

    expect(await evaluate({ kind: "extension-offline" })).toEqual([
      { subject: "extension:2502", message: "Extension 2502 has no registered phone" },
    ]);
    expect(await evaluate({ kind: "extension-offline", params: { extension: "2501" } })).toEqual([]);
    expect(await evaluate({ kind: "extension-offline", params: { extension: "2503" } })).toEqual([
      { subject: "extension:2503", message: "Extension 2503 is not on the PBX" },
    ]);
    expect(await evaluate({ kind: "trunk-unregistered" })).toEqual([]);

    ami.unregister("2501");
    ami.setTrunkRegistration("carrier", "Rejected");
    await until("2501 gone and the carrier rejected", () => {
      const st = s.app.live.status();
      return (
        st.extensions.find((e) => e.extension === "2501")?.registered === false &&
        st.trunks.find((t) => t.name === "carrier")?.registration === "rejected"
      );
    });
    expect((await evaluate({ kind: "extension-offline" }))?.map((c) => c.subject)).toEqual([
      "extension:2501",
      "extension:2502",
    ]);
    expect(await evaluate({ kind: "trunk-unregistered", params: { trunk: "carrier" } })).toEqual([
      { subject: "trunk:carrier", message: "Trunk carrier is rejected" },
    ]);
    expect(await evaluate({ kind: "ami-unreachable" })).toEqual([]);
  });

  test("failed SIP sign-ins from the manager's security events", async () => {
    await until("AMI connected", () => s.app.live.status().connected);
    const before = s.app.live.sipFailuresWithin(1);
    for (let i = 0; i < 25; i++)
      ami.securityEvent({ type: "InvalidPassword", account: "2501", address: "203.0.113.9:5060" });
    await until("25 failures counted", () => s.app.live.sipFailuresWithin(1) >= before + 25);
    const [attack] = (await evaluate({ kind: "sip-attack", params: { count: 20, minutes: 1 } })) ?? [];
    expect(attack?.subject).toBe("sip:failed-sign-ins");
    expect(attack?.message).toMatch(
      /^\d+ failed SIP sign-ins on the PBX in the last 1 min \(this hour most from 203\.0\.113\.9 ×\d+/,
    );
    expect(await evaluate({ kind: "sip-attack", params: { count: 100_000 } })).toEqual([]);
  });

  test("the manager interface unreachable, with the time it went away; not configured is not unreachable", async () => {
    await until("AMI connected", () => s.app.live.status().connected);
    await ami.stop();
    try {
      await until("AMI disconnected", () => !s.app.live.status().connected);
      const [down] = (await evaluate({ kind: "ami-unreachable" })) ?? [];
      expect(down?.subject).toBe("ami");
      expect(down?.message).toStartWith("The manager interface is not connected: ");
      expect(down?.since).toBe(Date.parse(s.app.live.status().since));
      // Registrations are not known while it is away: neither fired nor resolved.
      expect(await evaluate({ kind: "extension-offline" })).toBeNull();
      expect(await evaluate({ kind: "trunk-unregistered" })).toBeNull();
    } finally {
      await ami.restart();
    }
    await until("AMI back", () => s.app.live.status().connected);
    const none = s.app.live.status();
    expect(
      await evaluate(
        { kind: "ami-unreachable" },
        { live: { ...s.app.live, status: () => ({ ...none, connected: false, source: "none" }) } as never },
      ),
    ).toEqual([]);
  });

  test("the call records database that does not answer", async () => {
    const [cdr] = (await evaluate({ kind: "cdr-unreachable" })) ?? [];
    expect(cdr?.subject).toBe("cdr");
    expect(cdr?.message).toStartWith("The call records database does not answer: ");
    expect(cdr?.message).not.toContain("cdr-password");
  });

  test("disk and memory from this host's metrics", async () => {
    const hostMetrics = new HostMetricsReader(procTree(95));
    expect(await evaluate({ kind: "memory-usage", params: { percent: 90 } }, { hostMetrics })).toEqual([
      { subject: "memory", message: "Memory is 95% used (the rule's limit is 90%)" },
    ]);
    expect(await evaluate({ kind: "memory-usage", params: { percent: 96 } }, { hostMetrics })).toEqual([]);
    // The disk is the real root file system: over 1 % used, under 100 %.
    const [disk] = (await evaluate({ kind: "disk-usage", params: { percent: 1 } }, { hostMetrics })) ?? [];
    expect(disk?.message).toMatch(/^The disk is [\d.]+% full \(the rule's limit is 1%\)$/);
    expect(await evaluate({ kind: "disk-usage", params: { percent: 100 } }, { hostMetrics })).toEqual([]);
  });

  test("failed console sign-ins, made through the API, from the audit trail", async () => {
    const kept = s.cookie;
    try {
      for (let i = 0; i < 3; i++) {
        const res = await s.call(
          "POST",
          "/api/auth/login",
          { username: ADMIN.username, password: "wrong!" },
          { cookie: "" },
        );
        expect(res.status).toBe(401);
      }
    } finally {
      s.cookie = kept;
    }
    await until("the audit has the three", () => {
      const page = s.db.$client
        .query("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'auth.login' AND outcome = 'failed'")
        .get() as { n: number };
      return page.n >= 3;
    });
    const [signIns] = (await evaluate({ kind: "failed-sign-ins", params: { count: 3, minutes: 5 } })) ?? [];
    expect(signIns?.subject).toBe("sign-ins:console");
    expect(signIns?.message).toMatch(
      /^\d+ failed sign-ins to the console in the last 5 min \(from \S*127\.0\.0\.1 ×\d+\)$/,
    );
    expect(await evaluate({ kind: "failed-sign-ins", params: { count: 1000, minutes: 5 } })).toEqual([]);
  });

  test("backups: the scheduled console backup's outcome in the audit, and off-site copies that failed", async () => {
    const at = (ms: number) => ({ db: s.db, now: () => ms });
    const t = Date.now();
    recordAudit(at(t - 3 * 86_400_000), {
      actor: SYSTEM_ACTOR,
      action: "backup.scheduled",
      outcome: "ok",
      detail: "x",
    });
    recordAudit(at(t - 2 * 86_400_000), {
      actor: SYSTEM_ACTOR,
      action: "backup.scheduled",
      outcome: "failed",
      detail: "No space left on device",
    });
    recordAudit(at(t - 86_400_000), {
      actor: SYSTEM_ACTOR,
      action: "backup.scheduled",
      outcome: "failed",
      detail: "No space left on device",
    });
    const target = s.db
      .insert(backupTargets)
      .values({ name: "Bucket", kind: "s3", settings: {}, updatedAt: new Date() })
      .returning()
      .get();
    const upload = (source: "console" | "pbx", state: "ok" | "failed" | "running", ms: number, error?: string) =>
      s.db
        .insert(backupUploads)
        .values({
          targetId: target.id,
          source,
          name: `${source}-${ms}`,
          state,
          error,
          startedAt: new Date(ms),
          finishedAt: new Date(ms + 1000),
        })
        .run();
    upload("console", "ok", t - 5000);
    upload("console", "failed", t - 4000, "403 AccessDenied");
    upload("console", "running", t - 1000);
    upload("pbx", "failed", t - 3000, "timeout");
    upload("pbx", "ok", t - 2000);
    const found = await evaluate({ kind: "backup-failed" });
    expect(found).toEqual([
      {
        subject: "backup:console",
        message: "The scheduled console backup failed: No space left on device",
        since: t - 2 * 86_400_000,
      },
      {
        subject: `backup-target:${target.id}:console`,
        message: "The console backup copy to Bucket failed: 403 AccessDenied",
        since: t - 4000 + 1000,
      },
    ]);
    recordAudit(at(t), { actor: SYSTEM_ACTOR, action: "backup.scheduled", outcome: "ok", detail: "y" });
    upload("console", "ok", t);
    expect(await evaluate({ kind: "backup-failed" })).toEqual([]);
  });

  test("test calls whose latest run failed", async () => {
    const call = (name: string) =>
      s.db.insert(testCalls).values({ name, number: "*43", updatedAt: new Date() }).returning().get().id;
    const echo = call("Echo");
    const ivr = call("Main IVR");
    const result = (id: number, ok: boolean, at: number, error: string | null = null) =>
      s.db
        .insert(testCallResults)
        .values({ testCallId: id, at: new Date(at), ok, answered: ok, durationMs: 5000, error })
        .run();
    result(echo, false, 1000, "not answered in 10 s");
    result(echo, true, 2000);
    result(ivr, true, 1000);
    result(ivr, false, 2000, "no audio: 0 packets received");
    result(ivr, false, 3000, "no audio: 0 packets received");
    expect(await evaluate({ kind: "test-call-failed" })).toEqual([
      { subject: `test-call:${ivr}`, message: "Test call Main IVR failed: no audio: 0 packets received", since: 2000 },
    ]);
    expect(await evaluate({ kind: "test-call-failed", params: { testCallId: echo } })).toEqual([]);
  });

  test("the console's TLS certificate, read from TLS_CERT", async () => {
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    const made = Bun.spawnSync(
      [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "5",
        "-subj",
        "/CN=pbx.example.org",
      ],
      { stderr: "pipe" },
    );
    expect(made.exitCode, made.stderr.toString()).toBe(0);
    const config = { tls: { cert, key } };
    const [soon] = (await evaluate({ kind: "certificate-expiring", params: { days: 14 } }, { config })) ?? [];
    expect(soon?.message).toMatch(
      /^The console's TLS certificate for pbx\.example\.org expires on \d{4}-\d\d-\d\d \(in [56] days\)$/,
    );
    expect(await evaluate({ kind: "certificate-expiring", params: { days: 3 } }, { config })).toEqual([]);
    const later = { ...s.app, config, now: () => Date.now() + 10 * 86_400_000 };
    const [expired] =
      (await evaluateRule(
        alertRuleSchema.parse({ name: "E", kind: "certificate-expiring" }),
        new Readings(later, newReadingCache()),
      )) ?? [];
    expect(expired?.message).toMatch(/^The console's TLS certificate for pbx\.example\.org expired on /);
    expect(await evaluate({ kind: "certificate-expiring" }, { config: { tls: null } })).toEqual([]);
  });
});

/* ───────────────────────────── the API ───────────────────────────── */

describe("the rules API", () => {
  const alertEvents = () => published.filter((e) => e.type === "alerts-updated");

  test("creates with the kind's defaults, lists by name, edits and deletes, each published and audited", async () => {
    const c = channel("Ops");
    const made = await s.call("POST", "/api/alerts/rules", {
      name: " Carrier ",
      kind: "trunk-unregistered",
      channelIds: [c, c],
    });
    expect(made.status, made.text).toBe(201);
    const created = made.json as AlertRule;
    expect(created).toMatchObject({
      name: "Carrier",
      kind: "trunk-unregistered",
      params: { seconds: 120, trunk: null },
      channelIds: [c],
      repeatMinutes: 60,
      enabled: true,
      firing: 0,
    });
    await s.call("POST", "/api/alerts/rules", { name: "Attack", kind: "sip-attack", params: { count: 50 } });
    const list = (await s.call("GET", "/api/alerts/rules")).json as AlertRule[];
    expect(list.map((r) => [r.name, r.params] as [string, unknown])).toEqual([
      ["Attack", { count: 50, minutes: 1 }],
      ["Carrier", { seconds: 120, trunk: null }],
    ]);

    const patched = await s.call("PATCH", `/api/alerts/rules/${created.id}`, {
      params: { seconds: 30, trunk: "carrier" },
    });
    expect(patched.json).toMatchObject({ params: { seconds: 30, trunk: "carrier" }, channelIds: [c] });
    // A new kind without params starts from its own defaults.
    const rekinded = await s.call("PATCH", `/api/alerts/rules/${created.id}`, { kind: "disk-usage" });
    expect(rekinded.json).toMatchObject({ kind: "disk-usage", params: { percent: 90, seconds: 0 } });
    const put = await s.call("PUT", `/api/alerts/rules/${created.id}`, {
      name: "Disk",
      kind: "disk-usage",
      params: { percent: 85 },
    });
    expect(put.json).toMatchObject({ name: "Disk", params: { percent: 85, seconds: 0 }, channelIds: [] });
    expect((await s.call("DELETE", `/api/alerts/rules/${created.id}`)).status).toBe(204);
    expect(((await s.call("GET", "/api/alerts/rules")).json as AlertRule[]).map((r) => r.name)).toEqual(["Attack"]);
    expect(alertEvents().length).toBeGreaterThanOrEqual(6);

    // This test's six, newest first (earlier tests wrote rule changes too).
    const mine = async () =>
      ((await s.call("GET", "/api/audit?action=alert-rule.")).json as AuditPage).items.filter(
        (e) => e.objectId === String(created.id) || e.objectLabel === "Attack",
      );
    await until("the audit rows", async () => (await mine()).length >= 6);
    const items = await mine();
    expect(items.map((e) => e.action).reverse()).toEqual([
      "alert-rule.create",
      "alert-rule.create",
      "alert-rule.update",
      "alert-rule.update",
      "alert-rule.update",
      "alert-rule.delete",
    ]);
    const edit = items.find((e) => e.action === "alert-rule.update" && e.changes.some((x) => x.field === "name"));
    expect(edit?.changes).toEqual(expect.arrayContaining([{ field: "name", from: "Carrier", to: "Disk" }]));
  });

  test("bad input is a 400 with a message under each field, and changes nothing", async () => {
    const bad = async (body: unknown) => s.refused("alert_rules", () => s.call("POST", "/api/alerts/rules", body), 400);
    expect((await bad({ name: "", kind: "disk-usage" })).fields).toEqual({ name: "Name is required" });
    expect((await bad({ name: "X", kind: "lightning" })).fields?.kind).toStartWith("Choose what the rule watches");
    expect((await bad({ name: "X" })).fields?.kind).toStartWith("Choose what the rule watches");
    expect((await bad({ name: "X", kind: "disk-usage", params: { percent: 101 } })).fields).toEqual({
      "params.percent": "Percent must be at most 100",
    });
    expect(
      (await bad({ name: "X", kind: "extension-offline", params: { seconds: -1, extension: "abc" } })).fields,
    ).toEqual({
      "params.seconds": "Seconds must be at least 0",
      "params.extension": "Extension must be an extension number",
    });
    expect((await bad({ name: "X", kind: "sip-attack", params: { minutes: 61 } })).fields).toEqual({
      "params.minutes": "Minutes must be at most 60",
    });
    expect((await bad({ name: "X", kind: "disk-usage", repeatMinutes: 1.5 })).fields).toEqual({
      repeatMinutes: "Repeat must be a whole number",
    });
    expect((await bad({ name: "X", kind: "disk-usage", channelIds: [424242] })).fields).toEqual({
      channelIds: "No alert channel 424242: choose channels from the list",
    });
    expect((await bad({ name: "X", kind: "test-call-failed", params: { testCallId: 99 } })).fields).toEqual({
      "params.testCallId": "No test call 99: choose one from the list, or every test call",
    });
    const one = await s.call("POST", "/api/alerts/rules", { name: "Taken", kind: "backup-failed" });
    expect(one.status).toBe(201);
    const taken = await s.refused(
      "alert_rules",
      () => s.call("POST", "/api/alerts/rules", { name: "Taken", kind: "disk-usage" }),
      409,
    );
    expect(taken.fields).toEqual({ name: "An alert rule named Taken exists already" });
    const patch = await s.refused(
      "alert_rules",
      () => s.call("PATCH", `/api/alerts/rules/${one.json.id}`, { params: { unknownField: 1 }, name: "" }),
      400,
    );
    expect(patch.fields).toEqual({ name: "Name is required" });
    expect((await s.call("PATCH", "/api/alerts/rules/424242", { name: "Y" })).status).toBe(404);
  });

  test("rule writes are the administrators'; every role reads rules and history", async () => {
    const made = await s.call("POST", "/api/users", {
      username: "op",
      password: "operator password 1",
      role: "operator",
    });
    expect(made.status, made.text).toBe(201);
    const kept = s.cookie;
    const login = await s.call(
      "POST",
      "/api/auth/login",
      { username: "op", password: "operator password 1" },
      { cookie: "" },
    );
    expect(login.status).toBe(200);
    try {
      const refused = await s.refused(
        "alert_rules",
        () => s.call("POST", "/api/alerts/rules", { name: "Op", kind: "disk-usage" }),
        403,
      );
      expect(refused.message).toContain("operator");
      expect((await s.call("GET", "/api/alerts/rules")).status).toBe(200);
      expect((await s.call("GET", "/api/alerts/events?state=firing")).status).toBe(200);
    } finally {
      s.cookie = kept;
      await s.call("DELETE", `/api/users/${made.json.id}`);
    }
  });

  test("the history: newest first, ?state=firing, by rule and kind, a page at a time, with deliveries", async () => {
    const c = channel("Hook");
    const disk = rule({ name: "Disk", kind: "disk-usage", channelIds: [c] });
    rule({ name: "Memory", kind: "memory-usage", params: { seconds: 0 }, channelIds: [] });
    const r = rig();
    r.holds.set("Disk", [{ subject: "disk", message: "The disk is 95% full" }]);
    r.holds.set("Memory", [{ subject: "memory", message: "Memory is 99% used" }]);
    await r.at(0);
    r.holds.set("Memory", []);
    await r.at(1000);
    r.holds.set("Memory", [{ subject: "memory", message: "Memory is 98% used" }]);
    await r.at(2000);

    const get = async (q: string) => (await s.call("GET", `/api/alerts/events${q}`)).json;
    const all = await get("");
    expect(all.items.map((e: AlertEvent) => [e.ruleName, e.state])).toEqual([
      ["Memory", "firing"],
      ["Memory", "resolved"],
      ["Disk", "firing"],
    ]);
    expect(all.firing).toBe(2);
    expect((await get("?state=firing")).items).toHaveLength(2);
    expect((await get(`?ruleId=${disk.id}`)).items.map((e: AlertEvent) => e.subject)).toEqual(["disk"]);
    expect((await get("?kind=memory-usage&state=resolved")).items).toHaveLength(1);
    const first = await get("?limit=2");
    expect(first.items).toHaveLength(2);
    const second = await get(`?limit=2&cursor=${first.nextCursor}`);
    expect(second).toMatchObject({ nextCursor: null, items: [{ ruleName: "Disk" }] });
    const bad = await s.call("GET", "/api/alerts/events?state=burning&limit=0");
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toEqual({
      state: "State must be firing or resolved",
      limit: "The limit is at least 1",
    });
  });
});

/**
 * A deployment's `fwconsole reload` meeting FreePBX's reload lock (another fwconsole running: the signature
 * check a reload leaves behind, a cron job, another administrator's Apply Config), against the test PBX:
 * another process holds FreePBX's lock file, and FreePBX's own reload answers "Process is already running." (exit 255).
 */
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { PbxRemote } from "../../src/server/pbx/host/host";
import type { DeployResponse } from "../../src/shared/pbx";
import { applyPlan, consoleOnPbx, planOf } from "../pbx-host/console-on-pbx";
import { RELOAD_FAILURE } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);
const { pbx, s } = consoleOnPbx();

beforeEach(() => pbx.setReloadLocked(null));
afterEach(() => pbx.setReloadLocked(null));

const reloads = () => pbx.fwconsoleCalls().filter((c) => c.argv[0] === "reload");
const needReload = async () =>
  (await pbx.query("SELECT value FROM admin WHERE variable = 'need_reload'"))[0]?.value as string;

async function deployNewExtension() {
  const r = await s.call("POST", "/api/extensions", { extension: "2001", name: "Dora" });
  expect(r.status, r.text).toBe(201);
  return applyPlan(s, await planOf(s, "extensions"));
}

describe("a deployment's reload while another fwconsole holds FreePBX's lock", () => {
  test("waits about a second between tries and succeeds once the lock is free", async () => {
    pbx.setReloadLocked(2);
    const job = await deployNewExtension();
    expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
    const summary = job.summary as DeployResponse;
    expect(summary.reload).toMatchObject({ ok: true, exitCode: 0, reason: null });
    expect(summary.reload?.output).toContain("another fwconsole held FreePBX's lock; 3 tries");
    expect(summary.reload?.output).toContain("Reload Complete");
    expect(summary.results[0]?.status).toBe("success");
    const times = reloads().map((c) => Date.parse(c.time));
    expect(times.length).toBe(3);
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(900);
    expect(await needReload()).toBe("false");
  });

  test("a lock that is never freed fails the reload cleanly once the budget is spent; the rows stay written", async () => {
    const reload = PbxRemote.prototype.reload;
    const spy = spyOn(PbxRemote.prototype, "reload").mockImplementation(function (this: PbxRemote) {
      return reload.call(this, { waitMs: 2_500 });
    });
    pbx.setReloadLocked("always");
    const started = Date.now();
    try {
      const job = await deployNewExtension();
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(job.state).toBe("failed");
      const summary = job.summary as DeployResponse;
      expect(summary.reload).toMatchObject({ ok: false, exitCode: 255 });
      const reason = summary.reload?.reason as string;
      expect(reason).toMatch(/^FreePBX is busy: another fwconsole has held its lock for \d+ s$/);
      // At least the budget; more only by the last try's own time (a loaded host takes seconds per SSH command).
      expect(Number(reason.match(/(\d+) s$/)?.[1])).toBeGreaterThanOrEqual(2);
      expect(Number(reason.match(/(\d+) s$/)?.[1])).toBeLessThan(15);
      expect(summary.reload?.output).toContain("Process is already running.");
      expect(summary.results[0]?.status).toBe("failed");
      expect(summary.results[0]?.message).toBe(
        `Saved in the FreePBX database, but fwconsole reload failed (exit 255): ${reason}`,
      );
      // Tried again after about a second, and no try starts once the 2.5 s budget is spent.
      const times = reloads().map((c) => Date.parse(c.time));
      expect(times.length).toBeGreaterThanOrEqual(2);
      expect(times.length).toBeLessThanOrEqual(4);
      expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(900);
      expect((times.at(-1) as number) - (times[0] as number)).toBeLessThan(2_500 + 2_000);
      expect(await pbx.query("SELECT name FROM users WHERE extension = '2001'")).toEqual([{ name: "Dora" }]);
      expect(await needReload()).toBe("true");
    } finally {
      spy.mockRestore();
    }
  });

  test("a roll back's reload waits for the lock too", async () => {
    expect((await deployNewExtension()).state).toBe("succeeded");
    const [entry] = (await s.call("GET", "/api/deploy/history")).json;
    pbx.clearFwconsoleCalls();
    pbx.setReloadLocked(1);
    const r = await s.call("POST", `/api/deploy/history/${entry.backup.id}/rollback`, {});
    expect(r.status, r.text).toBe(202);
    await s.app.jobs.idle();
    const job = s.app.jobs.get(r.json.jobId);
    expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
    expect(reloads().length).toBe(2);
    expect(await pbx.query("SELECT name FROM users WHERE extension = '2001'")).toEqual([]);
  });

  test("another failure is not retried", async () => {
    pbx.setReloadFailure(true);
    const job = await deployNewExtension();
    expect(job.state).toBe("failed");
    expect((job.summary as DeployResponse).reload?.reason).toMatch(RELOAD_FAILURE);
    expect(reloads().length).toBe(1);
  });
});

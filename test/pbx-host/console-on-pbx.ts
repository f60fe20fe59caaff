/**
 * One test PBX for a test file and a fresh signed-in console over it for each test (hooks registered
 * here): the PBX is emptied (optionally seeded with GUI-made objects), its Asterisk (AstDB, voicemail) and
 * faults (a refused reload, a held lock) reset before each test. `pbx` and `s` forward to the current ones, so tests write `pbx.query(…)` and `s.call(…)`.
 * Also the plan → apply round trip of the review (ADR 0025).
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "bun:test";
import type { DeployPlan, PlanItem } from "../../src/shared/plan";
import { startTestServer, type TestServer } from "../helpers/server";
import { emptyFreepbx, seedGuiObjects } from "./gui-objects";
import { type PbxHost, startPbxHost } from "./pbx-host";

function forwarder<T extends object>(current: () => T | null, what: string): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      const value = current();
      if (!value) throw new Error(`the ${what} is not started yet (use it inside a test or hook)`);
      const field = Reflect.get(value, prop, value);
      return typeof field === "function" ? field.bind(value) : field;
    },
  });
}

export function consoleOnPbx(opts: { seedGui?: boolean } = {}): { pbx: PbxHost; s: TestServer } {
  let pbx: PbxHost | null = null;
  let s: TestServer | null = null;
  beforeAll(async () => {
    pbx = await startPbxHost();
  }, 60_000);
  afterAll(async () => {
    await pbx?.stop();
  });
  beforeEach(async () => {
    const host = pbx as PbxHost;
    await emptyFreepbx(host);
    if (opts.seedGui) await seedGuiObjects(host);
    host.setReloadFailure(false);
    await host.setAsteriskDown(false);
    await host.setAstdb({});
    host.clearFwconsoleCalls();
    // Asterisk starts each test with the test's voicemail.conf loaded, as a box whose Asterisk has read it.
    await host.cli("voicemail reload");
    s = await startTestServer(host.consoleEnv());
    await s.setup();
  });
  afterEach(async () => {
    await s?.stop();
    s = null;
  });
  return { pbx: forwarder(() => pbx, "test PBX"), s: forwarder(() => s, "test server") };
}

export type PlanTarget = "trunks" | "extensions" | "ptt-groups" | "all";

/** The review's plan for a target. */
export async function planOf(s: TestServer, target: PlanTarget): Promise<DeployPlan> {
  const res = await s.call("POST", "/api/deploy/plan", { target });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** Applies a reviewed plan and waits for its job; answers the job (its state, summary and results). */
export async function applyPlan(s: TestServer, p: DeployPlan, resolutions: Record<string, "adopt" | "skip"> = {}) {
  const res = await s.call("POST", "/api/deploy/apply", { target: p.target, fingerprint: p.fingerprint, resolutions });
  expect(res.status, res.text).toBe(202);
  await s.app.jobs.idle();
  return (await s.call("GET", `/api/jobs/${res.json.jobId}`)).json;
}

/** One item of a plan by its id (`extension:1001`). */
export function planItem(p: DeployPlan, id: string): PlanItem {
  const found = p.items.find((i) => i.id === id);
  if (!found) throw new Error(`${id} is not in the plan: ${p.items.map((i) => i.id).join(", ")}`);
  return found;
}

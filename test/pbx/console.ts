/**
 * The built console (`dist/pbx-console`) over the real testbed, configured only through its own API the way
 * an administrator fills in API Settings: the PBX host over SSH (loopback OpenSSH, as the asterisk user),
 * the Asterisk manager, the call records database. The host's own files are hidden from it, so nothing
 * works that the API did not set.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import type { DeployPlan, PlanTarget, Resolution } from "../../src/shared/plan";
import { type Binary, startBinary } from "../security/binary";
import { type PhoneOptions, Softphone } from "./softphone";
import { type PbxSsh, pbxSsh, reset, type TestbedEnv, testbed, until } from "./testbed";

export interface PbxConsole {
  bin: Binary;
  env: TestbedEnv;
  ssh: PbxSsh;
  call: Binary["call"];
  /** POST that must answer 2xx; its JSON. */
  create(path: string, body: unknown): Promise<any>;
  /** The review's plan of a target. */
  plan(target?: PlanTarget): Promise<DeployPlan>;
  /** Plans and applies a target (conflicts resolved as given, else skipped); the apply's job id, without waiting for it. */
  startDeploy(target?: PlanTarget, resolutions?: Record<string, Resolution>): Promise<number>;
  /** Waits for a job to end; the finished job. */
  finished(jobId: number): Promise<any>;
  /** Plans and applies a target and waits for the job to end; the finished job, which must have succeeded. */
  deploy(target?: PlanTarget, resolutions?: Record<string, Resolution>): Promise<any>;
  /** The extension's SIP password as the console hands it to a softphone. */
  sipSecret(extensionId: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startPbxConsole(
  o: { ami?: boolean; cdr?: boolean; env?: Record<string, string> } = {},
): Promise<PbxConsole> {
  const env = await testbed();
  const ssh = await pbxSsh();
  const bin = await startBinary({ logRequests: false, env: o.env });
  const setup = await bin.setup();
  expect(setup.status, setup.text).toBe(201);
  const save = async (body: Record<string, unknown>) => {
    const res = await bin.call("POST", "/api/credentials", body);
    expect(res.status, res.text).toBe(200);
  };
  await save({
    type: "ssh",
    host: ssh.host,
    port: String(ssh.port),
    username: ssh.username,
    privateKey: ssh.privateKey,
    hostKeyFingerprint: ssh.hostKeyFingerprint,
    freepbxConf: env.freepbxConf,
  });
  if (o.ami !== false)
    await save({
      type: "ami",
      host: env.amiHost,
      port: String(env.amiPort),
      username: env.amiUsername,
      secret: env.amiSecret,
    });
  if (o.cdr !== false)
    await save({
      type: "cdr",
      databaseUrl: `mysql://${env.dbUser}:${encodeURIComponent(env.dbPassword)}@127.0.0.1:${env.dbPort}/asteriskcdrdb`,
    });

  const c: PbxConsole = {
    bin,
    env,
    ssh,
    call: bin.call,
    async create(path, body) {
      const res = await bin.call("POST", path, body);
      expect(res.status, `${path}: ${res.text}`).toBeLessThan(300);
      return res.json;
    },
    async plan(target = "all") {
      const res = await bin.call("POST", "/api/deploy/plan", { target });
      expect(res.status, res.text).toBe(200);
      return res.json;
    },
    async startDeploy(target = "all", resolutions = {}) {
      const p = await c.plan(target);
      const res = await bin.call("POST", "/api/deploy/apply", { target, fingerprint: p.fingerprint, resolutions });
      expect(res.status, res.text).toBe(202);
      return res.json.jobId;
    },
    finished(jobId) {
      return until(
        "the job to end",
        async () => {
          const j = (await bin.call("GET", `/api/jobs/${jobId}`)).json;
          return j && j.state !== "running" ? j : undefined;
        },
        300_000,
      );
    },
    async deploy(target = "all", resolutions = {}) {
      const job = await c.finished(await c.startDeploy(target, resolutions));
      expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");
      return job;
    },
    async sipSecret(extensionId) {
      const res = await bin.call("GET", `/api/extensions/${extensionId}/provisioning`);
      expect(res.status, res.text).toBe(200);
      return res.json.config.password;
    },
    async stop() {
      // A console that died mid-test says why here (its files go with it).
      if (bin.proc.exitCode !== null)
        console.error(`pbx-console exited with ${bin.proc.exitCode}:\n${bin.errors().slice(-4000)}`);
      await bin.stop();
      await ssh.stop();
    },
  };
  return c;
}

/**
 * A test file's console over a freshly reset testbed, and the softphones it starts, all stopped after the
 * file (hooks registered here). `pbx` forwards to the console once the file has started.
 */
export function consoleForFile(o: Parameters<typeof startPbxConsole>[0] = {}) {
  let current: PbxConsole | null = null;
  const phones: Softphone[] = [];
  beforeAll(async () => {
    await reset();
    current = await startPbxConsole(o);
  }, 600_000);
  afterAll(async () => {
    await Promise.all(phones.map((p) => p.stop()));
    await current?.stop();
  });
  const pbx = new Proxy({} as PbxConsole, {
    get(_target, prop) {
      if (!current) throw new Error("the console is not started yet (use it inside a test)");
      return Reflect.get(current, prop, current);
    },
  });
  /** A softphone stopped with the file. */
  const phone = async (opts: PhoneOptions) => {
    const p = await Softphone.start(opts);
    phones.push(p);
    return p;
  };
  return { pbx, phone };
}

/**
 * Builds the outside-service clients from the effective credentials, and runs
 * the Test Connection of each service. Routes never build clients themselves.
 */
import type { ServiceType, TestResult } from "../../shared/credentials";
import { testCdrConnection } from "../clients/cdr-db";
import { DialerClient } from "../clients/dialer";
import { FreePbxClient } from "../clients/freepbx";
import { HostingerClient } from "../clients/hostinger";
import { deadline, ServiceError } from "../clients/http";
import { OpenAiClient } from "../clients/openai";
import { SshSession, type SshSettings } from "../clients/ssh";
import { TelnyxClient } from "../clients/telnyx";
import { TinyMdmClient } from "../clients/tinymdm";
import type { Deps } from "../core/deps";
import { Invalid } from "../core/errors";
import { amiSettingsFromValues, testAmiConnection } from "../live/ami-settings";
import type { Values } from "./credentials";

/** What building a client needs: the endpoints, the credentials and the clock (request signing, tokens). */
export type ClientDeps = Pick<Deps, "config" | "credentials" | "now">;

const LABEL: Record<ServiceType, string> = {
  hostinger: "The hosting provider API",
  freepbx: "The FreePBX GraphQL API",
  tinymdm: "Device management",
  telnyx: "Telnyx",
  openai: "OpenAI",
  dialer: "The web dialer push",
  ssh: "The PBX host SSH connection",
  ami: "The Asterisk manager interface",
  cdr: "The call records database",
};

/** The effective values of a configured service; `Invalid` (400) saying it is not configured otherwise. */
export function requireValues(deps: Pick<Deps, "credentials">, type: ServiceType): Values {
  const values = deps.credentials.values(type);
  if (!deps.credentials.isConfigured(type, values)) {
    throw new Invalid(`${LABEL[type]} is not configured. Add it under API Settings.`);
  }
  return values;
}

export const sshSettings = (v: Values): SshSettings => ({
  host: v.host ?? "",
  port: Number(v.port || 22),
  username: v.username ?? "",
  privateKey: v.privateKey,
  password: v.password,
  hostKeyFingerprint: v.hostKeyFingerprint,
});

/** The overall deadline of one Test Connection (a token then a query, or a list). */
export const TEST_DEADLINE_MS = 30_000;

/**
 * One builder per service; without `v` it uses the stored/environment values (and requires them).
 * `signal`: the overall deadline (`deadline()`) of an operation that makes several calls.
 */
export const clients = {
  hostinger: (deps: ClientDeps, v = requireValues(deps, "hostinger"), signal?: AbortSignal) =>
    new HostingerClient(deps.config.endpoints.hostinger, v.apiKey ?? "", signal),
  freepbx: (deps: ClientDeps, v = requireValues(deps, "freepbx"), signal?: AbortSignal) =>
    new FreePbxClient(v.apiUrl ?? "", v.clientId ?? "", v.clientSecret ?? "", deps.now, signal),
  tinymdm: (deps: ClientDeps, v = requireValues(deps, "tinymdm"), signal?: AbortSignal) =>
    new TinyMdmClient(deps.config.endpoints.tinymdm, v.clientId ?? "", v.clientSecret ?? "", signal),
  telnyx: (deps: ClientDeps, v = requireValues(deps, "telnyx"), signal?: AbortSignal) =>
    new TelnyxClient(deps.config.endpoints.telnyx, v.apiKey ?? "", signal),
  openai: (deps: ClientDeps, v = requireValues(deps, "openai"), signal?: AbortSignal) =>
    new OpenAiClient(deps.config.endpoints.openai, v.apiKey ?? "", signal),
  dialer: (deps: ClientDeps, v = requireValues(deps, "dialer"), signal?: AbortSignal) =>
    new DialerClient(v.apiUrl ?? "", v.webhookSecret ?? "", deps.now, signal),
};

/**
 * Runs a real call against the service with the given values, within
 * `deadlineMs` overall (SSH: its connect and command timeouts); never throws.
 */
export async function testService(
  deps: ClientDeps,
  type: ServiceType,
  v: Values,
  deadlineMs = TEST_DEADLINE_MS,
): Promise<{ result: TestResult; pin?: Values }> {
  if (!deps.credentials.isConfigured(type, v)) {
    return {
      result: { success: false, message: `${LABEL[type]} needs all its required fields before it can be tested.` },
    };
  }
  const signal = deadline(`Test Connection of ${LABEL[type]}`, deadlineMs);
  try {
    switch (type) {
      case "hostinger": {
        const vms = await clients.hostinger(deps, v, signal).listVms();
        return ok(`Connected to Hostinger: ${vms.length} virtual machine(s) found.`);
      }
      case "freepbx": {
        const n = await clients.freepbx(deps, v, signal).ping();
        return ok(`Connected to FreePBX: token issued, ${n} extension(s) on the PBX.`);
      }
      case "tinymdm": {
        const n = await clients.tinymdm(deps, v, signal).countDevices();
        return ok(`Connected to TinyMDM: ${n} device(s) enrolled.`);
      }
      case "telnyx": {
        const n = await clients.telnyx(deps, v, signal).ping();
        return ok(`Connected to Telnyx: ${n} credential connection(s).`);
      }
      case "openai": {
        const models = await clients.openai(deps, v, signal).listModels();
        const realtime = models.filter((m) => m.includes("realtime")).length;
        return ok(`Connected to OpenAI: ${models.length} model(s) available, ${realtime} realtime.`);
      }
      case "dialer": {
        await clients.dialer(deps, v, signal).send({ event: "ping", sent_at: new Date(deps.now()).toISOString() });
        return ok("The web dialer accepted a signed test webhook.");
      }
      case "ssh":
        return await testSsh(v);
      case "ami":
        return ok(await testAmiConnection(amiSettingsFromValues(v), signal));
      case "cdr":
        return ok(await testCdrConnection(v.databaseUrl ?? "", signal));
    }
  } catch (err) {
    const message = err instanceof ServiceError ? err.message : `Unexpected error: ${(err as Error).message}`;
    return { result: { success: false, message } };
  }
}

const ok = (message: string) => ({ result: { success: true, message } });

async function testSsh(v: Values): Promise<{ result: TestResult; pin?: Values }> {
  const settings = sshSettings(v);
  const session = await SshSession.connect(settings);
  try {
    const out = await session.exec("fwconsole --version", { timeoutMs: 20_000 });
    if (out.code !== 0) {
      const why = (out.stderr || out.stdout).trim().split("\n").at(-1) ?? "";
      return {
        result: { success: false, message: `Connected, but "fwconsole --version" failed (exit ${out.code}): ${why}` },
      };
    }
    const version = out.stdout.trim().split("\n").at(-1) ?? "";
    const pinned = settings.hostKeyFingerprint ? "" : ` Host key ${session.hostKey} pinned.`;
    return {
      result: { success: true, message: `Connected to ${settings.host}: ${version}.${pinned}` },
      pin: { hostKeyFingerprint: session.hostKey },
    };
  } finally {
    session.close();
  }
}

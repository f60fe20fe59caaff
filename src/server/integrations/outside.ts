/**
 * Builds the outside-service clients from the effective credentials, and runs
 * the Test Connection of each service. Routes never build clients themselves.
 */
import type { ServiceType, TestResult } from "../../shared/credentials";
import { DialerClient } from "../clients/dialer";
import { FreePbxClient } from "../clients/freepbx";
import { HostingerClient } from "../clients/hostinger";
import { ServiceError } from "../clients/http";
import { OpenAiClient } from "../clients/openai";
import { SshSession, type SshSettings } from "../clients/ssh";
import { TelnyxClient } from "../clients/telnyx";
import { TinyMdmClient } from "../clients/tinymdm";
import type { AppContext } from "../context";
import { HttpError } from "../http";
import type { Values } from "./credentials";

const LABEL: Record<ServiceType, string> = {
  hostinger: "The hosting provider API",
  freepbx: "The FreePBX GraphQL API",
  tinymdm: "Device management",
  telnyx: "Telnyx",
  openai: "OpenAI",
  dialer: "The web dialer push",
  ssh: "The PBX host SSH connection",
};

/** The effective values of a configured service, or a 400 saying it is not configured. */
export function requireValues(app: AppContext, type: ServiceType): Values {
  const values = app.credentials.values(type);
  if (!app.credentials.isConfigured(type, values)) {
    throw new HttpError(400, `${LABEL[type]} is not configured. Add it under API Settings.`);
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

export const clients = {
  hostinger: (app: AppContext, v = requireValues(app, "hostinger")) =>
    new HostingerClient(app.config.endpoints.hostinger, v.apiKey ?? ""),
  freepbx: (app: AppContext, v = requireValues(app, "freepbx")) =>
    new FreePbxClient(v.apiUrl ?? "", v.clientId ?? "", v.clientSecret ?? "", app.now),
  tinymdm: (app: AppContext, v = requireValues(app, "tinymdm")) =>
    new TinyMdmClient(app.config.endpoints.tinymdm, v.clientId ?? "", v.clientSecret ?? ""),
  telnyx: (app: AppContext, v = requireValues(app, "telnyx")) =>
    new TelnyxClient(app.config.endpoints.telnyx, v.apiKey ?? ""),
  openai: (app: AppContext, v = requireValues(app, "openai")) =>
    new OpenAiClient(app.config.endpoints.openai, v.apiKey ?? ""),
  dialer: (app: AppContext, v = requireValues(app, "dialer")) =>
    new DialerClient(v.apiUrl ?? "", v.webhookSecret ?? "", app.now),
};

/** Runs a real call against the service with the given values; never throws. */
export async function testService(
  app: AppContext,
  type: ServiceType,
  v: Values,
): Promise<{ result: TestResult; pin?: Values }> {
  if (!app.credentials.isConfigured(type, v)) {
    return {
      result: { success: false, message: `${LABEL[type]} needs all its required fields before it can be tested.` },
    };
  }
  try {
    switch (type) {
      case "hostinger": {
        const vms = await clients.hostinger(app, v).listVms();
        return ok(`Connected to Hostinger: ${vms.length} virtual machine(s) found.`);
      }
      case "freepbx": {
        const n = await clients.freepbx(app, v).ping();
        return ok(`Connected to FreePBX: token issued, ${n} extension(s) on the PBX.`);
      }
      case "tinymdm": {
        const n = await clients.tinymdm(app, v).countDevices();
        return ok(`Connected to TinyMDM: ${n} device(s) enrolled.`);
      }
      case "telnyx": {
        const n = await clients.telnyx(app, v).ping();
        return ok(`Connected to Telnyx: ${n} credential connection(s).`);
      }
      case "openai": {
        const models = await clients.openai(app, v).listModels();
        const realtime = models.filter((m) => m.includes("realtime")).length;
        return ok(`Connected to OpenAI: ${models.length} model(s) available, ${realtime} realtime.`);
      }
      case "dialer": {
        await clients.dialer(app, v).send({ event: "ping", sent_at: new Date(app.now()).toISOString() });
        return ok("The web dialer accepted a signed test webhook.");
      }
      case "ssh":
        return await testSsh(v);
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

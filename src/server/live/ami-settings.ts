/**
 * Where the console's Asterisk manager (AMI) settings come from: API Settings or
 * the environment (the "ami" service) first; otherwise, because the console runs
 * on the PBX host, the host's own `/etc/asterisk/manager.conf` (read locally, never
 * copied or stored); otherwise none, with the reason every live view shows. Also
 * the Test Connection of the "ami" service. ADR 0027.
 */
import { readFileSync, statSync } from "node:fs";
import { AmiError, type AmiSettings, withAmi } from "../clients/ami";
import { ServiceError } from "../clients/http";
import type { Deps } from "../core/deps";
import type { Values } from "../integrations/credentials";

export const AMI_DEFAULT_PORT = 5038;
/** manager.conf is a few hundred bytes; anything this large is not one. */
const MAX_CONF_BYTES = 1024 * 1024;

const SERVICE = "Asterisk manager (AMI)";

const isFalse = (v: string) => /^(no|false|off|0|n|f)$/i.test(v.trim());

interface Section {
  name: string;
  /** `[name](!)`: a template, never a user. */
  template: boolean;
  values: Map<string, string>;
}

/** Asterisk's config syntax: `[section](options)`, `key = value` / `key => value`, `;` comments (`\;` a literal), `;-- --;` blocks, `#include` ignored. */
function sections(text: string): Section[] {
  const out: Section[] = [];
  const byName = new Map<string, Section>();
  let current: Section | null = null;
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw;
    if (inBlock) {
      const end = line.indexOf("--;");
      if (end === -1) continue;
      line = line.slice(end + 3);
      inBlock = false;
    }
    const block = line.indexOf(";--");
    if (block !== -1) {
      const end = line.indexOf("--;", block + 3);
      if (end === -1) {
        inBlock = true;
        line = line.slice(0, block);
      } else {
        line = line.slice(0, block) + line.slice(end + 3);
      }
    }
    // A `;` starts a comment unless escaped as `\;`.
    line = line.replace(/(^|[^\\]);.*$/, "$1").replace(/\\;/g, ";");
    line = line.trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[([^\]]+)\]\s*(?:\(([^)]*)\))?/.exec(line);
    if (header) {
      const name = (header[1] as string).trim();
      const options = header[2] ?? "";
      const key = name.toLowerCase();
      const existing = byName.get(key);
      if (existing && !options.includes("!")) {
        current = existing;
        continue;
      }
      current = { name, template: options.split(",").some((o) => o.trim() === "!"), values: new Map() };
      if (!current.template) byName.set(key, current);
      out.push(current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || !current) continue;
    const key = line.slice(0, eq).trim().toLowerCase();
    const value = line
      .slice(eq + 1)
      .replace(/^>/, "")
      .trim();
    current.values.set(key, value);
  }
  return out;
}

/** What manager.conf says: the settings, or why there are none (a predicate about the file: "has no manager user with a secret"). */
export function readManagerConf(text: string): { settings: AmiSettings | null; problem: string | null } {
  const all = sections(text);
  const general = all.find((s) => !s.template && s.name.toLowerCase() === "general");
  const enabled = general?.values.get("enabled");
  if (enabled === undefined || isFalse(enabled)) {
    return { settings: null, problem: "does not enable the manager interface (enabled = yes under [general])" };
  }
  const portText = general?.values.get("port") ?? "";
  const port = portText === "" ? AMI_DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return { settings: null, problem: `has "${portText.slice(0, 20)}" as its port, which is not a port number` };
  }
  let host = (general?.values.get("bindaddr") ?? "").replace(/^\[|\]$/g, "").trim();
  if (host === "" || host === "0.0.0.0") host = "127.0.0.1";
  else if (host === "::") host = "::1";
  const users = all.filter((s) => !s.template && s.name.toLowerCase() !== "general" && s.values.get("secret"));
  const user = users.find((s) => s.name === "admin") ?? users[0];
  if (!user) return { settings: null, problem: "has no manager user with a secret" };
  const secret = user.values.get("secret") as string;
  if (/[\r\n]/.test(secret) || /[\r\n:]/.test(user.name)) {
    return { settings: null, problem: "has a manager user whose name or secret is not usable" };
  }
  return { settings: { host, port, username: user.name, secret }, problem: null };
}

/** `[general]` port/bindaddr (0.0.0.0 → 127.0.0.1), the user section `admin` (or the first with a secret); null when unusable. */
export function parseManagerConf(text: string): AmiSettings | null {
  return readManagerConf(text).settings;
}

/** Values = credentials.values("ami"): host, port ("" → 5038), username, secret. */
export function amiSettingsFromValues(v: Values): AmiSettings {
  const port = (v.port ?? "").trim();
  return {
    host: (v.host ?? "").trim(),
    port: port === "" ? AMI_DEFAULT_PORT : Number(port),
    username: (v.username ?? "").trim(),
    secret: v.secret ?? "",
  };
}

export interface EffectiveAmiSettings {
  settings: AmiSettings | null;
  source: "settings" | "manager.conf" | "none";
  reason: string | null;
}

/** The effective settings: API Settings / environment ("ami" configured) first, else config.pbxFiles.managerConf, else none with a reason. */
export function effectiveAmiSettings(deps: Pick<Deps, "credentials" | "config">): EffectiveAmiSettings {
  const values = deps.credentials.values("ami");
  if (deps.credentials.isConfigured("ami", values)) {
    return { settings: amiSettingsFromValues(values), source: "settings", reason: null };
  }
  const path = deps.config.pbxFiles.managerConf;
  const none = (why: string): EffectiveAmiSettings => ({
    settings: null,
    source: "none",
    reason: `Asterisk manager not configured: ${why}. Add it under API Settings.`,
  });
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) return none(`${path} is not a file`);
    if (st.size > MAX_CONF_BYTES) return none(`${path} is too large to be a manager.conf`);
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return none(`${path} was not found`);
    if (code === "EACCES" || code === "EPERM") return none(`${path} cannot be read by the console (permission denied)`);
    return none(`${path} cannot be read (${code ?? "error"})`);
  }
  const { settings, problem } = readManagerConf(text);
  if (!settings) return none(`${path} ${problem ?? "has no usable settings"}`);
  return { settings, source: "manager.conf", reason: null };
}

/**
 * Test Connection: login, `Command: core show version`, PJSIPShowEndpoints count →
 * "Connected to Asterisk 20.5.2 as admin: 12 endpoints."; ServiceError with a clear message otherwise.
 */
export async function testAmiConnection(settings: AmiSettings, signal?: AbortSignal): Promise<string> {
  if (!settings.host || !settings.username || !settings.secret) {
    throw new ServiceError(SERVICE, "The Asterisk manager needs a host, a username and a secret.");
  }
  if (!Number.isInteger(settings.port) || settings.port < 1 || settings.port > 65535) {
    throw new ServiceError(SERVICE, "The Asterisk manager port must be a number from 1 to 65535.");
  }
  return withAmi(
    settings,
    async (client) => {
      let version: string | null = null;
      try {
        const out = await client.action("Command", { Command: "core show version" });
        version = /Asterisk\s+(\S+)/.exec(out.output ?? "")?.[1] ?? null;
      } catch (err) {
        // A user without the `command` write class may not run it: the version is then unknown.
        if (!(err instanceof AmiError)) throw err;
      }
      let endpoints: number;
      try {
        const items = await client.list("PJSIPShowEndpoints");
        endpoints = items.filter((m) => m.event?.toLowerCase() === "endpointlist").length;
      } catch (err) {
        if (!(err instanceof AmiError)) throw err;
        // Asterisk answers an empty endpoint list with an error.
        if (/no endpoints found/i.test(err.message)) endpoints = 0;
        else {
          throw new ServiceError(
            SERVICE,
            `Logged in as ${settings.username}, but the PBX refused the endpoint list (${err.message.replace(/\.$/, "")}). Give the manager user read access to "system".`,
          );
        }
      }
      const what = version ? `Asterisk ${version}` : "Asterisk";
      return `Connected to ${what} as ${settings.username}: ${endpoints} endpoint${endpoints === 1 ? "" : "s"}.`;
    },
    signal,
  );
}

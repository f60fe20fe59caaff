import { hostname } from "node:os";
import { parseNetwork } from "../shared/ip";

/**
 * Start-up configuration from environment variables, validated once. A bad value
 * stops the process with a message naming the variable (never a stack trace).
 *
 * Checked by hand rather than with zod (ADR 0048): this runs before the console answers anything, and
 * zod's first use in a process sets its schema classes up, a cost the first request that validates a body
 * pays instead (figures in the ADR).
 */
type Rule = (value: string) => string | null;

const maxLength =
  (max: number, message = `must be at most ${max} characters`): Rule =>
  (v) =>
    v.length > max ? message : null;
const matches =
  (re: RegExp, message: string): Rule =>
  (v) =>
    re.test(v) ? null : message;
const notEmpty: Rule = (v) => (v === "" ? "must not be empty" : null);
const oneOf =
  (values: readonly string[], message: string): Rule =>
  (v) =>
    values.includes(v) ? null : message;
const absolutePath = matches(/^\/[^\0]*$/, "must be an absolute path");
/** A base URL of an outside service: http or https. */
const httpUrl: Rule = (v) => {
  const url = URL.parse(v);
  return url && (url.protocol === "http:" || url.protocol === "https:") ? null : "must be a URL";
};
/** A whole number in [min, max] written with at most `digits` digits ("" is allowed: the default). */
const wholeNumber =
  (digits: number, min: number, max: number, message: string): Rule =>
  (v) =>
    v === "" || (/^\d+$/.test(v) && v.length <= digits && Number(v) >= min && Number(v) <= max) ? null : message;

/** A comma-separated list's entries, trimmed, without empty ones. */
const listOf = (v: string) =>
  v
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");

/** Each variable: whether it is trimmed, then its rules (the first that fails is the message). */
const VARIABLES: Record<string, { trim: boolean; rules: Rule[] }> = {
  PORT: { trim: false, rules: [] },
  HOST: { trim: true, rules: [notEmpty] },
  DATA_DIR: { trim: true, rules: [notEmpty] },
  TLS_CERT: { trim: true, rules: [] },
  TLS_KEY: { trim: true, rules: [] },
  SERVER_LABEL: { trim: true, rules: [maxLength(100)] },
  SERVER_ADDRESS: { trim: true, rules: [maxLength(255)] },
  PUBLIC_HOSTNAMES: {
    trim: true,
    rules: [maxLength(2000), matches(/^[A-Za-z0-9.:[\], -]*$/, "must be host names or addresses separated by commas")],
  },
  TRUSTED_PROXIES: {
    trim: true,
    rules: [
      maxLength(2000),
      (v) => {
        const bad = listOf(v).find((entry) => parseNetwork(entry) === null);
        return bad === undefined ? null : `"${bad}" is not an address or network (address/prefix)`;
      },
    ],
  },
  LOG_LEVEL: { trim: false, rules: [oneOf(["info", "silent"], "must be info or silent")] },
  BACKUP_KEEP: {
    trim: true,
    rules: [wholeNumber(4, 0, 1000, "must be a whole number from 0 to 1000 (0 turns the daily backup off)")],
  },
  AUDIT_RETENTION_DAYS: {
    trim: true,
    rules: [wholeNumber(5, 1, 36500, "must be a whole number of days from 1 to 36500")],
  },
  SIP_SERVER_HOST: {
    trim: true,
    rules: [matches(/^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:.]+\]?$/, "must be a host name or IP address"), maxLength(255)],
  },
  SIP_SERVER_PORT: { trim: false, rules: [] },
  SIP_TRANSPORT: { trim: false, rules: [oneOf(["udp", "tcp", "tls"], "must be udp, tcp or tls")] },
  PBX_HOSTINGER_URL: { trim: true, rules: [httpUrl] },
  PBX_TELNYX_URL: { trim: true, rules: [httpUrl] },
  PBX_TINYMDM_URL: { trim: true, rules: [httpUrl] },
  PBX_OPENAI_URL: { trim: true, rules: [httpUrl] },
  UPDATE_URL: { trim: true, rules: [httpUrl] },
  PBX_TELEGRAM_URL: { trim: true, rules: [httpUrl] },
  ASTERISK_MANAGER_CONF: { trim: true, rules: [absolutePath] },
  FREEPBX_CONF: { trim: true, rules: [absolutePath] },
  // A scrape token shorter than this is guessable (ADR 0066); the UI makes 43-character ones.
  METRICS_TOKEN: {
    trim: true,
    rules: [(v) => (v !== "" && v.length < 16 ? "must be at least 16 characters" : null), maxLength(200)],
  },
  FAIL2BAN_CLIENT: { trim: true, rules: [absolutePath] },
  FAIL2BAN_SOCKET: { trim: true, rules: [absolutePath] },
  FAIL2BAN_HELPER: { trim: true, rules: [absolutePath] },
  FAIL2BAN_JAILS: {
    trim: true,
    rules: [
      maxLength(500),
      // The jail names' shape of src/shared/firewall.ts (JAIL_NAME), without loading zod at start.
      (v) =>
        listOf(v).every((jail) => /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(jail))
          ? null
          : "must be jail names (letters, digits, '.', '_', '-') separated by commas",
    ],
  },
};

/** A port as a number (0–65535), or the message. */
function portOf(value: string): number | string {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) return "must be a number";
  if (!Number.isInteger(n)) return "must be a whole number";
  return n < 0 || n > 65535 ? "must be between 0 and 65535" : n;
}

/** The known variables, trimmed where they are, or every problem as `NAME: message`. */
function checkEnv(env: Record<string, string | undefined>): {
  values: Record<string, string | undefined>;
  problems: string[];
} {
  const values: Record<string, string | undefined> = {};
  const problems: string[] = [];
  for (const [name, { trim, rules }] of Object.entries(VARIABLES)) {
    const raw = env[name];
    if (raw === undefined) continue;
    const value = trim ? raw.trim() : raw;
    const problem = rules.map((rule) => rule(value)).find((p) => p !== null);
    if (problem) problems.push(`${name}: ${problem}`);
    else values[name] = value;
  }
  if (Boolean(values.TLS_CERT) !== Boolean(values.TLS_KEY)) {
    problems.push(`${values.TLS_CERT ? "TLS_KEY" : "TLS_CERT"}: TLS_CERT and TLS_KEY must be set together`);
  }
  return { values, problems };
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  tls: { cert: string; key: string } | null;
  serverLabel: string;
  serverAddress: string;
  /** Extra names the console answers to (besides loopback, this machine's addresses, SERVER_ADDRESS): PUBLIC_HOSTNAMES. */
  publicHostnames: string[];
  logRequests: boolean;
  /**
   * The reverse proxies (addresses or networks) whose `X-Forwarded-For`/`Forwarded` is believed: TRUSTED_PROXIES
   * (ADR 0069). Empty: the TCP peer is the client.
   */
  trustedProxies: string[];
  /** How many daily backups `DATA_DIR/backups` keeps (BACKUP_KEEP, default 7); 0 turns the schedule off. */
  backupKeep: number;
  /** How many days audit rows are kept (AUDIT_RETENTION_DAYS, default 365). */
  auditRetentionDays: number;
  /** What softphones register to (provisioning links and QR codes). */
  sip: { host: string; port: number; transport: "udp" | "tcp" | "tls" };
  /** The signed release manifest the updater reads (UPDATE_URL; docs/decisions/0065-self-update.md). */
  updateUrl: string;
  /** Base URLs of the outside services (overridable for proxies and tests). */
  endpoints: { hostinger: string; telnyx: string; tinymdm: string; openai: string; telegram: string };
  /**
   * The PBX host's own files the live views read when the Asterisk manager or the call records database
   * are not configured in API Settings (the console runs on the PBX host): ASTERISK_MANAGER_CONF, FREEPBX_CONF.
   */
  pbxFiles: { managerConf: string; freepbxConf: string };
  /** The scrape token of GET /metrics from the environment (METRICS_TOKEN), null when unset (ADR 0066). */
  metricsToken: string | null;
  /**
   * fail2ban (ADR 0067): its client program, its socket, the root helper's socket (set by install.sh
   * --fail2ban; null: the client is run directly), and the jails the console shows and acts in (the first
   * present one takes bans by default).
   */
  fail2ban: { client: string; socket: string; helper: string | null; jails: string[] };
  /** The raw environment, for credential overrides (HOSTINGER_API_KEY, …). */
  env: Record<string, string | undefined>;
}

export class ConfigError extends Error {}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** Where releases are published: the project's GitHub releases, the newest one's manifest. */
export const DEFAULT_UPDATE_URL = "https://github.com/pbx-console/pbx-console/releases/latest/download/manifest.json";

/** Where data lives when DATA_DIR is not set: ./data from source, the system dir for the binary. */
export function defaultDataDir(standalone: boolean): string {
  return standalone ? "/var/lib/pbx-console" : "./data";
}

export function loadConfig(env: Record<string, string | undefined>, standalone: boolean): Config {
  const { values: e, problems } = checkEnv(env);
  const invalid = (lines: string[]) =>
    new ConfigError(`Invalid configuration:\n${lines.map((l) => `  ${l}`).join("\n")}`);
  if (problems.length) throw invalid(problems);
  let port = 3000;
  if (e.PORT !== undefined && e.PORT !== "") {
    const p = portOf(e.PORT);
    if (typeof p === "string") throw invalid([`PORT: ${p}`]);
    port = p;
  }
  const host = e.HOST ?? "127.0.0.1";
  let sipPort = 5060;
  if (e.SIP_SERVER_PORT) {
    const p = portOf(e.SIP_SERVER_PORT);
    if (typeof p === "string" || p === 0) throw invalid(["SIP_SERVER_PORT: must be between 1 and 65535"]);
    sipPort = p;
  }
  const serverAddress = e.SERVER_ADDRESS || host;
  return {
    port,
    host,
    dataDir: e.DATA_DIR ?? defaultDataDir(standalone),
    tls: e.TLS_CERT && e.TLS_KEY ? { cert: e.TLS_CERT, key: e.TLS_KEY } : null,
    serverLabel: e.SERVER_LABEL || hostname(),
    serverAddress,
    publicHostnames: listOf(e.PUBLIC_HOSTNAMES ?? ""),
    trustedProxies: listOf(e.TRUSTED_PROXIES ?? ""),
    logRequests: e.LOG_LEVEL !== "silent",
    backupKeep: e.BACKUP_KEEP ? Number(e.BACKUP_KEEP) : 7,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS ? Number(e.AUDIT_RETENTION_DAYS) : 365,
    sip: {
      host: e.SIP_SERVER_HOST || serverAddress,
      port: sipPort,
      transport: (e.SIP_TRANSPORT ?? "udp") as Config["sip"]["transport"],
    },
    pbxFiles: {
      managerConf: e.ASTERISK_MANAGER_CONF || "/etc/asterisk/manager.conf",
      freepbxConf: e.FREEPBX_CONF || "/etc/freepbx.conf",
    },
    metricsToken: e.METRICS_TOKEN || null,
    fail2ban: {
      client: e.FAIL2BAN_CLIENT || "/usr/bin/fail2ban-client",
      socket: e.FAIL2BAN_SOCKET || "/var/run/fail2ban/fail2ban.sock",
      helper: e.FAIL2BAN_HELPER || null,
      // FreePBX's Intrusion Detection names its SIP jail `asterisk`; install.sh --fail2ban names the console's.
      jails: [...new Set(listOf(e.FAIL2BAN_JAILS || "asterisk,pbx-console"))],
    },
    updateUrl: e.UPDATE_URL || DEFAULT_UPDATE_URL,
    endpoints: {
      hostinger: trimSlash(e.PBX_HOSTINGER_URL ?? "https://developers.hostinger.com"),
      telnyx: trimSlash(e.PBX_TELNYX_URL ?? "https://api.telnyx.com/v2"),
      tinymdm: trimSlash(e.PBX_TINYMDM_URL ?? "https://www.tinymdm.net/api/v1"),
      openai: trimSlash(e.PBX_OPENAI_URL ?? "https://api.openai.com/v1"),
      telegram: trimSlash(e.PBX_TELEGRAM_URL ?? "https://api.telegram.org"),
    },
    env,
  };
}

import { hostname } from "node:os";
import { z } from "zod";

/**
 * Start-up configuration from environment variables, validated once. A bad value
 * stops the process with a message naming the variable (never a stack trace).
 */
const portSchema = z.coerce
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(0, "must be between 0 and 65535")
  .max(65535, "must be between 0 and 65535");

const envSchema = z
  .object({
    PORT: z.string().optional(),
    HOST: z.string().trim().min(1, "must not be empty").optional(),
    DATA_DIR: z.string().trim().min(1, "must not be empty").optional(),
    TLS_CERT: z.string().trim().optional(),
    TLS_KEY: z.string().trim().optional(),
    SERVER_LABEL: z.string().trim().max(100, "must be at most 100 characters").optional(),
    SERVER_ADDRESS: z.string().trim().max(255, "must be at most 255 characters").optional(),
    PUBLIC_HOSTNAMES: z
      .string()
      .trim()
      .max(2000, "must be at most 2000 characters")
      .regex(/^[A-Za-z0-9.:[\], -]*$/, "must be host names or addresses separated by commas")
      .optional(),
    LOG_LEVEL: z.enum(["info", "silent"], { error: "must be info or silent" }).optional(),
    BACKUP_KEEP: z
      .string()
      .trim()
      .regex(/^\d{1,4}$/, "must be a whole number from 0 to 1000 (0 turns the daily backup off)")
      .refine((v) => Number(v) <= 1000, "must be a whole number from 0 to 1000 (0 turns the daily backup off)")
      .optional()
      .or(z.literal("")),
    AUDIT_RETENTION_DAYS: z
      .string()
      .trim()
      .regex(/^\d{1,5}$/, "must be a whole number of days from 1 to 36500")
      .refine((v) => Number(v) >= 1 && Number(v) <= 36500, "must be a whole number of days from 1 to 36500")
      .optional()
      .or(z.literal("")),
    SIP_SERVER_HOST: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:.]+\]?$/, "must be a host name or IP address")
      .max(255)
      .optional(),
    SIP_SERVER_PORT: z.string().optional(),
    SIP_TRANSPORT: z.enum(["udp", "tcp", "tls"], { error: "must be udp, tcp or tls" }).optional(),
    PBX_HOSTINGER_URL: z.url("must be a URL").optional(),
    PBX_TELNYX_URL: z.url("must be a URL").optional(),
    PBX_TINYMDM_URL: z.url("must be a URL").optional(),
    PBX_OPENAI_URL: z.url("must be a URL").optional(),
    ASTERISK_MANAGER_CONF: z
      .string()
      .trim()
      .regex(/^\/[^\0]*$/, "must be an absolute path")
      .optional(),
    FREEPBX_CONF: z
      .string()
      .trim()
      .regex(/^\/[^\0]*$/, "must be an absolute path")
      .optional(),
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.TLS_CERT) !== Boolean(env.TLS_KEY)) {
      ctx.addIssue({
        code: "custom",
        path: [env.TLS_CERT ? "TLS_KEY" : "TLS_CERT"],
        message: "TLS_CERT and TLS_KEY must be set together",
      });
    }
  });

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
  /** How many daily backups `DATA_DIR/backups` keeps (BACKUP_KEEP, default 7); 0 turns the schedule off. */
  backupKeep: number;
  /** How many days audit rows are kept (AUDIT_RETENTION_DAYS, default 365). */
  auditRetentionDays: number;
  /** What softphones register to (provisioning links and QR codes). */
  sip: { host: string; port: number; transport: "udp" | "tcp" | "tls" };
  /** Base URLs of the outside services (overridable for proxies and tests). */
  endpoints: { hostinger: string; telnyx: string; tinymdm: string; openai: string };
  /**
   * The PBX host's own files the live views read when the Asterisk manager or the call records database
   * are not configured in API Settings (the console runs on the PBX host): ASTERISK_MANAGER_CONF, FREEPBX_CONF.
   */
  pbxFiles: { managerConf: string; freepbxConf: string };
  /** The raw environment, for credential overrides (HOSTINGER_API_KEY, …). */
  env: Record<string, string | undefined>;
}

export class ConfigError extends Error {}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** Where data lives when DATA_DIR is not set: ./data from source, the system dir for the binary. */
export function defaultDataDir(standalone: boolean): string {
  return standalone ? "/var/lib/pbx-console" : "./data";
}

export function loadConfig(env: Record<string, string | undefined>, standalone: boolean): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0] ?? "env")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  let port = 3000;
  if (e.PORT !== undefined && e.PORT !== "") {
    const p = portSchema.safeParse(e.PORT);
    if (!p.success) throw new ConfigError(`Invalid configuration:\n  PORT: ${p.error.issues[0]?.message}`);
    port = p.data;
  }
  const host = e.HOST ?? "127.0.0.1";
  let sipPort = 5060;
  if (e.SIP_SERVER_PORT) {
    const p = portSchema.safeParse(e.SIP_SERVER_PORT);
    if (!p.success || p.data === 0)
      throw new ConfigError("Invalid configuration:\n  SIP_SERVER_PORT: must be between 1 and 65535");
    sipPort = p.data;
  }
  const serverAddress = e.SERVER_ADDRESS || host;
  return {
    port,
    host,
    dataDir: e.DATA_DIR ?? defaultDataDir(standalone),
    tls: e.TLS_CERT && e.TLS_KEY ? { cert: e.TLS_CERT, key: e.TLS_KEY } : null,
    serverLabel: e.SERVER_LABEL || hostname(),
    serverAddress,
    publicHostnames: (e.PUBLIC_HOSTNAMES ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
    logRequests: e.LOG_LEVEL !== "silent",
    backupKeep: e.BACKUP_KEEP ? Number(e.BACKUP_KEEP) : 7,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS ? Number(e.AUDIT_RETENTION_DAYS) : 365,
    sip: { host: e.SIP_SERVER_HOST || serverAddress, port: sipPort, transport: e.SIP_TRANSPORT ?? "udp" },
    pbxFiles: {
      managerConf: e.ASTERISK_MANAGER_CONF || "/etc/asterisk/manager.conf",
      freepbxConf: e.FREEPBX_CONF || "/etc/freepbx.conf",
    },
    endpoints: {
      hostinger: trimSlash(e.PBX_HOSTINGER_URL ?? "https://developers.hostinger.com"),
      telnyx: trimSlash(e.PBX_TELNYX_URL ?? "https://api.telnyx.com/v2"),
      tinymdm: trimSlash(e.PBX_TINYMDM_URL ?? "https://www.tinymdm.net/api/v1"),
      openai: trimSlash(e.PBX_OPENAI_URL ?? "https://api.openai.com/v1"),
    },
    env,
  };
}

/**
 * Outside-service credentials: what the settings screen sends and reads.
 * Secrets are write-only: the API reports whether one is set and its last 4
 * characters, never the value. Environment variables take precedence.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

export const serviceTypes = [
  "hostinger",
  "freepbx",
  "tinymdm",
  "telnyx",
  "openai",
  "dialer",
  "ssh",
  "ami",
  "cdr",
] as const;
export type ServiceType = (typeof serviceTypes)[number];

/** The name a service's stored record gets when the settings screen sends none. */
export const SERVICE_NAMES: Record<ServiceType, string> = {
  hostinger: "Hostinger VPS API",
  freepbx: "FreePBX GraphQL API",
  tinymdm: "TinyMDM API",
  telnyx: "Telnyx API",
  openai: "OpenAI API",
  dialer: "Web Dialer Push",
  ssh: "PBX Host (SSH)",
  ami: "Asterisk Manager (AMI)",
  cdr: "Call Records Database",
};

/** Every field a service has; `secret` ones are encrypted at rest and never returned. */
export interface FieldSpec {
  name: string;
  label: string;
  secret: boolean;
  /** The environment variable that overrides the stored value. */
  env: string;
  required: boolean;
  /**
   * The field decides where the service's secrets are sent (a URL, the SSH host and port). Changing it
   * needs the secrets typed again in the same request: a stored secret only goes where it was saved for.
   */
  destination?: boolean;
}

export const SERVICE_FIELDS: Record<ServiceType, FieldSpec[]> = {
  hostinger: [
    { name: "apiKey", label: "API Key", secret: true, env: "HOSTINGER_API_KEY", required: true },
    { name: "vmId", label: "Virtual machine ID (optional)", secret: false, env: "HOSTINGER_VM_ID", required: false },
  ],
  freepbx: [
    { name: "apiUrl", label: "API URL", secret: false, env: "FREEPBX_API_URL", required: true, destination: true },
    { name: "clientId", label: "Client ID", secret: false, env: "FREEPBX_CLIENT_ID", required: true },
    { name: "clientSecret", label: "Client Secret", secret: true, env: "FREEPBX_CLIENT_SECRET", required: true },
  ],
  tinymdm: [
    { name: "clientId", label: "Public API Key", secret: false, env: "TINYMDM_PUBLIC_KEY", required: true },
    { name: "clientSecret", label: "Secret API Key", secret: true, env: "TINYMDM_SECRET_KEY", required: true },
  ],
  telnyx: [{ name: "apiKey", label: "API Key", secret: true, env: "TELNYX_API_KEY", required: true }],
  openai: [
    { name: "apiKey", label: "API Key", secret: true, env: "OPENAI_API_KEY", required: true },
    {
      name: "webhookSecret",
      label: "Webhook signing secret",
      secret: true,
      env: "OPENAI_WEBHOOK_SECRET",
      required: false,
    },
    { name: "projectId", label: "Project ID", secret: false, env: "OPENAI_PROJECT_ID", required: false },
  ],
  dialer: [
    { name: "apiUrl", label: "Push URL", secret: false, env: "DIALER_PUSH_URL", required: true, destination: true },
    { name: "webhookSecret", label: "Signing secret", secret: true, env: "DIALER_PUSH_SECRET", required: true },
  ],
  ssh: [
    { name: "host", label: "Host", secret: false, env: "PBX_SSH_HOST", required: true, destination: true },
    { name: "port", label: "Port", secret: false, env: "PBX_SSH_PORT", required: false, destination: true },
    { name: "username", label: "Username", secret: false, env: "PBX_SSH_USER", required: true },
    { name: "privateKey", label: "Private key (PEM)", secret: true, env: "PBX_SSH_PRIVATE_KEY", required: false },
    { name: "password", label: "Password", secret: true, env: "PBX_SSH_PASSWORD", required: false },
    { name: "hostKeyFingerprint", label: "Host key (SHA256)", secret: false, env: "PBX_SSH_HOST_KEY", required: false },
    { name: "freepbxConf", label: "FreePBX config file", secret: false, env: "PBX_FREEPBX_CONF", required: false },
  ],
  // Both default to the PBX host's own files when not configured (/etc/asterisk/manager.conf,
  // /etc/freepbx.conf): the console runs on the PBX host. ADR 0027.
  ami: [
    { name: "host", label: "Host", secret: false, env: "AMI_HOST", required: true, destination: true },
    { name: "port", label: "Port", secret: false, env: "AMI_PORT", required: false, destination: true },
    { name: "username", label: "Username", secret: false, env: "AMI_USERNAME", required: true },
    { name: "secret", label: "Secret", secret: true, env: "AMI_SECRET", required: true },
  ],
  cdr: [
    {
      name: "databaseUrl",
      label: "Database URL (mysql://user:password@host:3306/asteriskcdrdb)",
      secret: true,
      env: "CDR_DATABASE_URL",
      required: true,
    },
  ],
};

/** One field as GET /api/credentials reports it. */
export interface FieldView {
  name: string;
  label: string;
  secret: boolean;
  set: boolean;
  /** Non-secret fields: the value. Secret fields: never present. */
  value?: string;
  /** Secret fields: the last 4 characters, when set. */
  last4?: string;
  /** True when the value comes from an environment variable (which wins over the stored one). */
  fromEnv: boolean;
  env: string;
}

export interface CredentialView {
  type: ServiceType;
  name: string;
  configured: boolean;
  /** The last Test Connection succeeded (and nothing changed since). */
  connected: boolean;
  lastTestedAt: string | null;
  lastTestMessage: string | null;
  fields: FieldView[];
  /** On the answer to a save: something that works but is unsafe (plain http to another host). */
  warning?: string;
}

export type ConnectionStatus = Record<ServiceType, { configured: boolean; connected: boolean }>;

export interface TestResult {
  success: boolean;
  message: string;
  /** Something that works but is unsafe (plain http to another host). */
  warning?: string;
}

/** The field message when a request changes where a service's secrets go without typing them again. */
export const RETYPE_SECRET_MESSAGE = "Enter the secret again to use it with a new URL";
export const RETYPE_SSH_SECRET_MESSAGE = "Enter the secret again to use it with a new host";

/** 127.0.0.0/8, ::1 and localhost: where plain http does not leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The warning a plain-http URL to another machine gets (secrets would cross the network unencrypted), or null. */
export function plainHttpWarning(url: string | undefined): string | null {
  if (!url) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" || isLoopbackHost(u.hostname)) return null;
  return `${u.host} is reached over plain http: the secret and every answer cross the network unencrypted. Use https unless the network between them is trusted.`;
}

/**
 * A service URL: http or https only (no file:, gopher:, …) and no user name or
 * password in it (they belong in the secret fields, which are sealed and redacted).
 */
export const serviceUrl = (example: string) =>
  z.union([
    z.literal(""),
    z
      .url(`Enter a valid URL such as ${example}`)
      .max(500, "At most 500 characters")
      .superRefine((value, ctx) => {
        let u: URL;
        try {
          u = new URL(value);
        } catch {
          return; // z.url() has said so
        }
        if (u.protocol !== "http:" && u.protocol !== "https:")
          ctx.addIssue({ code: "custom", message: `Use an http:// or https:// URL such as ${example}` });
        else if (u.username || u.password)
          ctx.addIssue({
            code: "custom",
            message: "Leave the user name and password out of the URL: enter the secret in its own field",
          });
      }),
  ]);

const text = (max: number) => z.string().trim().max(max).optional();
/** A host of a TCP service (SSH, AMI): a name or an IP address, no scheme, port or path. */
const hostField = lazySchema(() =>
  z
    .string()
    .trim()
    .max(255)
    .regex(/^$|^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:.]+\]?$/, "Enter a host name or IP address")
    .optional(),
);
const portField = lazySchema(() =>
  z.union([z.literal(""), z.string().regex(/^\d{1,5}$/, "Port is a number")]).optional(),
);
const secret = (max: number) => z.string().max(max).optional();

/**
 * POST /api/credentials: `{type, name?}` plus the service's fields. A secret
 * left empty or omitted keeps the stored one. Device management also accepts
 * `publicKey`/`secretKey` (the test call's names) for clientId/clientSecret.
 */
export const saveCredentialSchema = lazySchema(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("hostinger"),
      name: text(100),
      apiKey: secret(1000),
      vmId: z.string().trim().regex(/^\d*$/, "VM id is a number").optional(),
    }),
    z.object({
      type: z.literal("freepbx"),
      name: text(100),
      apiUrl: serviceUrl("https://pbx.example.com").optional(),
      clientId: text(255),
      clientSecret: secret(1000),
    }),
    z.object({
      type: z.literal("tinymdm"),
      name: text(100),
      clientId: text(255),
      clientSecret: secret(1000),
      publicKey: text(255),
      secretKey: secret(1000),
    }),
    z.object({ type: z.literal("telnyx"), name: text(100), apiKey: secret(1000) }),
    z.object({
      type: z.literal("openai"),
      name: text(100),
      apiKey: secret(1000),
      webhookSecret: secret(1000),
      projectId: z
        .string()
        .trim()
        .regex(/^$|^proj_[A-Za-z0-9]+$/, "Project ID looks like proj_…")
        .optional(),
    }),
    z.object({
      type: z.literal("dialer"),
      name: text(100),
      apiUrl: serviceUrl("https://dialer.example.com/hooks").optional(),
      webhookSecret: secret(1000),
    }),
    z.object({
      type: z.literal("ssh"),
      name: text(100),
      host: hostField,
      port: portField,
      username: z
        .string()
        .trim()
        .max(64)
        .regex(/^$|^[A-Za-z0-9._-]+$/, "Letters, digits, . _ - only")
        .optional(),
      privateKey: secret(20000),
      password: secret(1000),
      freepbxConf: z
        .string()
        .trim()
        .regex(/^$|^\/[A-Za-z0-9._/-]+$/, "An absolute path such as /etc/freepbx.conf")
        .optional(),
      /** Clears the pinned host key so the next successful test pins the new one. */
      resetHostKey: z.boolean().optional(),
    }),
    z.object({
      type: z.literal("ami"),
      name: text(100),
      host: hostField,
      port: portField,
      username: z
        .string()
        .trim()
        .max(80)
        .regex(/^$|^[A-Za-z0-9._@-]+$/, "Letters, digits, . _ @ - only")
        .optional(),
      // AMI frames are lines: a line break in the secret would inject a header.
      secret: z
        .string()
        .max(255)
        .regex(/^[^\r\n]*$/, "The secret cannot contain a line break")
        .optional(),
    }),
    z.object({
      type: z.literal("cdr"),
      name: text(100),
      databaseUrl: z
        .string()
        .trim()
        .max(1000)
        .refine(
          (v) => v === "" || cdrDatabaseUrl(v) !== null,
          "Enter a URL such as mysql://user:password@127.0.0.1:3306/asteriskcdrdb",
        )
        .optional(),
    }),
  ]),
);

/** A `mysql://` or `mariadb://` URL with a user and a database name, or null. */
export function cdrDatabaseUrl(
  value: string,
): { host: string; port: number; user: string; password: string; database: string } | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return null;
  }
  if (u.protocol !== "mysql:" && u.protocol !== "mariadb:") return null;
  const database = decodeURIComponent(u.pathname.replace(/^\//, ""));
  if (!u.username || !/^[A-Za-z0-9_$]{1,64}$/.test(database) || !u.hostname) return null;
  const port = u.port ? Number(u.port) : 3306;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return {
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database,
  };
}

export type SaveCredentialInput = z.input<typeof saveCredentialSchema>;
/** A save/test body after parsing (trimmed). */
export type SaveCredential = z.output<typeof saveCredentialSchema>;

/** POST /api/credentials/test: same fields; omitted ones fall back to the stored/env values. */
export const testCredentialSchema = saveCredentialSchema;

/** GET /api/dialer/status: whether the web dialer push is set up (a quiet state when not). */
export interface DialerStatus {
  configured: boolean;
}

/**
 * Off-site backups (ADR 0064): where copies go (an S3-compatible bucket or an SFTP server), the copies sent, the
 * encryption key the administrator keeps, and the restore drill. Request schemas of `/api/backups/*` and the wire
 * types.
 *
 * Each target has one secret (the S3 secret access key, the SFTP password or private key). It is sealed at rest
 * and never returned: the API says `hasSecret`. An edit that leaves it out keeps the stored one.
 */
import { z } from "zod";
import { serviceUrl } from "./credentials";
import { required } from "./fields";
import { lazySchema } from "./lazy-schema";

export const BACKUP_TARGET_KINDS = ["s3", "sftp"] as const;
export type BackupTargetKind = (typeof BACKUP_TARGET_KINDS)[number];
export const BACKUP_TARGET_KIND_LABELS: Record<BackupTargetKind, string> = {
  s3: "S3-compatible bucket",
  sftp: "SFTP server",
};

/** What a copy is of: the console's database, or the PBX backup a deployment took. */
export const BACKUP_SOURCES = ["console", "pbx"] as const;
export type BackupSource = (typeof BACKUP_SOURCES)[number];

export const BACKUP_UPLOAD_STATES = ["running", "ok", "failed", "deleted"] as const;
export type BackupUploadState = (typeof BACKUP_UPLOAD_STATES)[number];

export const SFTP_AUTH = ["password", "key"] as const;
export type SftpAuth = (typeof SFTP_AUTH)[number];

export const BACKUP_TARGET_LIMITS = {
  name: 100,
  keepMax: 1000,
  region: 64,
  bucket: 255,
  prefix: 200,
  accessKeyId: 200,
  secretAccessKey: 200,
  host: 255,
  username: 100,
  directory: 500,
  password: 1000,
  privateKey: 20_000,
} as const;

/** The field messages the server adds after merging an edit with what is stored. */
export const RETYPE_TARGET_SECRET_MESSAGE = "Enter the secret again to send it to a new place";
export const SECRET_REQUIRED_MESSAGE = "Enter the secret for this target";

const HOST_RE = /^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:.]+\]?$/;
const FINGERPRINT_RE = /^SHA256:[A-Za-z0-9+/]{43}$/;

const text = (label: string, max: number) => required(label, max);
const bool = (label: string, fallback: boolean) => z.boolean({ error: `${label} is true or false` }).default(fallback);
const whole = (label: string, min: number, max: number, fallback: number) =>
  z
    .number({ error: `${label} must be a whole number from ${min} to ${max}` })
    .int(`${label} must be a whole number from ${min} to ${max}`)
    .min(min, `${label} must be a whole number from ${min} to ${max}`)
    .max(max, `${label} must be a whole number from ${min} to ${max}`)
    .default(fallback);
/** A secret as typed: not trimmed; empty means "not given" (an edit keeps the stored one). */
const secret = (label: string, max: number) =>
  z
    .string({ error: `${label} must be text` })
    .max(max, `${label} must be at most ${max} characters`)
    .optional()
    .transform((v) => (v ? v : undefined));

const common = () => ({
  name: text("Name", BACKUP_TARGET_LIMITS.name),
  enabled: bool("Enabled", true),
  /** Whether the PBX backups a deployment takes are copied there too. */
  includePbx: bool("Include PBX backups", true),
  /** Copies of each source kept there; the console deletes its oldest beyond this. */
  keep: whole("Copies kept", 1, BACKUP_TARGET_LIMITS.keepMax, 14),
});

const s3Fields = () => ({
  kind: z.literal("s3"),
  ...common(),
  endpoint: z
    .string({ error: "Endpoint is required" })
    .trim()
    .min(1, "Endpoint is required")
    .pipe(serviceUrl("https://s3.eu-central-1.amazonaws.com"))
    .refine((v) => {
      try {
        const u = new URL(v);
        return !u.search && !u.hash;
      } catch {
        return true;
      }
    }, "Leave the query and fragment out of the endpoint"),
  region: z
    .string({ error: "Region must be text" })
    .trim()
    .max(BACKUP_TARGET_LIMITS.region, `Region must be at most ${BACKUP_TARGET_LIMITS.region} characters`)
    .regex(/^[A-Za-z0-9-]*$/, "A region is letters, digits and dashes, such as eu-central-1")
    .optional()
    .transform((v) => v || "us-east-1"),
  bucket: z
    .string({ error: "Bucket is required" })
    .trim()
    .min(1, "Bucket is required")
    .max(BACKUP_TARGET_LIMITS.bucket, `Bucket must be at most ${BACKUP_TARGET_LIMITS.bucket} characters`)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "A bucket name is letters, digits, dots, dashes and underscores"),
  /** A folder in the bucket for the copies (`pbx-console/`); empty puts them at the top. */
  prefix: z
    .string({ error: "Folder must be text" })
    .trim()
    .max(BACKUP_TARGET_LIMITS.prefix, `Folder must be at most ${BACKUP_TARGET_LIMITS.prefix} characters`)
    .regex(/^[A-Za-z0-9._\-/]*$/, "A folder is letters, digits, dots, dashes, underscores and /")
    .refine((v) => !v.startsWith("/") && !v.split("/").includes(".."), "A folder cannot start with / or contain ..")
    .optional()
    .transform((v) => (v ? v.replace(/\/*$/, "/").replace(/\/{2,}/g, "/") : "")),
  accessKeyId: text("Access key ID", BACKUP_TARGET_LIMITS.accessKeyId),
  secretAccessKey: secret("Secret access key", BACKUP_TARGET_LIMITS.secretAccessKey),
  /** The bucket in the host name (`https://bucket.s3.example.com`): some providers need it. */
  virtualHostedStyle: bool("Virtual-hosted style", false),
});

const sftpFields = () => ({
  kind: z.literal("sftp"),
  ...common(),
  host: z
    .string({ error: "Host is required" })
    .trim()
    .min(1, "Host is required")
    .max(BACKUP_TARGET_LIMITS.host, `Host must be at most ${BACKUP_TARGET_LIMITS.host} characters`)
    .regex(HOST_RE, "Enter a host name or IP address such as backup.example.com"),
  port: whole("Port", 1, 65535, 22),
  username: text("User name", BACKUP_TARGET_LIMITS.username).regex(/^[^\s:@]+$/, "A user name has no spaces, : or @"),
  /** Where the copies go on the server: absolute, or relative to the user's home. */
  directory: z
    .string({ error: "Directory must be text" })
    .trim()
    .max(BACKUP_TARGET_LIMITS.directory, `Directory must be at most ${BACKUP_TARGET_LIMITS.directory} characters`)
    .regex(/^[^\0\r\n]*$/, "A directory cannot contain a line break")
    .refine((v) => !v.split("/").includes(".."), "A directory cannot contain ..")
    .optional()
    .transform((v) => (v ? v.replace(/(.)\/+$/, "$1") : ".")),
  auth: z.enum(SFTP_AUTH, { error: "Choose password or private key" }).default("key"),
  password: secret("Password", BACKUP_TARGET_LIMITS.password),
  privateKey: secret("Private key", BACKUP_TARGET_LIMITS.privateKey).refine(
    (v) => v === undefined || /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(v),
    "Paste the private key in OpenSSH or PEM form (-----BEGIN … PRIVATE KEY-----)",
  ),
  /** The server's host key as `SHA256:…` (ssh-keygen -lf); empty pins the key seen on first contact. */
  hostKeyFingerprint: z
    .string({ error: "Host key fingerprint must be text" })
    .trim()
    .optional()
    .transform((v) => (v ? v : null))
    .refine((v) => v === null || FINGERPRINT_RE.test(v), "A fingerprint looks like SHA256: and 43 characters"),
});

function sftpSecretProblems(v: { auth: SftpAuth; password?: string; privateKey?: string }, ctx: z.RefinementCtx) {
  if (v.auth === "password" && v.privateKey !== undefined)
    ctx.addIssue({ code: "custom", path: ["privateKey"], message: "Signing in with a password: leave the key out" });
  if (v.auth === "key" && v.password !== undefined)
    ctx.addIssue({ code: "custom", path: ["password"], message: "Signing in with a key: leave the password out" });
}

/** POST /api/backups/targets: a new target of either kind (its secret is required: the server says so). */
export const backupTargetCreateSchema = lazySchema(() =>
  z.discriminatedUnion("kind", [z.object(s3Fields()), z.object(sftpFields()).superRefine(sftpSecretProblems)], {
    error: "Choose the kind: s3 or sftp",
  }),
);
export type BackupTargetCreateInput = z.input<typeof backupTargetCreateSchema>;
export type BackupTargetCreate = z.output<typeof backupTargetCreateSchema>;

/**
 * PUT /api/backups/targets/{id}: every field as on create (the kind cannot change); the secret left out or empty
 * keeps the stored one, unless the place it goes changed. `forgetHostKey` unpins an SFTP server's host key (after
 * a reinstall), so the next contact pins the new one.
 */
export const backupTargetUpdateSchema = lazySchema(() =>
  z.discriminatedUnion(
    "kind",
    [
      z.object(s3Fields()),
      z
        .object({
          ...sftpFields(),
          forgetHostKey: z.boolean({ error: "Forget host key is true or false" }).optional(),
        })
        .superRefine(sftpSecretProblems),
    ],
    { error: "Choose the kind: s3 or sftp" },
  ),
);
export type BackupTargetUpdateInput = z.input<typeof backupTargetUpdateSchema>;
export type BackupTargetUpdate = z.output<typeof backupTargetUpdateSchema>;

/** POST /api/backups/targets/{id}/drill: the copy to check (default the newest good one). */
export const offsiteDrillSchema = lazySchema(() =>
  z.object({
    uploadId: z
      .number({ error: "Upload must be an upload's id" })
      .int("Upload must be an upload's id")
      .positive("Upload must be an upload's id")
      .optional(),
  }),
);
export type OffsiteDrillRequest = z.output<typeof offsiteDrillSchema>;

/** POST /api/backups/key: the first key, or (with `rotate`) a new one in place of the current. */
export const offsiteKeyCreateSchema = lazySchema(() =>
  z.object({ rotate: z.boolean({ error: "Rotate is true or false" }).optional() }),
);
export type OffsiteKeyCreate = z.output<typeof offsiteKeyCreateSchema>;

/** GET /api/backups/uploads */
export const backupUploadsQuerySchema = lazySchema(() =>
  z.object({
    targetId: z.coerce
      .number({ error: "Target must be a target's id" })
      .int("Target must be a target's id")
      .positive("Target must be a target's id")
      .optional(),
    limit: z.coerce
      .number({ error: "The limit must be a number" })
      .int("The limit must be a whole number")
      .min(1, "The limit is at least 1")
      .max(500, "The limit is at most 500")
      .optional(),
  }),
);
export type BackupUploadsQuery = z.output<typeof backupUploadsQuerySchema>;

export interface S3TargetSettings {
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  virtualHostedStyle: boolean;
}
export interface SftpTargetSettings {
  host: string;
  port: number;
  username: string;
  directory: string;
  auth: SftpAuth;
  /** The pinned host key; null until the first contact. */
  hostKeyFingerprint: string | null;
}
export interface BackupTargetSettingsByKind {
  s3: S3TargetSettings;
  sftp: SftpTargetSettings;
}

/** The last restore drill of a target. */
export interface OffsiteDrill {
  at: string;
  ok: boolean;
  /** What was found: "a pbx-console database: 2 users, 14 extensions" or why it failed. */
  message: string;
  uploadId: number | null;
  name: string | null;
  /** When a drill of this target last passed (this one or an earlier one). */
  lastPassedAt: string | null;
}

/** One copy sent (or being sent, or that failed) to a target. */
export interface BackupUpload {
  id: number;
  targetId: number;
  targetName: string;
  source: BackupSource;
  /** The object's name (S3 key or SFTP path) at the target. */
  name: string;
  /** The encrypted bytes sent (so far, while running). */
  bytes: number | null;
  /** SHA-256 of the encrypted object, hex. */
  sha256: string | null;
  keyId: string | null;
  state: BackupUploadState;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

interface BackupTargetCommon {
  id: number;
  name: string;
  enabled: boolean;
  includePbx: boolean;
  keep: number;
  /** Whether the target's secret is stored (it is never returned). */
  hasSecret: boolean;
  /** Where copies go, in words and without any secret. */
  where: string;
  /** When a copy of the console's database last reached it. */
  lastSuccessAt: string | null;
  /** The newest upload of any source (running, ok or failed). */
  lastUpload: BackupUpload | null;
  lastDrill: OffsiteDrill | null;
  /** An upload or drill of this target queued or running. */
  busy: "upload" | "drill" | null;
  createdAt: string;
  updatedAt: string;
}

/** GET /api/backups/targets: one target. */
export type BackupTarget = {
  [K in BackupTargetKind]: BackupTargetCommon & { kind: K; settings: BackupTargetSettingsByKind[K] };
}[BackupTargetKind];

/** POST /api/backups/targets/{id}/test */
export interface BackupTargetTestResult {
  ok: boolean;
  message: string;
  /** An SFTP server's host key, pinned by this test when none was. */
  hostKeyFingerprint?: string;
}

/** POST …/upload and …/drill: queued behind any upload or drill already running. */
export interface OffsiteQueued {
  queued: true;
  targetId: number;
}

/** An earlier key that copies still at a target are encrypted with. */
export interface OffsitePreviousKey {
  keyId: string;
  createdAt: string;
  retiredAt: string;
  /** Copies at the targets that need it. */
  copies: number;
}

/** GET /api/backups/key: which key encrypts new copies (never the key itself). */
export interface OffsiteKeyView {
  keyId: string | null;
  createdAt: string | null;
  previous: OffsitePreviousKey[];
}

/** POST /api/backups/key: the only answer that carries the key. */
export interface CreatedOffsiteKey {
  key: string;
  keyId: string;
  createdAt: string;
}

/** The file the administrator downloads with the key (a line per comment, then the key). */
export function offsiteKeyFile(k: CreatedOffsiteKey): { name: string; text: string } {
  return {
    name: `pbx-console-offsite-key-${k.keyId}.txt`,
    text: [
      `# pbx-console off-site backup key ${k.keyId}, made ${k.createdAt}`,
      "# Keep it away from this server. Copies made with it decrypt only with it:",
      "#   pbx-console restore COPY --key-file THIS-FILE",
      k.key,
      "",
    ].join("\n"),
  };
}

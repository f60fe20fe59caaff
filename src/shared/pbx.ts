import { z } from "zod";
import { lazySchema } from "./lazy-schema";

/** Wire shapes of deployment to the PBX and of the Sync screen (compare and import). */

export type DeployKind = "trunk" | "extension" | "outboundRoute" | "inboundRoute" | "pttGroup";

export interface DeployItemResult {
  kind: DeployKind;
  /** Extension number, trunk name, route name, DID or group number. */
  name: string;
  label: string;
  /** The same key again, under the name of its kind (API clients read `trunk` / `extension`). */
  trunk?: string;
  extension?: string;
  status: "success" | "failed";
  message: string;
  /** How the item reached the PBX. */
  via: "ssh" | "graphql" | null;
  /** What the plan said of it (ADR 0025): create, update, delete, conflict (adopted or not written), unchanged. */
  action?: "create" | "update" | "delete" | "conflict" | "unchanged";
}

export interface ReloadResult {
  ok: boolean;
  via: "ssh" | "graphql";
  exitCode: number | null;
  /** The reload's output (its last 4,000 characters), kept with the job. */
  output: string;
  /** Why it failed, read from the output (`fwconsole reload`'s error block or "Reload failed because …"); null when it worked. */
  reason?: string | null;
}

export interface DeployGroupResult {
  deployed: number;
  failed: number;
  results: DeployItemResult[];
}

export interface DeployResponse extends DeployGroupResult {
  reload: ReloadResult | null;
}

export interface DeployAllResponse {
  trunks: DeployGroupResult;
  extensions: DeployGroupResult;
  outboundRoutes: DeployGroupResult;
  inboundRoutes: DeployGroupResult;
  reload: ReloadResult | null;
}

/** GET /api/deploy/status: which paths are configured and FreePBX's "reload needed" flag. */
/**
 * Whether a way to the PBX works, not only whether it is configured: `connected` (SSH: this status was
 * read over it; the FreePBX API: its last Test Connection succeeded), `failed` (with the reason),
 * `untested` (configured, never tested since it was saved) or `not-configured`.
 */
export interface PbxPathState {
  state: "connected" | "failed" | "untested" | "not-configured";
  message: string | null;
}

export interface PbxStatus {
  /** SSH is configured. */
  ssh: boolean;
  /** The FreePBX API is configured. */
  graphql: boolean;
  paths: { ssh: PbxPathState; graphql: PbxPathState };
  needReload: boolean | null;
  message: string | null;
}

export interface ExtensionComparison {
  extension: string;
  inDashboard: boolean;
  needsSync: boolean;
  freepbx: { name: string | null };
  dashboard: { name: string | null };
}
export interface TrunkComparison {
  name: string;
  inDashboard: boolean;
  needsSync: boolean;
  freepbx: { host: string | null };
  dashboard: { host: string | null };
}
export interface CompareResponse<Row> {
  freepbxCount: number;
  dashboardCount: number;
  comparison: Row[];
  /** How the PBX was read. */
  via: "ssh" | "graphql";
}
export interface ImportResult {
  created: number;
  updated: number;
  /** Objects the console already held as the PBX has them (not written; adopted when not yet managed). */
  unchanged?: number;
  failed: number;
  errors?: string[];
}

// ---------- sync import ----------

export const importExtensionsSchema = lazySchema(() =>
  z.object({
    extensions: z.array(z.string().regex(/^\d{1,20}$/, "Extension numbers are digits")).default([]),
    mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
  }),
);
export type ImportExtensionsInput = z.output<typeof importExtensionsSchema>;

export const importTrunksSchema = lazySchema(() =>
  z.object({
    trunks: z.array(z.string().min(1).max(50)).default([]),
    mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
  }),
);
export type ImportTrunksInput = z.output<typeof importTrunksSchema>;

/**
 * Plan, then apply (ADR 0025): what a deployment would do to the live PBX, per
 * object, before anything is written. `POST /api/deploy/plan` answers a `DeployPlan`; `POST /api/deploy/apply`
 * applies exactly that plan (its fingerprint) with the user's conflict resolutions. The Sync import has its
 * own plan (`ImportPlan`, below): what importing PBX objects does in the console.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";
import {
  type DeployKind,
  importExtensionsSchema,
  importQueuesSchema,
  importRingGroupsSchema,
  importTrunksSchema,
} from "./pbx";
import type { RerouteCall } from "./routing";

export const PLAN_TARGETS = [
  "trunks",
  "extensions",
  "ptt-groups",
  "ring-groups",
  "queues",
  "ivrs",
  "announcements",
  "time-groups",
  "time-conditions",
  "all",
] as const;
export type PlanTarget = (typeof PLAN_TARGETS)[number];

/**
 * - create: not on the PBX; the console writes it (with FreePBX's form defaults) and then manages it.
 * - update: the console manages it; the owned fields listed change.
 * - delete: the console manages it but it was removed in the console; its FreePBX rows (and AstDB) go.
 * - conflict: on the PBX with the same number/name, not managed by the console: adopt or skip.
 * - unchanged: managed, and every owned field already has the console's value.
 */
export const PLAN_ACTIONS = ["create", "update", "delete", "conflict", "unchanged"] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

/** One console-owned field (ownership.ts): its value on the PBX and the console's. Secrets are masked. */
export interface FieldChange {
  /** Where FreePBX keeps it: `devices.description`, `sip.secret`, `pjsip.sip_server`, `outbound_route_patterns`… */
  field: string;
  /** null: absent on the PBX. */
  from: string | null;
  /** null: removed. */
  to: string | null;
  /** A secret: `from`/`to` are masked ("••••••"), only the fact that it changes is shown. */
  secret?: boolean;
}

export interface PlanItem {
  /** `<kind>:<key>`: the key of a resolution. */
  id: string;
  kind: DeployKind;
  /** Extension number, trunk name, route name, DID or group number. */
  key: string;
  label: string;
  action: PlanAction;
  /** The object's PBX-side id (trunkid, route_id) when it has one and it is known. */
  pbxId: string | null;
  /** update / conflict (what adopting changes) / create (the values written); empty otherwise. */
  changes: FieldChange[];
  /** Why: the conflict's explanation, a rename ("renamed from …"), a delete's scope. */
  note?: string;
}

/** An object the console holds but cannot deploy (a value FreePBX cannot hold, or no way to write it). */
export interface PlanRefused {
  kind: DeployKind;
  key: string;
  reason: string;
}

export type PlanCounts = Record<PlanAction, number>;

export interface DeployPlan {
  target: PlanTarget;
  /** How the PBX was read (and will be written). */
  via: "ssh" | "graphql";
  /** A hash of the live state of the touched rows and of the console's desired state: apply needs the same. */
  fingerprint: string;
  items: PlanItem[];
  refused: PlanRefused[];
  counts: PlanCounts;
  /** When the PBX was read (ISO 8601). */
  readAt: string;
  /**
   * The DIDs whose calls this deploy reroutes, each path on the PBX now and after (ADR 0058); only on a plan
   * read over SSH of a target with inbound routes.
   */
  calls?: RerouteCall[];
}

export const planRequestSchema = lazySchema(() =>
  z.object({
    target: z.enum(PLAN_TARGETS, {
      error: "Target must be trunks, extensions, ptt-groups, ring-groups, queues or all",
    }),
  }),
);
export type PlanRequest = z.output<typeof planRequestSchema>;

export const RESOLUTIONS = ["adopt", "skip"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const applyRequestSchema = lazySchema(() =>
  z.object({
    target: z.enum(PLAN_TARGETS, {
      error: "Target must be trunks, extensions, ptt-groups, ring-groups, queues or all",
    }),
    fingerprint: z
      .string({ error: "The plan's fingerprint is required" })
      .regex(/^[0-9a-f]{64}$/, "Not a plan fingerprint"),
    /** `"<kind>:<key>"` → adopt or skip, for conflicts; a conflict without one is skipped. */
    resolutions: z
      .record(z.string().max(200), z.enum(RESOLUTIONS, { error: "A resolution is adopt or skip" }))
      .default({}),
  }),
);
export type ApplyRequest = z.output<typeof applyRequestSchema>;

/** 409 of apply when the PBX or the console changed since the plan: the message and the new plan. */
export interface StalePlanAnswer {
  error: { message: string };
  plan: DeployPlan;
}

export const STALE_PLAN_MESSAGE = "The PBX or the console changed since this plan: review the new plan";

export const planItemId = (kind: DeployKind, key: string) => `${kind}:${key}`;

export const emptyCounts = (): PlanCounts => ({ create: 0, update: 0, delete: 0, conflict: 0, unchanged: 0 });

// ---------- Sync import: the review before importing from the PBX (ADR 0025, "Sync import") ----------

/**
 * What importing one PBX object does in the console:
 * - create: a new console object with the listed values;
 * - update: the console object's fields change, each from → to;
 * - unchanged: the console already holds the PBX's values;
 * - refused: the console cannot hold it (the reason: a value the console's validator refuses, a number a PTT
 *   group holds, not on the PBX any more).
 */
export const IMPORT_ACTIONS = ["create", "update", "unchanged", "refused"] as const;
export type ImportAction = (typeof IMPORT_ACTIONS)[number];
export type ImportCounts = Record<ImportAction, number>;

export const IMPORT_KINDS = ["extensions", "trunks", "ring-groups", "queues", "ivrs", "announcements"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export interface ImportPlanItem {
  /** `<kind>:<key>`. */
  id: string;
  kind: "extension" | "trunk" | "ringGroup" | "queue" | "ivr" | "announcement";
  /** Extension, ring group or queue number, trunk name, or FreePBX's id of an IVR or announcement (as on the PBX). */
  key: string;
  label: string;
  action: ImportAction;
  /** The console's fields (`name`, `voicemail`, `host`…): create lists the values, update the ones that change. Secrets masked. */
  changes: FieldChange[];
  /** The console starts managing this PBX object (a `pbx_objects` record with origin `import`); false: it already does. */
  adopt: boolean;
  /** The console row it updates (update, unchanged). */
  consoleId: number | null;
  /** FreePBX's trunkid (trunks). */
  pbxId: string | null;
  /** refused: why. */
  reason?: string;
  note?: string;
}

export interface ImportPlan {
  kind: ImportKind;
  mode: "all" | "selected";
  /** How the PBX was read. */
  via: "ssh" | "graphql";
  /** A hash of the PBX rows read and the console rows concerned: the import needs the same. */
  fingerprint: string;
  items: ImportPlanItem[];
  counts: ImportCounts;
  /** How many objects the console starts managing. */
  adopts: number;
  /** When the PBX was read (ISO 8601). */
  readAt: string;
  /**
   * The DIDs whose calls this deploy reroutes, each path on the PBX now and after (ADR 0058); only on a plan
   * read over SSH of a target with inbound routes.
   */
  calls?: RerouteCall[];
}

export const emptyImportCounts = (): ImportCounts => ({ create: 0, update: 0, unchanged: 0, refused: 0 });

const importFingerprint = lazySchema(() =>
  z
    .string()
    .regex(/^[0-9a-f]{64}$/, "Not a plan fingerprint")
    .optional()
    .describe(
      "The fingerprint of the plan the user reviewed (POST /api/sync/<kind>/plan). When given and the PBX or the console changed since, the answer is 409 with the new plan and nothing is imported; when left out (API clients), the import runs without a review.",
    ),
);

/** POST /api/sync/extensions/import: the selection, and the reviewed plan's fingerprint (optional). */
export const importExtensionsRequestSchema = lazySchema(() =>
  importExtensionsSchema.extend({ fingerprint: importFingerprint }),
);
export type ImportExtensionsRequest = z.output<typeof importExtensionsRequestSchema>;
/** POST /api/sync/trunks/import. */
export const importTrunksRequestSchema = lazySchema(() =>
  importTrunksSchema.extend({ fingerprint: importFingerprint }),
);
export type ImportTrunksRequest = z.output<typeof importTrunksRequestSchema>;
/** POST /api/sync/ring-groups/import. */
export const importRingGroupsRequestSchema = lazySchema(() =>
  importRingGroupsSchema.extend({ fingerprint: importFingerprint }),
);
export type ImportRingGroupsRequest = z.output<typeof importRingGroupsRequestSchema>;
/** POST /api/sync/queues/import. */
export const importQueuesRequestSchema = lazySchema(() =>
  importQueuesSchema.extend({ fingerprint: importFingerprint }),
);
export type ImportQueuesRequest = z.output<typeof importQueuesRequestSchema>;
/** What any import's request is. */
export type ImportRequest =
  | ImportExtensionsRequest
  | ImportTrunksRequest
  | ImportRingGroupsRequest
  | ImportQueuesRequest;

/** 409 of an import when the PBX or the console changed since the reviewed plan (STALE_PLAN_MESSAGE). */
export interface StaleImportPlanAnswer {
  error: { message: string };
  plan: ImportPlan;
}

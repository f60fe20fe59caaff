/**
 * The PBX as a document (ADR 0075): everything the console owns as one versioned JSON or YAML document,
 * `GET /api/config/export`; `POST /api/config/plan` turns a document into a reviewed plan of what would change
 * in the console (creates, field-level updates, deletes only with `prune`), and `POST /api/config/apply` applies
 * exactly that plan by its fingerprint. The published JSON Schema is `GET /api/config/schema`.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";
import type { FieldChange } from "./plan";

/** The document format this console writes and reads. */
export const CONFIG_DOCUMENT_VERSION = 1;

/**
 * The document's lists, in the order the console writes them (what an object refers to comes before it; deletes
 * go the other way).
 */
export const CONFIG_KINDS = [
  "trunks",
  "timeGroups",
  "extensions",
  "pttGroups",
  "ringGroups",
  "queues",
  "announcements",
  "ivrs",
  "timeConditions",
  "outboundRoutes",
  "inboundRoutes",
  "aiAssistants",
  "aiRoutingRules",
] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

/** How each kind reads in a plan ("Extension 1001"). */
export const CONFIG_KIND_LABELS: Record<ConfigKind, string> = {
  trunks: "Trunk",
  timeGroups: "Time group",
  extensions: "Extension",
  pttGroups: "Page group",
  ringGroups: "Ring group",
  queues: "Queue",
  announcements: "Announcement",
  ivrs: "IVR",
  timeConditions: "Time condition",
  outboundRoutes: "Outbound route",
  inboundRoutes: "Inbound route",
  aiAssistants: "AI assistant",
  aiRoutingRules: "AI routing rule",
};

/**
 * A secret in a document: never its value, a reference to the one this console holds for that object
 * (`extensions/1001`). A document may carry a new secret in clear instead (a string); the plan masks it.
 */
export interface SecretRef {
  ref: string;
}

/** The whole document: the version and any of the lists (a fragment names only the kinds it is about). */
export type ConfigDocument = { version: number } & Partial<Record<ConfigKind, Record<string, unknown>[]>>;

/** The plan's actions: what the console would do to one of its objects. */
export const CONFIG_ACTIONS = ["create", "update", "delete", "unchanged"] as const;
export type ConfigAction = (typeof CONFIG_ACTIONS)[number];
export type ConfigCounts = Record<ConfigAction, number>;

/** One object of the plan, in the deploy plan's shape (`PlanItem`): its changes field by field, secrets masked. */
export interface ConfigPlanItem {
  /** `<kind>:<key>`. */
  id: string;
  kind: ConfigKind;
  /** The object's key in the document: number, name or DID. */
  key: string;
  label: string;
  action: ConfigAction;
  /** The console's id of the object (update, delete, unchanged). */
  consoleId: number | null;
  changes: FieldChange[];
  note?: string;
}

export interface ConfigPlan {
  /** A hash of the console's objects as read and of the document: apply needs the same. */
  fingerprint: string;
  prune: boolean;
  /** The kinds the document names: only these are compared (and pruned). */
  kinds: ConfigKind[];
  items: ConfigPlanItem[];
  counts: ConfigCounts;
  /** When the console was read (ISO 8601). */
  readAt: string;
}

/** What an apply did: the counts of the plan it ran. */
export interface ConfigApplyResult {
  fingerprint: string;
  counts: ConfigCounts;
  appliedAt: string;
}

/** 409 of apply when the console changed since the plan: the message and the new plan. */
export interface StaleConfigPlanAnswer {
  error: { message: string };
  plan: ConfigPlan;
}

export const STALE_CONFIG_PLAN_MESSAGE = "The console changed since this plan: review the new plan";

export const emptyConfigCounts = (): ConfigCounts => ({ create: 0, update: 0, delete: 0, unchanged: 0 });

/** The largest document a plan takes: 5,000 extensions in JSON are about 2 MB. */
export const CONFIG_DOCUMENT_MAX_BYTES = 16 * 1024 * 1024;

/** POST /api/config/plan. */
export const configPlanRequestSchema = lazySchema(() =>
  z.object({
    /** The document as JSON, or its YAML (or JSON) text. */
    document: z.union([z.record(z.string(), z.unknown()), z.string().max(CONFIG_DOCUMENT_MAX_BYTES)], {
      error: "document must be the document (an object) or its YAML text",
    }),
    /** Delete the console's objects of the document's kinds that the document does not list. */
    prune: z.boolean({ error: "prune must be true or false" }).default(false),
  }),
);
export type ConfigPlanRequest = z.output<typeof configPlanRequestSchema>;

/** POST /api/config/apply. */
export const configApplyRequestSchema = lazySchema(() =>
  z.object({
    fingerprint: z
      .string({ error: "The plan's fingerprint is required" })
      .regex(/^[0-9a-f]{64}$/, "Not a plan fingerprint"),
  }),
);

/** GET /api/config/export?format=yaml|json. */
export const configExportQuerySchema = lazySchema(() =>
  z.object({
    format: z.enum(["json", "yaml"], { error: "format must be json or yaml" }).default("json"),
  }),
);

/** A path as the refusals write it: `extensions[3].secret`. */
export function documentPath(parts: readonly (string | number)[]): string {
  let out = "";
  for (const p of parts) out += typeof p === "number" ? `[${p}]` : out ? `.${p}` : p;
  return out || "document";
}

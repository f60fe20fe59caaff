/** The audit trail: who did what, when, from where, to which object (GET /api/audit, the Audit screen). */
import { z } from "zod";
import { limitParam } from "./fields";
import { lazySchema } from "./lazy-schema";

/** How an audited call ended: done, refused by the role check, or failed (bad input, conflict, outside service). */
export const AUDIT_OUTCOMES = ["ok", "denied", "failed"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** One field's change: before and after as text (secrets are shown as `AUDIT_MASK`, never their value). */
export interface AuditChange {
  field: string;
  /** Absent for a created object (and for a field it did not have before). */
  from?: string;
  /** Absent for a deleted object (and for a field it no longer has). */
  to?: string;
}

/** What a secret field's value is recorded as (the audit never stores a secret). */
export const AUDIT_MASK = "••••••";

/** GET /api/audit: one recorded action (rows are never changed or deleted through the API). */
export interface AuditEntry {
  id: number;
  /** ISO 8601 time. */
  at: string;
  /** The username (or `token:<name>#<id>` for an API token, `system` for scheduled work, `cli` for the binary's commands). */
  actor: string;
  /** The client's address (the TCP peer), null for work the console started itself. */
  clientIp: string | null;
  /** Dotted action name, e.g. `auth.login`, `extension.create`, `deploy.all`, `backup.download`. */
  action: string;
  outcome: AuditOutcome;
  /** The object kind (`extension`, `user`, `credential`…), null for actions without one. */
  objectType: string | null;
  /** The object's id in the console (or the service type of a credential). */
  objectId: string | null;
  /** A human name for the object (extension number, trunk name, username…). */
  objectLabel: string | null;
  /** Field-level before/after. */
  changes: AuditChange[];
  /** A one-line result or reason (e.g. the refusal message, or "3 created, 1 failed"). */
  detail: string | null;
}

export interface AuditPage {
  items: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 500;

/** The filters of GET /api/audit and GET /api/audit/export.csv (query string values). */
export const auditFilterSchema = lazySchema(() =>
  z.object({
    /** Exact username (or `token:<name>#<id>`, `system`, `cli`). */
    actor: z.string().trim().max(100, "The actor is at most 100 characters").optional(),
    /** An action (`extension.create`) or an action prefix ending in a dot (`extension.`, `auth.`). */
    action: z
      .string()
      .trim()
      .max(64, "The action is at most 64 characters")
      .regex(/^[a-z0-9_.-]*$/, "Use an action name like extension.create or a prefix like extension.")
      .optional(),
    /** Free text: matched in the object, its label, the actor, the address, the detail and the changes. */
    q: z.string().trim().max(200, "The search is at most 200 characters").optional(),
    outcome: z.enum(AUDIT_OUTCOMES, { error: "Choose ok, denied or failed" }).optional(),
  }),
);

export const auditQuerySchema = lazySchema(() =>
  auditFilterSchema.extend({
    limit: limitParam(AUDIT_PAGE_MAX),
    /** The `nextCursor` of the previous page. */
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, "The cursor is not one this console gave out")
      .optional(),
  }),
);

export type AuditFilter = z.infer<typeof auditFilterSchema>;
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** The CSV export's columns, in order (a header line, then one line per entry, newest first). */
export const AUDIT_CSV_COLUMNS = [
  "time",
  "actor",
  "client_ip",
  "action",
  "outcome",
  "object_type",
  "object_id",
  "object",
  "changes",
  "detail",
] as const;

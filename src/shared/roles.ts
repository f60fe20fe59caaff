/**
 * The roles and what each may do, without zod: the web app's shell (sidebar, `useRole`) needs only
 * these, and importing `users.ts` (its schemas) would put zod in the first chunk (ADR 0030).
 */

/**
 * The roles, from most to least allowed. `admin`: everything. `operator`: inventory, deployment, calls and
 * the PBX, but not credentials, users, backups or API tokens. `viewer`: reads only (no secrets).
 */
export const ROLES = ["admin", "operator", "viewer"] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` is at least `needed` (roles are ordered: viewer < operator < admin). */
export const roleAllows = (role: Role, needed: Role) => RANK[role] >= RANK[needed];

export const ROLE_LABELS: Record<Role, string> = { admin: "Administrator", operator: "Operator", viewer: "Viewer" };

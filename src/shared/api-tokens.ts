/**
 * REST API tokens (ADR 0074): made by an administrator with a role, an optional expiry and optional source
 * networks; sent as `Authorization: Bearer pbxt_…`, they act with that role on every route that accepts
 * tokens. The voice bridge's transcript intake tokens are ./ai/api-tokens.ts.
 */
import { z } from "zod";
import { required } from "./fields";
import { parseNetwork } from "./ip";
import { lazySchema } from "./lazy-schema";
import type { Role } from "./roles";
import { roleSchema } from "./users";

/** Every token (REST and intake) starts with this, so the transport knows a token from another bearer value. */
export const API_TOKEN_PREFIX = "pbxt_";

/** The furthest expiry a token may be given: a token that must outlive it is made again. */
export const API_TOKEN_MAX_DAYS = 730;
export const API_TOKEN_MAX_NETWORKS = 20;

export const EXPIRY_NOT_A_TIME = "Expiry must be a date and time (ISO 8601, e.g. 2027-01-31T23:59:59Z)";
export const EXPIRY_IN_THE_PAST = "Expiry must be in the future";
export const EXPIRY_TOO_FAR = `Expiry must be at most ${API_TOKEN_MAX_DAYS} days ahead`;
export const TOKEN_NOT_A_NETWORK = "Enter an address or network in address/prefix form (e.g. 198.51.100.0/24)";

/** Why `expiresAt` (epoch ms) is refused at `now`, or null when it is fine. The server decides with its own clock. */
export function expiryProblem(expiresAt: number, now: number): string | null {
  if (expiresAt <= now) return EXPIRY_IN_THE_PAST;
  if (expiresAt > now + API_TOKEN_MAX_DAYS * 24 * 60 * 60 * 1000) return EXPIRY_TOO_FAR;
  return null;
}

const network = () =>
  z
    .string({ error: TOKEN_NOT_A_NETWORK })
    .trim()
    .max(49, TOKEN_NOT_A_NETWORK)
    .transform((v, ctx) => {
      const net = parseNetwork(v);
      if (!net) {
        ctx.addIssue({ code: "custom", message: TOKEN_NOT_A_NETWORK });
        return z.NEVER;
      }
      return net.text;
    });

/** The networks, canonical and without repeats. */
const networks = () =>
  z
    .array(network(), { error: "Networks must be a list of addresses or networks" })
    .max(API_TOKEN_MAX_NETWORKS, `At most ${API_TOKEN_MAX_NETWORKS} networks`)
    .transform((list) => [...new Set(list)]);

/** POST /api/tokens. `expiresAt` is checked against the server's clock (`expiryProblem`) after this. */
export const newApiTokenSchema = lazySchema(() =>
  z.object({
    name: required("Name", 100),
    role: roleSchema,
    expiresAt: z.iso
      .datetime({ offset: true, error: EXPIRY_NOT_A_TIME })
      .nullable()
      .optional()
      .transform((v) => v ?? null),
    networks: networks().optional().default([]),
  }),
);
export type NewApiTokenRequest = z.input<typeof newApiTokenSchema>;
export type NewApiToken = z.output<typeof newApiTokenSchema>;

/** A date input's value (`YYYY-MM-DD`) as the end of that day in the browser's zone. */
const endOfLocalDay = (day: string) => new Date(`${day}T23:59:59.999`);

/** The Settings form's networks: one per line, or separated by commas or spaces. */
const networkEntries = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * The Settings form: a date (the token works until that day ends, in the browser's zone) and the networks as
 * text. Its values become the POST /api/tokens body through `apiTokenRequest`.
 */
export const apiTokenFormSchema = lazySchema(() =>
  z.object({
    name: required("Name", 100),
    role: roleSchema,
    expiresAt: z
      .string()
      .trim()
      .superRefine((v, ctx) => {
        if (v === "") return;
        const at = /^\d{4}-\d{2}-\d{2}$/.test(v) ? endOfLocalDay(v).getTime() : Number.NaN;
        const problem = Number.isNaN(at) ? "Choose a date" : expiryProblem(at, Date.now());
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    networks: z
      .string()
      .max(2000, "At most 2000 characters")
      .superRefine((v, ctx) => {
        const entries = networkEntries(v);
        const bad = entries.find((e) => !parseNetwork(e));
        if (entries.length > API_TOKEN_MAX_NETWORKS) {
          ctx.addIssue({ code: "custom", message: `At most ${API_TOKEN_MAX_NETWORKS} networks` });
        } else if (bad !== undefined) {
          ctx.addIssue({ code: "custom", message: `“${bad.slice(0, 49)}”: ${TOKEN_NOT_A_NETWORK}` });
        }
      }),
  }),
);
export type ApiTokenForm = z.output<typeof apiTokenFormSchema>;

/** The Settings form's values as the POST /api/tokens body. */
export const apiTokenRequest = (f: ApiTokenForm): NewApiTokenRequest => ({
  name: f.name,
  role: f.role,
  expiresAt: f.expiresAt ? endOfLocalDay(f.expiresAt).toISOString() : null,
  networks: networkEntries(f.networks),
});

export type ApiTokenState = "active" | "expired" | "revoked";

/** GET /api/tokens: one REST API token, never its secret or hash. */
export interface ApiAccessToken {
  id: number;
  name: string;
  role: Role;
  /** The token's first characters, e.g. "pbxt_a1b2", and its last four: enough to recognise it. */
  prefix: string;
  last4: string;
  expiresAt: string | null;
  /** Where it may be used from (canonical `address/prefix`); empty: anywhere. */
  networks: string[];
  createdAt: string;
  /** The administrator who made it. */
  createdBy: string | null;
  lastUsedAt: string | null;
  /** The client address of its last accepted request. */
  lastUsedFrom: string | null;
  revokedAt: string | null;
  state: ApiTokenState;
}

/** POST /api/tokens: the only answer that carries the token itself. */
export interface CreatedApiAccessToken extends ApiAccessToken {
  token: string;
}

/**
 * The answer to a bearer token that is not accepted: one message whatever the reason (unknown, revoked,
 * expired, the wrong kind, or not from its networks), so a caller learns nothing about a token it holds.
 */
export const API_TOKEN_REFUSED = "API token not accepted: unknown, revoked, expired or not allowed from this address";

/** The answer to a token on a route that never takes one (ADR 0074). */
export const API_TOKEN_NOT_HERE = "This endpoint does not accept API tokens: sign in to the console";

/**
 * REST API tokens (ADR 0074): an administrator makes one with a role, an optional expiry and optional source
 * networks; it is shown once and kept as its SHA-256 (./tokens.ts makes it). A request that sends
 * `Authorization: Bearer pbxt_…` to a route that accepts tokens is that token's: the transport calls
 * `authenticateApiToken`, and the route's own role check then applies to the token's role.
 */
import { desc, eq } from "drizzle-orm";
import { apiTokens } from "../../db/schema";
import {
  API_TOKEN_PREFIX,
  API_TOKEN_REFUSED,
  type ApiAccessToken,
  type ApiTokenState,
  type CreatedApiAccessToken,
  expiryProblem,
  type NewApiToken,
} from "../../shared/api-tokens";
import type { SessionUser } from "../../shared/auth";
import { networkContains, parseIp, parseNetwork } from "../../shared/ip";
import type { Deps } from "../core/deps";
import { Invalid, Unauthenticated } from "../core/errors";
import type { LoginThrottle } from "./throttle";
import {
  checkTokenThrottle,
  hashToken,
  iso,
  newTokenSecret,
  revokeApiToken,
  type TokenRow,
  tokenRefused,
} from "./tokens";

const SCOPE = "api";
/** A token's last use is written when it is this much older than the use (or came from another address). */
export const USE_WRITTEN_EVERY_MS = 60 * 1000;

function stateOf(row: TokenRow, now: number): ApiTokenState {
  if (row.revokedAt) return "revoked";
  if (row.expiresAt && row.expiresAt.getTime() <= now) return "expired";
  return "active";
}

/** A stored REST token as the API lists it: never its hash. */
function toAccessToken(row: TokenRow, now: number): ApiAccessToken {
  return {
    id: row.id,
    name: row.name,
    role: row.role ?? "viewer",
    prefix: row.prefix,
    last4: row.last4,
    expiresAt: iso(row.expiresAt),
    networks: row.networks,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    lastUsedAt: iso(row.lastUsedAt),
    lastUsedFrom: row.lastUsedFrom,
    revokedAt: iso(row.revokedAt),
    state: stateOf(row, now),
  };
}

/** GET /api/tokens: newest first, revoked and expired ones included. */
export const listAccessTokens = (deps: Pick<Deps, "db" | "now">): ApiAccessToken[] =>
  deps.db
    .select()
    .from(apiTokens)
    .where(eq(apiTokens.scope, SCOPE))
    .orderBy(desc(apiTokens.id))
    .all()
    .map((row) => toAccessToken(row, deps.now()));

/** POST /api/tokens: the answer is the only place the token ever appears. */
export function createAccessToken(
  deps: Pick<Deps, "db" | "events" | "now">,
  creator: Pick<SessionUser, "id" | "username">,
  input: NewApiToken,
): CreatedApiAccessToken {
  const now = deps.now();
  const expiresAt = input.expiresAt === null ? null : Date.parse(input.expiresAt);
  if (expiresAt !== null) {
    const problem = expiryProblem(expiresAt, now);
    if (problem) throw new Invalid(`Invalid request: ${problem}`, { expiresAt: problem });
  }
  const { token, ...stored } = newTokenSecret();
  const row = deps.db
    .insert(apiTokens)
    .values({
      name: input.name,
      scope: SCOPE,
      role: input.role,
      expiresAt: expiresAt === null ? null : new Date(expiresAt),
      networks: input.networks,
      createdBy: creator.username,
      createdByUserId: creator.id,
      createdAt: new Date(now),
      ...stored,
    })
    .returning()
    .get();
  deps.events.publish({ type: "api-tokens-updated", data: { id: row.id, action: "created" } });
  return { ...toAccessToken(row, now), token };
}

/** DELETE /api/tokens/:id: the very next request with it is refused; it stays listed as revoked. */
export const revokeAccessToken = (deps: Pick<Deps, "db" | "events" | "now">, rawId: string | undefined) =>
  revokeApiToken(deps, rawId, SCOPE);

/**
 * The token of a request, when it sends one of ours: `Authorization: Bearer pbxt_…`. Any other
 * Authorization (Basic from a proxy's own sign-in, another system's bearer token) is not ours to judge: the
 * request is then a browser's like any other.
 */
export function bearerApiToken(headers: Headers): string | null {
  const header = headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1]?.startsWith(API_TOKEN_PREFIX) ? match[1] : null;
}

/** Who a token's request acts as. */
export interface TokenPrincipal {
  tokenId: number;
  /** The route handlers' view of the caller: the token's role, and its name as the actor. */
  user: SessionUser;
}

/** The actor a token's calls are recorded under: `token:<name>#<id>`. */
export const tokenActor = (name: string, id: number) => `token:${name}#${id}`;

const withinNetworks = (networks: readonly string[], ip: string | null): boolean => {
  if (networks.length === 0) return true;
  const address = ip === null ? null : parseIp(ip);
  if (!address) return false;
  return networks.some((text) => {
    const network = parseNetwork(text);
    return network !== null && networkContains(network, address);
  });
};

/**
 * A bearer token's request: 429 while refused tokens from this address ask for a pause (the token is not
 * looked up), else the token when it is a REST token that is not revoked, not expired, and allows `ip`; any
 * other answer is 401 with one message, counted against the address and logged like a failed sign-in. The
 * use (time, address) is recorded. Synchronous from the throttle's check to its record: no other request can
 * run in between.
 */
export function authenticateApiToken(
  deps: Pick<Deps, "db" | "now"> & { throttle: LoginThrottle },
  token: string,
  ip: string | null,
): TokenPrincipal {
  checkTokenThrottle(deps.throttle, ip);
  const now = deps.now();
  const row = deps.db
    .select()
    .from(apiTokens)
    .where(eq(apiTokens.tokenHash, hashToken(token)))
    .get();
  const role = row?.scope === SCOPE ? row.role : null;
  if (!row || role === null || stateOf(row, now) !== "active" || !withinNetworks(row.networks, ip)) {
    tokenRefused(deps.throttle, ip);
    throw new Unauthenticated(API_TOKEN_REFUSED, "Bearer");
  }
  // Written at most once a minute per address, as a session's last-seen is, so a client's reads stay reads.
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= USE_WRITTEN_EVERY_MS || row.lastUsedFrom !== ip) {
    deps.db
      .update(apiTokens)
      .set({ lastUsedAt: new Date(now), lastUsedFrom: ip })
      .where(eq(apiTokens.id, row.id))
      .run();
  }
  // The id names no user row: nothing keyed by a user (sessions, two-factor sign-in) is reachable with a token.
  return { tokenId: row.id, user: { id: `token:${row.id}`, username: tokenActor(row.name, row.id), role } };
}

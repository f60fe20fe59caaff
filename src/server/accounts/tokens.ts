/**
 * The voice bridge's transcript intake tokens (scope `transcripts:write`), and what every token shares: made
 * here, shown once at creation, only its SHA-256 stored. Revoked tokens stay listed but no longer
 * authenticate. The REST API's tokens are ./api-tokens.ts; both live in `api_tokens`, and neither kind is
 * accepted where the other is.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import { apiTokens } from "../../db/schema";
import type { ApiToken, ApiTokenScope, CreatedApiToken } from "../../shared/ai/api-tokens";
import { API_TOKEN_PREFIX } from "../../shared/api-tokens";
import type { Deps } from "../core/deps";
import { Forbidden, NotFound, RateLimited, Unauthenticated } from "../core/errors";
import { parseId } from "../core/validate";
import { nodeCrypto } from "../lazy-node";
import { logAuthFailure } from "./auth-log";
import type { LayerName, LoginThrottle } from "./throttle";

export const TOKEN_PREFIX = API_TOKEN_PREFIX;

/** The scope a token gets when created from the settings page: the transcript intake. */
export const DEFAULT_TOKEN_SCOPE: ApiTokenScope = "transcripts:write";

export type TokenRow = typeof apiTokens.$inferSelect;

export const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A stored intake token as the API lists it: never its hash. */
export const toToken = (r: TokenRow): ApiToken => ({
  id: r.id,
  name: r.name,
  scope: DEFAULT_TOKEN_SCOPE,
  prefix: r.prefix,
  last4: r.last4,
  createdAt: r.createdAt.toISOString(),
  lastUsedAt: iso(r.lastUsedAt),
  revokedAt: iso(r.revokedAt),
});

export const hashToken = (token: string) => nodeCrypto().createHash("sha256").update(token).digest("hex");

/** A new token: the secret (shown once), its hash (stored) and the ends a list shows. */
export function newTokenSecret() {
  const token = `${TOKEN_PREFIX}${nodeCrypto().randomBytes(32).toString("base64url")}`;
  return {
    token,
    tokenHash: hashToken(token),
    prefix: token.slice(0, TOKEN_PREFIX.length + 4),
    last4: token.slice(-4),
  };
}

/**
 * How failed token attempts are throttled (ADR 0074): under the name `api-token` per client address, and on
 * the address layer the sign-in shares, so guessing tokens slows guessing passwords from that address and
 * the other way round. Not across addresses: a flood elsewhere must not lock every token client out.
 */
export const TOKEN_THROTTLE_NAME = "api-token";
export const TOKEN_THROTTLE_LAYERS: readonly LayerName[] = ["pair", "address"];

/** 429 while failed token attempts from `ip` ask for a pause; the token is then not even looked up. */
export function checkTokenThrottle(throttle: LoginThrottle | undefined, ip: string | null): void {
  const wait = throttle?.retryAfter(TOKEN_THROTTLE_NAME, ip, TOKEN_THROTTLE_LAYERS) ?? 0;
  if (wait > 0) throw new RateLimited(`Too many refused API tokens from this address; try again in ${wait} s`, wait);
}

/** A token that was not accepted: counted against `ip` and logged like a failed sign-in (never the token). */
export function tokenRefused(throttle: LoginThrottle | undefined, ip: string | null): void {
  throttle?.fail(TOKEN_THROTTLE_NAME, ip, TOKEN_THROTTLE_LAYERS);
  logAuthFailure(TOKEN_THROTTLE_NAME, ip);
}

/** Newest first, revoked ones included: the intake tokens only. */
export const listApiTokens = (deps: Pick<Deps, "db">): ApiToken[] =>
  deps.db
    .select()
    .from(apiTokens)
    .where(eq(apiTokens.scope, DEFAULT_TOKEN_SCOPE))
    .orderBy(desc(apiTokens.id))
    .all()
    .map(toToken);

/** Creates a token; the answer is the only place its secret ever appears. */
export function createApiToken(
  deps: Pick<Deps, "db" | "events" | "now">,
  input: { name: string },
  scope: ApiTokenScope = DEFAULT_TOKEN_SCOPE,
): CreatedApiToken {
  const { token, ...stored } = newTokenSecret();
  const row = deps.db
    .insert(apiTokens)
    .values({ name: input.name, scope, ...stored, createdAt: new Date(deps.now()) })
    .returning()
    .get();
  deps.events.publish({ type: "api-tokens-updated", data: { id: row.id, action: "created" } });
  return { ...toToken(row), token };
}

/**
 * Revokes a token of `scope` (kept in the list with its revocation time; the very next request with it is
 * refused); revoking it again changes nothing.
 */
export function revokeApiToken(
  deps: Pick<Deps, "db" | "events" | "now">,
  rawId: string | undefined,
  scope: TokenRow["scope"] = DEFAULT_TOKEN_SCOPE,
): void {
  const id = parseId(rawId, "API token");
  const row = deps.db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.id, id), eq(apiTokens.scope, scope)))
    .get();
  if (!row) throw new NotFound("API token");
  if (!row.revokedAt)
    deps.db
      .update(apiTokens)
      .set({ revokedAt: new Date(deps.now()) })
      .where(eq(apiTokens.id, id))
      .run();
  deps.events.publish({ type: "api-tokens-updated", data: { id, action: "revoked" } });
}

const unauthorized = (message: string) => new Unauthenticated(message, "Bearer");

/**
 * The `Authorization: Bearer <token>` of a machine request: 401 when missing,
 * unknown or revoked, 403 when the token lacks the scope. Only verifies: the
 * domain function that accepts the request records the use (`recordApiTokenUse`),
 * so a refused request (bad body, conflict) leaves "last used" as it was. With
 * the throttle, an unknown or revoked token counts against `ip` as every refused token does.
 */
export function requireApiToken(
  deps: Pick<Deps, "db" | "now"> & { throttle?: LoginThrottle },
  headers: Headers,
  scope: ApiTokenScope,
  ip: string | null = null,
): number {
  const header = headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized("API token required: send Authorization: Bearer <token>");
  checkTokenThrottle(deps.throttle, ip);
  const row = deps.db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, hashToken(match[1])), isNull(apiTokens.revokedAt)))
    .get();
  if (!row) {
    tokenRefused(deps.throttle, ip);
    throw unauthorized("Invalid or revoked API token");
  }
  if (row.scope !== scope) throw new Forbidden(`This API token does not have the ${scope} scope`);
  return row.id;
}

/** Records that a token's request was accepted (its "last used" time); `null` (no token) does nothing. */
export function recordApiTokenUse(deps: Pick<Deps, "db" | "now">, tokenId: number | null | undefined): void {
  if (tokenId === null || tokenId === undefined) return;
  deps.db
    .update(apiTokens)
    .set({ lastUsedAt: new Date(deps.now()) })
    .where(eq(apiTokens.id, tokenId))
    .run();
}

/**
 * API tokens for machine clients (the voice bridge). A token is shown once at
 * creation; only its SHA-256 is stored. Revoked tokens stay listed but no
 * longer authenticate.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import { apiTokens } from "../../db/schema";
import type { ApiToken, ApiTokenScope, CreatedApiToken } from "../../shared/ai/api-tokens";
import type { Deps } from "../core/deps";
import { Forbidden, NotFound, Unauthenticated } from "../core/errors";
import { parseId } from "../core/validate";
import { nodeCrypto } from "../lazy-node";

export const TOKEN_PREFIX = "pbxt_";

/** The scope a token gets when created from the settings page: the transcript intake. */
export const DEFAULT_TOKEN_SCOPE: ApiTokenScope = "transcripts:write";

type TokenRow = typeof apiTokens.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A stored token as the API lists it: never its hash. */
export const toToken = ({ tokenHash: _hash, ...r }: TokenRow): ApiToken => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
  lastUsedAt: iso(r.lastUsedAt),
  revokedAt: iso(r.revokedAt),
});

export const hashToken = (token: string) => nodeCrypto().createHash("sha256").update(token).digest("hex");

/** Newest first, revoked ones included. */
export const listApiTokens = (deps: Pick<Deps, "db">): ApiToken[] =>
  deps.db.select().from(apiTokens).orderBy(desc(apiTokens.id)).all().map(toToken);

/** Creates a token; the answer is the only place its secret ever appears. */
export function createApiToken(
  deps: Pick<Deps, "db" | "events" | "now">,
  input: { name: string },
  scope: ApiTokenScope = DEFAULT_TOKEN_SCOPE,
): CreatedApiToken {
  const token = `${TOKEN_PREFIX}${nodeCrypto().randomBytes(32).toString("base64url")}`;
  const row = deps.db
    .insert(apiTokens)
    .values({
      name: input.name,
      scope,
      tokenHash: hashToken(token),
      prefix: token.slice(0, TOKEN_PREFIX.length + 4),
      last4: token.slice(-4),
      createdAt: new Date(deps.now()),
    })
    .returning()
    .get();
  deps.events.publish({ type: "api-tokens-updated", data: { id: row.id, action: "created" } });
  return { ...toToken(row), token };
}

/** Revokes a token (kept in the list with its revocation time); revoking it again changes nothing. */
export function revokeApiToken(deps: Pick<Deps, "db" | "events" | "now">, rawId: string | undefined): void {
  const id = parseId(rawId, "API token");
  const row = deps.db.select().from(apiTokens).where(eq(apiTokens.id, id)).get();
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
 * so a refused request (bad body, conflict) leaves "last used" as it was.
 */
export function requireApiToken(deps: Pick<Deps, "db" | "now">, headers: Headers, scope: ApiTokenScope): number {
  const header = headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized("API token required: send Authorization: Bearer <token>");
  const row = deps.db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, hashToken(match[1])), isNull(apiTokens.revokedAt)))
    .get();
  if (!row) throw unauthorized("Invalid or revoked API token");
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

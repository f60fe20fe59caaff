/**
 * API tokens for machine clients (the voice bridge). A token is shown once at
 * creation; only its SHA-256 is stored. Revoked tokens stay listed but no
 * longer authenticate.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { apiTokens } from "../../db/schema";
import type { ApiTokenScope, CreatedApiToken } from "../../shared/ai";
import { toToken } from "../ai/records";
import type { Deps } from "../domain/deps";
import { Forbidden, Unauthenticated } from "../domain/errors";

export const TOKEN_PREFIX = "pbxt_";

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function createApiToken(app: Pick<Deps, "db" | "now">, name: string, scope: ApiTokenScope): CreatedApiToken {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = app.db
    .insert(apiTokens)
    .values({
      name,
      scope,
      tokenHash: hashToken(token),
      prefix: token.slice(0, TOKEN_PREFIX.length + 4),
      last4: token.slice(-4),
      createdAt: new Date(app.now()),
    })
    .returning()
    .get();
  return { ...toToken(row), token };
}

const unauthorized = (message: string) => new Unauthenticated(message, "Bearer");

/**
 * The `Authorization: Bearer <token>` of a machine request: 401 when missing,
 * unknown or revoked, 403 when the token lacks the scope. Records its use.
 */
export function requireApiToken(app: Pick<Deps, "db" | "now">, headers: Headers, scope: ApiTokenScope): number {
  const header = headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized("API token required: send Authorization: Bearer <token>");
  const row = app.db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, hashToken(match[1])), isNull(apiTokens.revokedAt)))
    .get();
  if (!row) throw unauthorized("Invalid or revoked API token");
  if (row.scope !== scope) throw new Forbidden(`This API token does not have the ${scope} scope`);
  app.db
    .update(apiTokens)
    .set({ lastUsedAt: new Date(app.now()) })
    .where(eq(apiTokens.id, row.id))
    .run();
  return row.id;
}

/** API tokens for machine clients (POST /api/ai/tokens); the one scope is the transcript intake's. */
import { z } from "zod";
import { required } from "../fields";
import { lazySchema } from "../lazy-schema";

/** POST /api/ai/tokens */
export const apiTokenSchema = lazySchema(() =>
  z.object({
    name: required("Name", 100),
  }),
);

export type ApiTokenScope = "transcripts:write";

export interface ApiToken {
  id: number;
  name: string;
  scope: ApiTokenScope;
  /** The first characters of the token, e.g. "pbxt_a1b2". */
  prefix: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** POST /api/ai/tokens: the only answer that carries the token itself. */
export interface CreatedApiToken extends ApiToken {
  token: string;
}

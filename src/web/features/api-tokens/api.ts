/**
 * Tokens for machine clients: the voice bridge's transcript intake tokens and the REST API tokens; for each
 * the list, create (the token is in the answer, once) and revoke.
 */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { ApiToken, apiTokenSchema, CreatedApiToken } from "../../../shared/ai/api-tokens";
import type { ApiAccessToken, CreatedApiAccessToken, NewApiTokenRequest } from "../../../shared/api-tokens";

export type NewApiToken = z.output<typeof apiTokenSchema>;

export const apiTokensQuery = () =>
  queryOptions<ApiToken[]>({ queryKey: queryKeys.apiTokens, refetchOnMount: "always" });

export function useCreateApiToken(ui: MutationUi<CreatedApiToken, NewApiToken>) {
  return useApiMutation({
    mutationFn: (body: NewApiToken) => sendJson<CreatedApiToken>("POST", "/api/ai/tokens", body),
    invalidates: [queryKeys.apiTokens],
    ...ui,
  });
}

export function useRevokeApiToken(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/ai/tokens/${id}`),
    invalidates: [queryKeys.apiTokens],
    ...ui,
  });
}

/** REST API tokens (GET/POST /api/tokens, DELETE /api/tokens/:id; ADR 0074). */
export const accessTokensQuery = () =>
  queryOptions<ApiAccessToken[]>({ queryKey: queryKeys.accessTokens, refetchOnMount: "always" });

export function useCreateAccessToken(ui: MutationUi<CreatedApiAccessToken, NewApiTokenRequest>) {
  return useApiMutation({
    mutationFn: (body: NewApiTokenRequest) => sendJson<CreatedApiAccessToken>("POST", "/api/tokens", body),
    invalidates: [queryKeys.accessTokens],
    ...ui,
  });
}

export function useRevokeAccessToken(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/tokens/${id}`),
    invalidates: [queryKeys.accessTokens],
    ...ui,
  });
}

/** API tokens for machine clients: the list, create (the token is in the answer, once) and revoke. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { ApiToken, apiTokenSchema, CreatedApiToken } from "../../../shared/ai/api-tokens";

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

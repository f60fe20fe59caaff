/** Sign-in state and the console's own details: /me, sign in, first-run set-up, sign out, /info. */
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { ApiError, sendJson } from "@/lib/api";
import type { MutationUi } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { showSignedOut } from "@/lib/session";
import type { LoginInput, MeResponse, ServerInfo, setupSchema } from "../../../shared/auth";

type SetupBody = z.output<typeof setupSchema>;

export const meQuery = () => queryOptions<MeResponse>({ queryKey: queryKeys.me });

/** Reads /me again (e.g. once two-factor sign-in is set up, so the console replaces the enrolment screen). */
export function useRefreshMe(): () => void {
  const client = useQueryClient();
  return () => void client.invalidateQueries({ queryKey: queryKeys.me });
}

/** The console's version, server label and the address phones register with. */
export const serverInfoQuery = () => queryOptions<ServerInfo>({ queryKey: queryKeys.serverInfo });

/** Signing in answers with the new /me, which switches the root layout to the console. */
export function useSignIn(ui: MutationUi<MeResponse, LoginInput>) {
  const client = useQueryClient();
  return useMutation<MeResponse, Error, LoginInput>({
    mutationFn: (input) => sendJson<MeResponse>("POST", "/api/auth/login", input),
    onSuccess: (me, input) => {
      client.setQueryData(queryKeys.me, me);
      ui.onSuccess?.(me, input);
    },
    onError: ui.onError,
  });
}

export function useCreateAdmin(ui: MutationUi<MeResponse, SetupBody>) {
  const client = useQueryClient();
  return useMutation<MeResponse, Error, SetupBody>({
    mutationFn: (input) => sendJson<MeResponse>("POST", "/api/auth/setup", input),
    onSuccess: (me, input) => {
      client.setQueryData(queryKeys.me, me);
      ui.onSuccess?.(me, input);
    },
    onError: (err, input) => {
      ui.onError?.(err, input);
      // 409: someone else created the administrator meanwhile; /me now says "sign in".
      if (err instanceof ApiError && err.status === 409) void client.invalidateQueries({ queryKey: queryKeys.me });
    },
  });
}

export function useSignOut(ui: MutationUi<unknown, void>) {
  const client = useQueryClient();
  return useMutation<unknown, Error, void>({
    mutationFn: () => sendJson<unknown>("POST", "/api/auth/logout"),
    onSuccess: (data) => {
      showSignedOut(client);
      ui.onSuccess?.(data);
    },
    onError: ui.onError,
  });
}

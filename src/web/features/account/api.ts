/** The signed-in user's account: change the password, the list of sessions, and signing them out. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { ChangePasswordInput, SessionInfo, SignedOutOthers } from "../../../shared/auth";

export const sessionsQuery = () =>
  queryOptions<SessionInfo[]>({ queryKey: queryKeys.sessions, refetchOnMount: "always" });

/** Changes the password; the server signs out every other session and answers how many. */
export function useChangePassword(ui: MutationUi<SignedOutOthers, ChangePasswordInput>) {
  return useApiMutation({
    mutationFn: (body: ChangePasswordInput) => sendJson<SignedOutOthers>("POST", "/api/auth/password", body),
    invalidates: [queryKeys.sessions],
    ...ui,
  });
}

/** Signs out one other session (by its id). */
export function useEndSession(ui: MutationUi<unknown, string>) {
  return useApiMutation({
    mutationFn: (id: string) => sendJson<unknown>("DELETE", `/api/auth/sessions/${encodeURIComponent(id)}`),
    invalidates: [queryKeys.sessions],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Signs out every session but this browser's. */
export function useSignOutOthers(ui: MutationUi<SignedOutOthers, void>) {
  return useApiMutation({
    mutationFn: () => sendJson<SignedOutOthers>("POST", "/api/auth/sessions/sign-out-others"),
    invalidates: [queryKeys.sessions],
    ...ui,
  });
}

/** The signed-in user's account: change the password, two-factor sign-in, the list of sessions, and signing them out. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type {
  ChangePasswordInput,
  SessionInfo,
  SignedOutOthers,
  TotpDisableInput,
  TotpEnabled,
  TotpEnableInput,
  TotpSetup,
  TotpStatus,
} from "../../../shared/auth";

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

/** Whether two-factor sign-in is on (and how many recovery codes are left). */
export const totpQuery = () => queryOptions<TotpStatus>({ queryKey: queryKeys.totp });

/** Starts setting up two-factor sign-in: a new secret with its QR code, shown once. */
export function useTotpSetup(ui: MutationUi<TotpSetup, void>) {
  return useApiMutation({
    mutationFn: () => sendJson<TotpSetup>("POST", "/api/auth/totp/setup"),
    invalidates: [queryKeys.totp],
    ...ui,
  });
}

/** Turns two-factor sign-in on with a code; answers the recovery codes, once. */
export function useTotpEnable(ui: MutationUi<TotpEnabled, TotpEnableInput>) {
  return useApiMutation({
    mutationFn: (body: TotpEnableInput) => sendJson<TotpEnabled>("POST", "/api/auth/totp/enable", body),
    invalidates: [queryKeys.totp],
    ...ui,
  });
}

/** Turns two-factor sign-in off (needs the password). */
export function useTotpDisable(ui: MutationUi<unknown, TotpDisableInput>) {
  return useApiMutation({
    mutationFn: (body: TotpDisableInput) => sendJson<unknown>("POST", "/api/auth/totp/disable", body),
    invalidates: [queryKeys.totp],
    ...ui,
  });
}

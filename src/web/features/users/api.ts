/** Console users (administrators only): the list, add, change and remove; the security settings that apply to them. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { SecuritySettings } from "../../../shared/settings";
import type { ConsoleUser, NewUserInput, UserPatchInput } from "../../../shared/users";

export const usersQuery = () => queryOptions<ConsoleUser[]>({ queryKey: queryKeys.users, refetchOnMount: "always" });

export function useCreateUser(ui: MutationUi<ConsoleUser, NewUserInput>) {
  return useApiMutation({
    mutationFn: (body: NewUserInput) => sendJson<ConsoleUser>("POST", "/api/users", body),
    invalidates: [queryKeys.users],
    ...ui,
  });
}

export function useUpdateUser(ui: MutationUi<ConsoleUser, { id: string; patch: UserPatchInput }>) {
  return useApiMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UserPatchInput }) =>
      sendJson<ConsoleUser>("PATCH", `/api/users/${id}`, patch),
    invalidates: [queryKeys.users, queryKeys.me],
    ...ui,
  });
}

export function useDeleteUser(ui: MutationUi<unknown, string>) {
  return useApiMutation({
    mutationFn: (id: string) => sendJson<unknown>("DELETE", `/api/users/${id}`),
    invalidates: [queryKeys.users],
    ...ui,
  });
}

/** Whether every user must sign in with two-factor sign-in (administrators only). */
export const securitySettingsQuery = () => queryOptions<SecuritySettings>({ queryKey: queryKeys.securitySettings });

/** Changes the security settings; turning the requirement on needs the admin's own two-factor sign-in (409). */
export function useUpdateSecuritySettings(ui: MutationUi<SecuritySettings, SecuritySettings>) {
  return useApiMutation({
    mutationFn: (body: SecuritySettings) => sendJson<SecuritySettings>("PUT", "/api/settings/security", body),
    invalidates: [queryKeys.securitySettings, queryKeys.me],
    ...ui,
  });
}

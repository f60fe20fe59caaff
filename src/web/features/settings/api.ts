/**
 * Outside services' credentials: the views and connection badges, save, Test
 * Connection, forget the pinned SSH host key, and remove.
 */
import { queryOptions, useQueryClient } from "@tanstack/react-query";
import { apiRequest, sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import {
  type ConnectionStatus,
  type CredentialView,
  SERVICE_NAMES,
  type ServiceType,
  type TestResult,
} from "../../../shared/credentials";

export const credentialsQuery = () => queryOptions<CredentialView[]>({ queryKey: queryKeys.credentials });
export const connectionStatusQuery = () => queryOptions<ConnectionStatus>({ queryKey: queryKeys.connectionStatus });

/** The card shows the answer at once; the lists (badges, other cards) refetch in the background. */
function useTakeSaved() {
  const client = useQueryClient();
  return (saved: CredentialView | undefined) => {
    if (!saved) return;
    client.setQueryData<CredentialView[]>(queryKeys.credentials, (list) =>
      list ? list.map((c) => (c.type === saved.type ? saved : c)) : list,
    );
  };
}

const background = { invalidates: [queryKeys.credentials], waitForRefetch: false } as const;

/** Saves the typed fields (an omitted secret keeps the stored one). */
export function useSaveCredentials(type: ServiceType, ui: MutationUi<CredentialView, Record<string, string>>) {
  const takeSaved = useTakeSaved();
  return useApiMutation({
    mutationFn: (body: Record<string, string>) =>
      sendJson<CredentialView>("POST", "/api/credentials", { type, name: SERVICE_NAMES[type], ...body }),
    afterSuccess: takeSaved,
    ...background,
    ...ui,
  });
}

/** Test Connection with the typed fields; the stored "last tested" changes either way. */
export function useTestCredentials(type: ServiceType, ui: MutationUi<TestResult, Record<string, string>>) {
  return useApiMutation({
    mutationFn: (body: Record<string, string>) =>
      sendJson<TestResult>("POST", "/api/credentials/test", { type, ...body }),
    refetchAfterFailure: true,
    ...background,
    ...ui,
  });
}

/** Forgets the pinned SSH host key: the next successful test pins the host's current one. */
export function useForgetHostKey(type: ServiceType, ui: MutationUi<CredentialView, void>) {
  const takeSaved = useTakeSaved();
  return useApiMutation<CredentialView, void>({
    mutationFn: () =>
      sendJson<CredentialView>("POST", "/api/credentials", { type, name: SERVICE_NAMES[type], resetHostKey: true }),
    afterSuccess: takeSaved,
    ...background,
    ...ui,
  });
}

/** Deletes the stored values (those set by environment variables stay in effect). */
export function useRemoveCredentials(type: ServiceType, ui: MutationUi<unknown, void>) {
  return useApiMutation<unknown, void>({
    mutationFn: () => apiRequest("DELETE", `/api/credentials/${type}`),
    ...background,
    ...ui,
  });
}

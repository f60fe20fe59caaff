/**
 * Self-update (GET/POST /api/update; docs/decisions/0065-self-update.md). The status is refetched on every
 * "update-updated" event (lib/query-keys.ts) and, while a check or an update runs, every second and a half: the
 * socket goes away with the console's restart, and the poll sees the new version come up.
 */
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { getJson, sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { UpdateStarted, UpdateStatus } from "../../../shared/update";

/** While an update runs (or this page started one): how often the status is read. */
export const UPDATE_POLL_MS = 1500;

export const updateStatusQuery = (polling = false) =>
  queryOptions<UpdateStatus>({
    queryKey: queryKeys.update,
    // A check in the background ends with an event; read again meanwhile too, in case the socket was not up yet.
    refetchInterval: (query) => {
      const data = query.state.data;
      return polling || data?.progress || data?.checking ? UPDATE_POLL_MS : false;
    },
  });

/** "Check now": reads the manifest at once (GET ?refresh=1) and shows the answer. */
export function useCheckForUpdate(ui: MutationUi<UpdateStatus, void> = {}) {
  const client = useQueryClient();
  return useMutation<UpdateStatus, Error, void>({
    mutationFn: () => getJson<UpdateStatus>("/api/update?refresh=1"),
    onSuccess: (status, vars) => {
      client.setQueryData(queryKeys.update, status);
      ui.onSuccess?.(status, vars);
    },
    onError: ui.onError,
  });
}

/** POST /api/update: installs the given (latest) version; answers 202 at once with the first step. */
export function useStartUpdate(ui: MutationUi<UpdateStarted, string>) {
  return useApiMutation({
    mutationFn: (version: string) => sendJson<UpdateStarted>("POST", "/api/update", { version }),
    invalidates: [queryKeys.update],
    ...ui,
  });
}

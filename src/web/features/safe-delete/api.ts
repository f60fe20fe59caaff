/** Safe deletes (ADR 0037): what depends on an object, and the undo of a delete. */
import { type QueryKey, queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Dependents, RestoreAnswer } from "../../../shared/safe-delete";

/** GET <list>/:id/dependents: read each time the confirmation opens (never a stale answer). */
export const dependentsQuery = (list: readonly string[], id: number) =>
  queryOptions<Dependents>({ queryKey: queryKeys.dependents(list, id), staleTime: 0, gcTime: 0 });

/**
 * POST /api/undo/:token: puts back what the delete removed; refetches the lists it shows in. `afterUndo` is
 * the work the delete itself was followed by (the extensions' quiet web-dialer push), run again for the
 * object that is back.
 */
export function useUndoDelete(
  invalidates: readonly QueryKey[],
  ui: MutationUi<RestoreAnswer, string>,
  afterUndo?: () => void,
) {
  return useApiMutation({
    mutationFn: (token: string) => sendJson<RestoreAnswer>("POST", `/api/undo/${encodeURIComponent(token)}`),
    invalidates,
    afterSuccess: afterUndo,
    ...ui,
  });
}

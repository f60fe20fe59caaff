/**
 * Calls in progress from AMI (GET /api/calls/active, never polled: the sync socket's `calls-updated`
 * makes it stale) and hanging one up (POST /api/calls/hangup, operator).
 */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { ActiveCallsView, HangupRequest } from "../../../shared/live";

export const activeCallsQuery = () => queryOptions<ActiveCallsView>({ queryKey: queryKeys.activeCalls });

export function useHangup(ui: MutationUi<unknown, HangupRequest>) {
  return useApiMutation({
    mutationFn: (body: HangupRequest) => sendJson<unknown>("POST", "/api/calls/hangup", body),
    invalidates: [queryKeys.activeCalls],
    // A 404 means the call ended meanwhile: the list should drop it either way.
    refetchAfterFailure: true,
    ...ui,
  });
}

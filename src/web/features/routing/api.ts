/** Where calls go: the routing simulator and the destinations every picker offers. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { CallFlow, DestinationList, SimulateAnswer, SimulateInput } from "../../../shared/routing";

export type SimulateRequest = Partial<SimulateInput>;

/** GET /api/destinations: hang up, extensions, voicemail boxes, ring groups, page groups, each labelled. */
export const destinationsQuery = () => queryOptions<DestinationList>({ queryKey: queryKeys.destinations });

/** GET /api/routing/flows: each inbound route's call flow as a tree. */
export const callFlowsQuery = () => queryOptions<CallFlow[]>({ queryKey: queryKeys.callFlows });

/** POST /api/routing/simulate: it stores nothing, so nothing goes stale. */
export function useSimulateCall(ui: MutationUi<SimulateAnswer, SimulateRequest> = {}) {
  return useApiMutation({
    mutationFn: (body: SimulateRequest) => sendJson<SimulateAnswer>("POST", "/api/routing/simulate", body),
    invalidates: [],
    ...ui,
  });
}

/** Where calls go: the routing simulator, the destinations every picker offers, the PBX's time conditions. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { CallFlow, DestinationList, SimulateAnswer, SimulateInput } from "../../../shared/routing";
import type { OverrideRequest, PbxTimeCondition, PbxTimeConditions } from "../../../shared/time-conditions";

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

/** GET /api/pbx/time-conditions: read over SSH; the sync socket's `time-condition-overrides-updated` makes it stale. */
export const pbxTimeConditionsQuery = () =>
  queryOptions<PbxTimeConditions>({ queryKey: queryKeys.pbxTimeConditions, refetchOnMount: "always" });

/** PUT /api/pbx/time-conditions/:id/override (operator): written on the PBX at once. */
export function useSetOverride(ui: MutationUi<PbxTimeCondition, { id: number } & OverrideRequest> = {}) {
  return useApiMutation({
    mutationFn: ({ id, state }: { id: number } & OverrideRequest) =>
      sendJson<PbxTimeCondition>("PUT", `/api/pbx/time-conditions/${id}/override`, { state }),
    invalidates: [queryKeys.pbxTimeConditions],
    ...ui,
  });
}

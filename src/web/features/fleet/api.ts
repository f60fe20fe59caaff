/** The fleet hub (administrators): the members with their live state, add, remove, repin, and the fleet-wide search. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type {
  AddFleetMember,
  FleetList,
  FleetMember,
  FleetSearchAnswer,
  FleetTemplate,
  FleetTemplateApplyEntry,
  FleetTemplateApplyRequest,
  FleetTemplateInput,
  FleetTemplatePlanEntry,
} from "../../../shared/fleet";

/** No polling: the hub publishes fleet-updated when a member's state moves, and the socket refetches. */
export const fleetQuery = () => queryOptions<FleetList>({ queryKey: queryKeys.fleet });

/** One search of every member; kept a minute, searched again only when asked. */
export const fleetSearchQuery = (q: string) =>
  queryOptions<FleetSearchAnswer>({ queryKey: queryKeys.fleetSearch(q), staleTime: 60_000, enabled: q !== "" });

export function useAddFleetMember(ui: MutationUi<FleetMember, AddFleetMember>) {
  return useApiMutation({
    mutationFn: (body: AddFleetMember) => sendJson<FleetMember>("POST", "/api/fleet/members", body),
    invalidates: [queryKeys.fleet],
    ...ui,
  });
}

export function useRemoveFleetMember(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/fleet/members/${id}`),
    invalidates: [queryKeys.fleet],
    ...ui,
  });
}

export function useRepinFleetMember(ui: MutationUi<FleetMember, { id: number; fingerprint: string }>) {
  return useApiMutation({
    mutationFn: ({ id, fingerprint }: { id: number; fingerprint: string }) =>
      sendJson<FleetMember>("POST", `/api/fleet/members/${id}/repin`, { fingerprint }),
    invalidates: [queryKeys.fleet],
    ...ui,
  });
}

export const fleetTemplatesQuery = () => queryOptions<FleetTemplate[]>({ queryKey: queryKeys.fleetTemplates });

export function useCreateFleetTemplate(ui: MutationUi<FleetTemplate, FleetTemplateInput>) {
  return useApiMutation({
    mutationFn: (body: FleetTemplateInput) => sendJson<FleetTemplate>("POST", "/api/fleet/templates", body),
    invalidates: [queryKeys.fleetTemplates],
    ...ui,
  });
}

export function useDeleteFleetTemplate(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/fleet/templates/${id}`),
    invalidates: [queryKeys.fleetTemplates],
    ...ui,
  });
}

/** Each chosen member's own plan of the template (nothing changes anywhere). */
export function usePlanFleetTemplate(
  ui: MutationUi<{ items: FleetTemplatePlanEntry[] }, { id: number; members: number[] }>,
) {
  return useApiMutation({
    mutationFn: ({ id, members }: { id: number; members: number[] }) =>
      sendJson<{ items: FleetTemplatePlanEntry[] }>("POST", `/api/fleet/templates/${id}/plan`, { members }),
    invalidates: [],
    ...ui,
  });
}

/** Applies the reviewed plans on their members; the members' states follow through fleet-updated. */
export function useApplyFleetTemplate(
  ui: MutationUi<{ items: FleetTemplateApplyEntry[] }, { id: number } & FleetTemplateApplyRequest>,
) {
  return useApiMutation({
    mutationFn: ({ id, plans }: { id: number } & FleetTemplateApplyRequest) =>
      sendJson<{ items: FleetTemplateApplyEntry[] }>("POST", `/api/fleet/templates/${id}/apply`, { plans }),
    invalidates: [queryKeys.fleet],
    ...ui,
  });
}

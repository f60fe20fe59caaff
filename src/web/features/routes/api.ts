/** Inbound and outbound routes: the lists, create and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { InboundRoute, inboundRouteSchema, OutboundRoute, outboundRouteSchema } from "../../../shared/inventory";

/** The inbound create body: without a trunk ("Any Trunk") it carries no trunkId at all. */
export type NewInboundRoute = Omit<z.output<typeof inboundRouteSchema>, "trunkId"> & { trunkId?: number };
export type NewOutboundRoute = z.output<typeof outboundRouteSchema>;

export const inboundRoutesQuery = () => queryOptions<InboundRoute[]>({ queryKey: queryKeys.inboundRoutes });
export const outboundRoutesQuery = () => queryOptions<OutboundRoute[]>({ queryKey: queryKeys.outboundRoutes });

export function useCreateInboundRoute(ui: MutationUi<InboundRoute, NewInboundRoute>) {
  return useApiMutation({
    mutationFn: (body: NewInboundRoute) => sendJson<InboundRoute>("POST", "/api/inbound-routes", body),
    invalidates: [queryKeys.inboundRoutes],
    ...ui,
  });
}

export function useCreateOutboundRoute(ui: MutationUi<OutboundRoute, NewOutboundRoute>) {
  return useApiMutation({
    mutationFn: (body: NewOutboundRoute) => sendJson<OutboundRoute>("POST", "/api/outbound-routes", body),
    invalidates: [queryKeys.outboundRoutes],
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteInboundRoute(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/inbound-routes/${id}`),
    invalidates: [queryKeys.inboundRoutes],
    refetchAfterFailure: true,
    ...ui,
  });
}

export function useDeleteOutboundRoute(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/outbound-routes/${id}`),
    invalidates: [queryKeys.outboundRoutes],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Inbound and outbound routes: the lists, create, edit and delete. */
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { InboundRoute, inboundRouteSchema, OutboundRoute, outboundRouteSchema } from "../../../shared/inventory";
import type { DeleteAnswer } from "../../../shared/safe-delete";

/** The inbound create body (no trunk: FreePBX matches an inbound route by its DID only; ADR 0037). */
export type NewInboundRoute = z.output<typeof inboundRouteSchema>;
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

/** The edit bodies: the route's id and the fields its dialog edits. */
export type InboundRouteEdit = NewInboundRoute & { id: number };
export type OutboundRouteEdit = Omit<NewOutboundRoute, "routeOrder"> & { id: number };

/** PATCH /api/inbound-routes/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateInboundRoute(ui: MutationUi<InboundRoute, InboundRouteEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.inboundRoutes,
    mutationFn: ({ id, ...body }: InboundRouteEdit) =>
      sendJson<InboundRoute>("PATCH", `/api/inbound-routes/${id}`, body),
    apply: (route, { id: _id, ...edited }) => ({ ...route, ...edited }),
    ...ui,
  });
}

/** PATCH /api/outbound-routes/:id (its dial order stays), shown at once and put back if refused. */
export function useUpdateOutboundRoute(ui: MutationUi<OutboundRoute, OutboundRouteEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.outboundRoutes,
    mutationFn: ({ id, ...body }: OutboundRouteEdit) =>
      sendJson<OutboundRoute>("PATCH", `/api/outbound-routes/${id}`, body),
    apply: (route, { id: _id, ...edited }) => ({ ...route, ...edited }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteInboundRoute(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/inbound-routes/${id}`),
    invalidates: [queryKeys.inboundRoutes],
    refetchAfterFailure: true,
    ...ui,
  });
}

export function useDeleteOutboundRoute(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/outbound-routes/${id}`),
    invalidates: [queryKeys.outboundRoutes],
    refetchAfterFailure: true,
    ...ui,
  });
}

/**
 * Sets the outbound routes' dial order (ADR 0040): the list shows the new order as soon as it is sent; a
 * failure puts it back and runs the screen's `onError`; either way the list is refetched.
 */
export function useReorderOutboundRoutes(ui: { onError?: (err: Error) => void } = {}) {
  const client = useQueryClient();
  const key = queryKeys.outboundRoutes;
  return useMutation<OutboundRoute[], Error, number[], { before: OutboundRoute[] | undefined }>({
    mutationFn: (ids) => sendJson<OutboundRoute[]>("POST", "/api/outbound-routes/order", { ids }),
    onMutate: async (ids) => {
      await client.cancelQueries({ queryKey: key, exact: true });
      const before = client.getQueryData<OutboundRoute[]>(key);
      if (before) {
        const byId = new Map(before.map((r) => [r.id, r]));
        const next = ids.flatMap((id, position) => {
          const r = byId.get(id);
          return r ? [{ ...r, position }] : [];
        });
        client.setQueryData<OutboundRoute[]>(key, next);
      }
      return { before };
    },
    onSuccess: (list) => client.setQueryData(key, list),
    onError: (err, _ids, context) => {
      if (context?.before) client.setQueryData(key, context.before);
      ui.onError?.(err);
    },
    onSettled: () => client.invalidateQueries({ queryKey: key, exact: true }),
  });
}

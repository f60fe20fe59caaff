/** IVRs: the list, create, edit and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Ivr, ivrSchema } from "../../../shared/call-flow";
import type { DeleteAnswer } from "../../../shared/safe-delete";

export type NewIvr = z.output<typeof ivrSchema>;

export const ivrsQuery = () => queryOptions<Ivr[]>({ queryKey: queryKeys.ivrs });

/** A new IVR is a destination the pickers offer at once. */
export function useCreateIvr(ui: MutationUi<Ivr, NewIvr>) {
  return useApiMutation({
    mutationFn: (body: NewIvr) => sendJson<Ivr>("POST", "/api/ivrs", body),
    invalidates: [queryKeys.ivrs, queryKeys.destinations],
    ...ui,
  });
}

/** The edit body: the IVR's id and its fields. */
export type IvrEdit = NewIvr & { id: number };

/** PATCH /api/ivrs/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateIvr(ui: MutationUi<Ivr, IvrEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.ivrs,
    mutationFn: ({ id, ...body }: IvrEdit) => sendJson<Ivr>("PATCH", `/api/ivrs/${id}`, body),
    apply: (ivr, { id: _id, ...edited }) => ({ ...ivr, ...edited }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteIvr(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/ivrs/${id}`),
    invalidates: [queryKeys.ivrs, queryKeys.destinations],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Ring groups: the list, create, edit and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { RingGroup, ringGroupSchema } from "../../../shared/inventory";
import type { DeleteAnswer } from "../../../shared/safe-delete";

export type NewRingGroup = z.output<typeof ringGroupSchema>;

export const ringGroupsQuery = () => queryOptions<RingGroup[]>({ queryKey: queryKeys.ringGroups });

export function useCreateRingGroup(ui: MutationUi<RingGroup, NewRingGroup>) {
  return useApiMutation({
    mutationFn: (body: NewRingGroup) => sendJson<RingGroup>("POST", "/api/ring-groups", body),
    invalidates: [queryKeys.ringGroups],
    ...ui,
  });
}

/** The edit body: the group's id and its fields. */
export type RingGroupEdit = NewRingGroup & { id: number };

/** PATCH /api/ring-groups/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateRingGroup(ui: MutationUi<RingGroup, RingGroupEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.ringGroups,
    mutationFn: ({ id, ...body }: RingGroupEdit) => sendJson<RingGroup>("PATCH", `/api/ring-groups/${id}`, body),
    apply: (group, { id: _id, ...edited }) => ({ ...group, ...edited }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteRingGroup(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/ring-groups/${id}`),
    invalidates: [queryKeys.ringGroups],
    refetchAfterFailure: true,
    ...ui,
  });
}

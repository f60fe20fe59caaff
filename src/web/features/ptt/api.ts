/** PTT (page) groups: the list, create, edit and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { PttGroup, pttGroupSchema } from "../../../shared/inventory";
import type { DeleteAnswer } from "../../../shared/safe-delete";

export type NewPttGroup = z.output<typeof pttGroupSchema>;

export const pttGroupsQuery = () => queryOptions<PttGroup[]>({ queryKey: queryKeys.pttGroups });

export function useCreatePttGroup(ui: MutationUi<PttGroup, NewPttGroup>) {
  return useApiMutation({
    mutationFn: (body: NewPttGroup) => sendJson<PttGroup>("POST", "/api/ptt-groups", body),
    invalidates: [queryKeys.pttGroups],
    ...ui,
  });
}

/** The edit body: the group's id and its fields. */
export type PttGroupEdit = NewPttGroup & { id: number };

/** PATCH /api/ptt-groups/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdatePttGroup(ui: MutationUi<PttGroup, PttGroupEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.pttGroups,
    mutationFn: ({ id, ...body }: PttGroupEdit) => sendJson<PttGroup>("PATCH", `/api/ptt-groups/${id}`, body),
    apply: (group, { id: _id, ...edited }) => ({ ...group, ...edited }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeletePttGroup(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/ptt-groups/${id}`),
    invalidates: [queryKeys.pttGroups],
    refetchAfterFailure: true,
    ...ui,
  });
}

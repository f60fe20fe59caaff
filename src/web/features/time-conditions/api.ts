/** Time groups and time conditions: the lists, create, edit and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { TimeCondition, TimeGroup, timeConditionSchema, timeGroupSchema } from "../../../shared/call-flow";
import type { DeleteAnswer } from "../../../shared/safe-delete";

export type NewTimeGroup = z.output<typeof timeGroupSchema>;
export type NewTimeCondition = z.output<typeof timeConditionSchema>;

export const timeGroupsQuery = () => queryOptions<TimeGroup[]>({ queryKey: queryKeys.timeGroups });
export const timeConditionsQuery = () => queryOptions<TimeCondition[]>({ queryKey: queryKeys.timeConditions });

export function useCreateTimeGroup(ui: MutationUi<TimeGroup, NewTimeGroup>) {
  return useApiMutation({
    mutationFn: (body: NewTimeGroup) => sendJson<TimeGroup>("POST", "/api/time-groups", body),
    invalidates: [queryKeys.timeGroups],
    ...ui,
  });
}

export type TimeGroupEdit = NewTimeGroup & { id: number };

/** PATCH /api/time-groups/:id, shown at once (the condition cards name the group from this list too). */
export function useUpdateTimeGroup(ui: MutationUi<TimeGroup, TimeGroupEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.timeGroups,
    mutationFn: ({ id, ...body }: TimeGroupEdit) => sendJson<TimeGroup>("PATCH", `/api/time-groups/${id}`, body),
    apply: (group, { id: _id, ...edited }) => ({ ...group, ...edited }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteTimeGroup(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/time-groups/${id}`),
    invalidates: [queryKeys.timeGroups],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** A new time condition is a destination the pickers offer at once. */
export function useCreateTimeCondition(ui: MutationUi<TimeCondition, NewTimeCondition>) {
  return useApiMutation({
    mutationFn: (body: NewTimeCondition) => sendJson<TimeCondition>("POST", "/api/time-conditions", body),
    invalidates: [queryKeys.timeConditions, queryKeys.destinations],
    ...ui,
  });
}

export type TimeConditionEdit = NewTimeCondition & { id: number };

/** PATCH /api/time-conditions/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateTimeCondition(ui: MutationUi<TimeCondition, TimeConditionEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.timeConditions,
    mutationFn: ({ id, ...body }: TimeConditionEdit) =>
      sendJson<TimeCondition>("PATCH", `/api/time-conditions/${id}`, body),
    apply: (condition, { id: _id, ...edited }) => ({ ...condition, ...edited }),
    ...ui,
  });
}

export function useDeleteTimeCondition(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/time-conditions/${id}`),
    invalidates: [queryKeys.timeConditions, queryKeys.destinations],
    refetchAfterFailure: true,
    ...ui,
  });
}

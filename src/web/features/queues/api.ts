/** Queues: the list, create, edit and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Queue, queueSchema } from "../../../shared/inventory";
import type { DeleteAnswer } from "../../../shared/safe-delete";

export type NewQueue = z.output<typeof queueSchema>;

export const queuesQuery = () => queryOptions<Queue[]>({ queryKey: queryKeys.queues });

export function useCreateQueue(ui: MutationUi<Queue, NewQueue>) {
  return useApiMutation({
    mutationFn: (body: NewQueue) => sendJson<Queue>("POST", "/api/queues", body),
    invalidates: [queryKeys.queues],
    ...ui,
  });
}

/** The edit body: the queue's id and its fields. */
export type QueueEdit = NewQueue & { id: number };

/** PATCH /api/queues/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateQueue(ui: MutationUi<Queue, QueueEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.queues,
    mutationFn: ({ id, ...body }: QueueEdit) => sendJson<Queue>("PATCH", `/api/queues/${id}`, body),
    apply: (queue, { id: _id, ...edited }) => ({ ...queue, ...edited }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteQueue(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/queues/${id}`),
    invalidates: [queryKeys.queues],
    refetchAfterFailure: true,
    ...ui,
  });
}

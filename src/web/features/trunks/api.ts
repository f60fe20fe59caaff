/** Trunks: the list, create, edit and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Trunk, trunkSchema } from "../../../shared/inventory";
import type { DeleteAnswer } from "../../../shared/safe-delete";

/** The create body: the trunk without its status (the server's business). */
export type NewTrunk = Omit<z.output<typeof trunkSchema>, "status">;

export const trunksQuery = () => queryOptions<Trunk[]>({ queryKey: queryKeys.trunks });

export function useCreateTrunk(ui: MutationUi<Trunk, NewTrunk>) {
  return useApiMutation({
    mutationFn: (body: NewTrunk) => sendJson<Trunk>("POST", "/api/trunks", body),
    invalidates: [queryKeys.trunks],
    ...ui,
  });
}

/** The edit body: the trunk's id and the fields the dialog edits (a blank secret keeps the stored one). */
export type TrunkEdit = NewTrunk & { id: number };

/** PATCH /api/trunks/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateTrunk(ui: MutationUi<Trunk, TrunkEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.trunks,
    mutationFn: ({ id, ...body }: TrunkEdit) => sendJson<Trunk>("PATCH", `/api/trunks/${id}`, body),
    apply: (trunk, { id: _id, secret, ...edited }) => ({ ...trunk, ...edited, hasSecret: trunk.hasSecret || !!secret }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteTrunk(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/trunks/${id}`),
    invalidates: [queryKeys.trunks],
    refetchAfterFailure: true,
    ...ui,
  });
}

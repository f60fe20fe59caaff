/** Trunks: the list, create and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Trunk, trunkSchema } from "../../../shared/inventory";

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

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteTrunk(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/trunks/${id}`),
    invalidates: [queryKeys.trunks],
    refetchAfterFailure: true,
    ...ui,
  });
}

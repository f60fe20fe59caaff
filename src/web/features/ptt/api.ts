/** PTT (page) groups: the list, create and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { PttGroup, pttGroupSchema } from "../../../shared/inventory";

export type NewPttGroup = z.output<typeof pttGroupSchema>;

export const pttGroupsQuery = () => queryOptions<PttGroup[]>({ queryKey: queryKeys.pttGroups });

export function useCreatePttGroup(ui: MutationUi<PttGroup, NewPttGroup>) {
  return useApiMutation({
    mutationFn: (body: NewPttGroup) => sendJson<PttGroup>("POST", "/api/ptt-groups", body),
    invalidates: [queryKeys.pttGroups],
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeletePttGroup(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/ptt-groups/${id}`),
    invalidates: [queryKeys.pttGroups],
    refetchAfterFailure: true,
    ...ui,
  });
}

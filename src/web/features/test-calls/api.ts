/** Test calls: the list, each one's results over a window, create, edit, delete and Run now. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { NewTestCall, TestCall, TestCallResult, TestCallResults } from "../../../shared/test-calls";

export type { NewTestCall };

export const testCallsQuery = () => queryOptions<TestCall[]>({ queryKey: queryKeys.testCalls });

/** Results since `from` (ISO) up to now: the server's `to` is the time of each read, so a refetch has the new runs. */
export const testCallResultsQuery = (id: number, from: string) =>
  queryOptions<TestCallResults>({ queryKey: queryKeys.testCallResults(id, from) });

export function useCreateTestCall(ui: MutationUi<TestCall, NewTestCall>) {
  return useApiMutation({
    mutationFn: (body: NewTestCall) => sendJson<TestCall>("POST", "/api/test-calls", body),
    invalidates: [queryKeys.testCalls],
    ...ui,
  });
}

export type TestCallEdit = NewTestCall & { id: number };

/** PATCH /api/test-calls/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateTestCall(ui: MutationUi<TestCall, TestCallEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.testCalls,
    mutationFn: ({ id, ...body }: TestCallEdit) => sendJson<TestCall>("PATCH", `/api/test-calls/${id}`, body),
    apply: (call, { id: _id, ...edited }) => ({ ...call, ...edited }),
    ...ui,
  });
}

export function useDeleteTestCall(ui: MutationUi<void, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<void>("DELETE", `/api/test-calls/${id}`),
    invalidates: [queryKeys.testCalls],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Runs a test call now; answers when the call has ended (up to its ring and listen times and a margin). */
export function useRunTestCall(ui: MutationUi<TestCallResult, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<TestCallResult>("POST", `/api/test-calls/${id}/run`),
    invalidates: [queryKeys.testCalls],
    ...ui,
  });
}

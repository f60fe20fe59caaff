/**
 * How the features' api.ts modules build their mutation hooks: a request, the
 * queries it makes stale, and the screen's own reaction (toasts, closing a
 * dialog), which runs before the refetch.
 */
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "./error-text";

/** What a screen adds to a request: its toasts and form handling. */
export interface MutationUi<TData = unknown, TVars = unknown> {
  onSuccess?: (data: TData, vars: TVars) => void;
  onError?: (err: Error, vars: TVars) => void;
}

export interface ApiMutationOptions<TData, TVars> extends MutationUi<TData, TVars> {
  mutationFn: (vars: TVars) => Promise<TData>;
  /** The queries the change makes stale, refetched after the screen's `onSuccess`. */
  invalidates: readonly QueryKey[];
  /** Refetch only these keys, not the queries under them. */
  exact?: boolean;
  /** Refetch after a failure too (a 404 on a delete means someone else removed it: the card should go). */
  refetchAfterFailure?: boolean;
  /**
   * Keep the mutation pending until the refetch is in (default), so a row's button spins until the
   * list shows the change; false lets the refetch run in the background.
   */
  waitForRefetch?: boolean;
  /** Work after a success that the screen does not show (e.g. the quiet dialer push). */
  afterSuccess?: (data: TData, vars: TVars) => void;
}

export function useApiMutation<TData, TVars = void>(opts: ApiMutationOptions<TData, TVars>) {
  const client = useQueryClient();
  const refetch = async () => {
    const running = Promise.all(
      opts.invalidates.map((queryKey) => client.invalidateQueries({ queryKey, exact: opts.exact })),
    );
    if (opts.waitForRefetch !== false) await running;
  };
  return useMutation<TData, Error, TVars>({
    mutationFn: opts.mutationFn,
    onSuccess: async (data, vars) => {
      opts.onSuccess?.(data, vars);
      opts.afterSuccess?.(data, vars);
      if (!opts.refetchAfterFailure) await refetch();
    },
    onError: (err, vars) => opts.onError?.(err, vars),
    onSettled: opts.refetchAfterFailure ? () => refetch() : undefined,
  });
}

/** A delete's toasts: the title on success; the title and the reason (e.g. the server's 409 message) on failure. */
export function deleteToasts(
  success: string,
  failure: string,
  reason: (err: unknown) => string = errorText,
): MutationUi {
  return {
    onSuccess: () => toast({ title: success }),
    onError: (err) => toast({ variant: "destructive", title: failure, description: reason(err) }),
  };
}

/** Whether the mutation is running for this row (its button spins). */
export function runningFor<TVars>(mutation: { isPending: boolean; variables?: TVars }, vars: TVars): boolean {
  return mutation.isPending && mutation.variables === vars;
}

/** Runs `action` only once the user confirms `question` in the browser's dialog. */
export function afterConfirm(question: string, action: () => void): void {
  if (window.confirm(question)) action();
}

/**
 * An optimistic edit of one object of a list: the list cache shows the change as soon as it
 * is sent (`onMutate`); a failure puts the list back as it was and then runs the screen's `onError`
 * (which shows the server's message); either way the list is refetched afterwards (`onSettled`).
 */
export function useOptimisticEdit<TItem extends { id: number }, TVars extends { id: number }>(opts: {
  /** The list query the object is shown from. */
  listKey: QueryKey;
  mutationFn: (vars: TVars) => Promise<TItem>;
  /** The object as it will look once saved (e.g. the stored one with the edited fields over it). */
  apply: (item: TItem, vars: TVars) => TItem;
  /** Work after a success that the screen does not show (e.g. the quiet dialer push). */
  afterSuccess?: (data: TItem, vars: TVars) => void;
  onSuccess?: (data: TItem, vars: TVars) => void;
  onError?: (err: Error, vars: TVars) => void;
}) {
  const client = useQueryClient();
  return useMutation<TItem, Error, TVars, { before: TItem[] | undefined }>({
    mutationFn: opts.mutationFn,
    onMutate: async (vars) => {
      // A refetch landing now would overwrite the optimistic list with the old one.
      await client.cancelQueries({ queryKey: opts.listKey, exact: true });
      const before = client.getQueryData<TItem[]>(opts.listKey);
      client.setQueryData<TItem[]>(opts.listKey, (list) =>
        list?.map((item) => (item.id === vars.id ? opts.apply(item, vars) : item)),
      );
      return { before };
    },
    onSuccess: (data, vars) => {
      client.setQueryData<TItem[]>(opts.listKey, (list) => list?.map((item) => (item.id === data.id ? data : item)));
      opts.onSuccess?.(data, vars);
      opts.afterSuccess?.(data, vars);
    },
    onError: (err, vars, context) => {
      if (context) client.setQueryData(opts.listKey, context.before);
      opts.onError?.(err, vars);
    },
    onSettled: () => client.invalidateQueries({ queryKey: opts.listKey, exact: true }),
  });
}

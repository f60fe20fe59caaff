/**
 * The create and delete requests of the list screens (trunks, routes, PTT), with the
 * toasts of spec section 8 and the list refetch of section 7.
 */
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { toast } from "@/components/ui/use-toast";
import { sendJson } from "./api";
import { errorText } from "./error-text";
import { applyServerErrors } from "./form-errors";

/** The list URL doubles as the query key (lib/query-client.ts). */
const urlOf = (listKey: QueryKey) => listKey.join("/");

/**
 * POSTs `body` to the list URL. Success: toast, refetch the list, then `onCreated`
 * (close and reset the dialog). Failure: the server's field errors go under the
 * inputs, a destructive toast says what failed, and the returned message is for
 * the form (undefined when every problem landed on a field).
 */
export function useCreate<TForm extends FieldValues, TBody>(opts: {
  listKey: QueryKey;
  success: string;
  failure: string;
  setError: UseFormSetError<TForm>;
  fields: readonly Path<TForm>[];
  onCreated: () => void;
  onFormError: (message: string | undefined) => void;
}) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: TBody) => sendJson<unknown>("POST", urlOf(opts.listKey), body),
    onMutate: () => opts.onFormError(undefined),
    onSuccess: async () => {
      toast({ title: opts.success });
      opts.onCreated();
      await client.invalidateQueries({ queryKey: opts.listKey });
    },
    onError: (err) => {
      const message = applyServerErrors(err, opts.setError, opts.fields);
      opts.onFormError(message);
      toast({ variant: "destructive", title: opts.failure, description: message ?? "Check the highlighted fields." });
    },
  });
}

/**
 * DELETE `<list URL>/<id>`, then refetch the list (the button spins until the card is gone).
 * A refusal (e.g. 409) shows the server's reason.
 */
export function useDelete(opts: { listKey: QueryKey; success: string; failure: string }) {
  const client = useQueryClient();
  const mutation = useMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `${urlOf(opts.listKey)}/${id}`),
    onSuccess: () => toast({ title: opts.success }),
    onError: (err) => toast({ variant: "destructive", title: opts.failure, description: errorText(err) }),
    // Also after a failure: a 404 means someone else deleted it, and the card should go.
    onSettled: () => client.invalidateQueries({ queryKey: opts.listKey }),
  });
  return {
    remove: (id: number) => mutation.mutate(id),
    isDeleting: (id: number) => mutation.isPending && mutation.variables === id,
  };
}

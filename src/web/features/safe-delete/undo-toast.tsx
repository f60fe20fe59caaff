/**
 * A delete's toasts with an Undo (ADR 0037): the success toast carries an "Undo" for as long as the server
 * keeps the delete (a second less, so a click never arrives just after it expired); a failure says why.
 */
import type { QueryKey } from "@tanstack/react-query";
import { ToastAction } from "@/components/ui/toast";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import type { MutationUi } from "@/lib/mutations";
import type { DeleteAnswer } from "../../../shared/safe-delete";
import { useUndoDelete } from "./api";

const UNDO_MARGIN_MS = 1000;

/**
 * The toasts of a delete that answers an undo token; `invalidates` are the lists the restored object shows in,
 * `afterUndo` what the delete's own success triggered outside the console (run again once the undo is in).
 */
export function undoableDeleteToasts<TVars>(
  success: string,
  failure: string,
  invalidates: readonly QueryKey[],
  reason: (err: unknown) => string = errorText,
  afterUndo?: () => void,
): MutationUi<DeleteAnswer, TVars> {
  return {
    onSuccess: (answer) =>
      toast({
        title: success,
        duration: Math.max(answer.expiresInMs - UNDO_MARGIN_MS, UNDO_MARGIN_MS),
        action: <UndoAction token={answer.undoToken} invalidates={invalidates} afterUndo={afterUndo} />,
      }),
    onError: (err) => toast({ variant: "destructive", title: failure, description: reason(err) }),
  };
}

function UndoAction({
  token,
  invalidates,
  afterUndo,
}: {
  token: string;
  invalidates: readonly QueryKey[];
  afterUndo?: () => void;
}) {
  const undo = useUndoDelete(
    invalidates,
    {
      onSuccess: () => toast({ title: "Delete undone" }),
      // 410: the window closed, or the number or name was taken in the meantime; the server says which.
      onError: (err) =>
        toast({ variant: "destructive", title: "Could not undo the delete", description: errorText(err) }),
    },
    afterUndo,
  );
  return (
    <ToastAction altText="Undo the delete" onClick={() => undo.mutate(token)} disabled={undo.isPending}>
      Undo
    </ToastAction>
  );
}

/**
 * The confirmation every delete goes through (ADR 0037): it names the object, lists what depends on it
 * (read from the server when it opens), and, when a dependent blocks the delete, says what to change first
 * with Delete disabled. After a delete focus goes to the screen's heading (the card and its button are
 * gone); after Cancel back to the button that opened it.
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle } from "lucide-react";
import { type ReactNode, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { dependentsQuery } from "@/features/safe-delete/api";
import { errorText } from "@/lib/error-text";
import type { UndoKind } from "../../shared/safe-delete";

const DEPENDENT_LABEL: Record<UndoKind, string> = {
  extension: "Extension",
  trunk: "Trunk",
  "inbound-route": "Inbound route",
  "outbound-route": "Outbound route",
  "ptt-group": "PTT group",
  "ring-group": "Ring group",
  queue: "Queue",
  ivr: "IVR",
  announcement: "Announcement",
  "time-group": "Time group",
  "time-condition": "Time condition",
  "ai-assistant": "AI assistant",
  "ai-rule": "Routing rule",
};

/** Where focus goes once the deleted card is gone: the screen's heading (made focusable for it). */
export function focusScreenHeading(): void {
  const heading = document.querySelector<HTMLElement>("main h1") ?? document.querySelector<HTMLElement>("h1");
  if (!heading) return;
  if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
  heading.focus();
}

export function ConfirmDeleteDialog({
  what,
  name,
  list,
  id,
  onDelete,
  onClosed,
  children,
}: {
  /** The kind in words: "extension", "trunk", "inbound route"… */
  what: string;
  /** The object's name as the card shows it. */
  name: string;
  /** The list's query key and the object's id: where its dependents are read (`<list>/:id/dependents`). */
  list: readonly string[];
  id: number;
  /** Runs the delete; resolves once the list no longer shows it (a rejection is the mutation's own toast). */
  onDelete: () => Promise<unknown>;
  /** Once it has closed (deleted or cancelled), focus moved. */
  onClosed?: () => void;
  /** The delete button, given the function that opens this confirmation. */
  children: (ask: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  const deleted = useRef(false);
  const deps = useQuery({ ...dependentsQuery(list, id), enabled: open });
  const blocked = deps.data?.blockedBecause ?? null;
  const ask = () => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    deleted.current = false;
    setOpen(true);
  };
  const confirm = async () => {
    setPending(true);
    try {
      await onDelete();
      deleted.current = true;
    } catch {
      // The mutation's toast says why; the card is still there.
    } finally {
      setPending(false);
      setOpen(false);
    }
  };
  return (
    <>
      {children(ask)}
      <Dialog open={open} onOpenChange={(next) => !pending && setOpen(next)}>
        <DialogContent
          data-testid="confirm-delete"
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            if (deleted.current || !opener.current?.isConnected) focusScreenHeading();
            else opener.current.focus();
            onClosed?.();
          }}
        >
          <DialogHeader>
            <DialogTitle>
              Delete {what} {name}?
            </DialogTitle>
            <DialogDescription>
              {blocked ? "It cannot be deleted while other objects use it." : "You can undo this for a few seconds."}
            </DialogDescription>
          </DialogHeader>
          {deps.isPending ? (
            <p role="status" className="flex items-center gap-2 text-muted-foreground text-sm">
              <LoaderCircle className="size-4 animate-spin" aria-hidden /> Checking what uses it…
            </p>
          ) : deps.isError ? (
            <p role="alert" className="text-destructive text-sm">
              Could not check what uses it: {errorText(deps.error)}
            </p>
          ) : deps.data.dependents.length === 0 ? (
            <p className="text-muted-foreground text-sm">Nothing else in the console uses it.</p>
          ) : (
            <div className="grid gap-2 text-sm">
              <p className="font-medium">Used by:</p>
              <ul aria-label="Used by" className="grid gap-1">
                {deps.data.dependents.map((d) => (
                  <li key={`${d.kind}-${d.id}`}>
                    {DEPENDENT_LABEL[d.kind]} <span className="font-medium">{d.label}</span>
                  </li>
                ))}
              </ul>
              {blocked && (
                <p role="alert" className="rounded-md border border-destructive/40 p-3 text-destructive">
                  {blocked}
                </p>
              )}
            </div>
          )}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => setOpen(false)} disabled={pending}>
              Cancel
            </Button>
            <Button
              type="button"
              variant="destructive"
              onClick={confirm}
              disabled={pending || !deps.isSuccess || Boolean(blocked)}
            >
              {pending && <LoaderCircle className="animate-spin" aria-hidden />}
              Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  );
}

/** The confirmation before a message or greeting is deleted from the PBX (there is no undo). */
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

export function ConfirmVoicemailDelete({
  title,
  description,
  onDelete,
  children,
}: {
  title: string;
  description: string;
  /** Runs the delete; a rejection is the mutation's own toast. */
  onDelete: () => Promise<unknown>;
  /** The delete button, given the function that opens this confirmation. */
  children: (ask: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  const ask = () => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpen(true);
  };
  const confirm = async () => {
    setPending(true);
    try {
      await onDelete();
    } catch {
      // The delete's toast says why.
    } finally {
      setPending(false);
      setOpen(false);
    }
  };
  return (
    <>
      {children(ask)}
      <Dialog
        open={open}
        onOpenChange={(next) => {
          if (!pending) setOpen(next);
          if (!next) opener.current?.focus();
        }}
      >
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription>{description}</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => setOpen(false)} disabled={pending}>
              Cancel
            </Button>
            <Button type="button" variant="destructive" onClick={() => void confirm()} disabled={pending}>
              {pending && <LoaderCircle className="animate-spin" />}
              Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  );
}

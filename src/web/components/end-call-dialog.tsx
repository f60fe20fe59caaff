/**
 * The confirmation before ending a live call (Active Calls' hang-up, Live AI Calls' End call): the call's
 * text stays while the dialog fades out after closing, and nothing closes it while the request runs.
 */
import { LoaderCircle, PhoneOff } from "lucide-react";
import { type ReactNode, useRef } from "react";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";

export function EndCallDialog<T>({
  call: asked,
  onClose,
  title,
  describe,
  action,
  pending,
  onConfirm,
}: {
  /** The call asked about; null: closed. */
  call: T | null;
  onClose: () => void;
  title: string;
  describe: (call: T) => ReactNode;
  /** The confirming button's text ("Hang up", "End call"). */
  action: string;
  pending: boolean;
  /** Ends the call; null when it cannot be ended (the button is disabled). */
  onConfirm: ((call: T) => void) | null;
}) {
  const last = useRef<T | null>(null);
  if (asked) last.current = asked;
  const call = asked ?? last.current;
  return (
    <Dialog open={asked !== null} onOpenChange={(open) => !open && !pending && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{call ? describe(call) : ""}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline" disabled={pending}>
              Cancel
            </Button>
          </DialogClose>
          <Button variant="destructive" disabled={!onConfirm || pending} onClick={() => call && onConfirm?.(call)}>
            {pending ? <LoaderCircle className="animate-spin" /> : <PhoneOff />}
            {action}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

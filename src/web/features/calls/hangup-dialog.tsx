import { LoaderCircle, PhoneOff } from "lucide-react";
import { useRef } from "react";
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
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import type { ActiveCall } from "../../../shared/live";
import { useHangup } from "./api";
import { partyText } from "./format";

/**
 * The channel a hang-up ends: the call's first channel (the caller's leg, or the trunk's on an inbound
 * call). Asterisk then ends the legs bridged to it.
 */
export function hangupChannel(call: ActiveCall): string | null {
  const first = [...call.channels].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt))[0];
  return first?.channel ?? null;
}

/** "the call from Alice Johnson (1001) to 1002" */
export function callName(call: ActiveCall): string {
  return `the call from ${partyText(call.caller)} to ${partyText(call.callee)}`;
}

/** Asks before ending `call` (null: closed); toasts the outcome. */
export function HangupDialog({ call: asked, onClose }: { call: ActiveCall | null; onClose: () => void }) {
  // The text stays while the dialog fades out after closing.
  const last = useRef<ActiveCall | null>(null);
  if (asked) last.current = asked;
  const call = asked ?? last.current;
  const hangup = useHangup({
    onSuccess: () => {
      toast({ title: "Call hung up" });
      onClose();
    },
    onError: (err) => {
      toast({ variant: "destructive", title: "Failed to hang up the call", description: errorText(err) });
      onClose();
    },
  });
  const channel = call ? hangupChannel(call) : null;
  return (
    <Dialog open={asked !== null} onOpenChange={(open) => !open && !hangup.isPending && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Hang up this call?</DialogTitle>
          <DialogDescription>
            {call ? `This ends ${callName(call)} for everyone on it.` : ""}
            {channel && (
              <>
                {" "}
                Channel <span className="break-all font-mono">{channel}</span>.
              </>
            )}
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline" disabled={hangup.isPending}>
              Cancel
            </Button>
          </DialogClose>
          <Button
            variant="destructive"
            disabled={!channel || hangup.isPending}
            onClick={() => channel && hangup.mutate({ channel })}
          >
            {hangup.isPending ? <LoaderCircle className="animate-spin" /> : <PhoneOff />}
            Hang up
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

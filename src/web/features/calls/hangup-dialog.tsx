import { EndCallDialog } from "@/components/end-call-dialog";
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
export function HangupDialog({ call, onClose }: { call: ActiveCall | null; onClose: () => void }) {
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
    <EndCallDialog
      call={call}
      onClose={onClose}
      title="Hang up this call?"
      describe={(c) => {
        const first = hangupChannel(c);
        return (
          <>
            {`This ends ${callName(c)} for everyone on it.`}
            {first && (
              <>
                {" "}
                Channel <span className="break-all font-mono">{first}</span>.
              </>
            )}
          </>
        );
      }}
      action="Hang up"
      pending={hangup.isPending}
      onConfirm={channel ? () => hangup.mutate({ channel }) : null}
    />
  );
}

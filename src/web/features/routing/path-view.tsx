import {
  Ban,
  CircleHelp,
  Megaphone,
  Phone,
  PhoneCall,
  PhoneIncoming,
  PhoneOff,
  Radio,
  Repeat,
  Signpost,
  Timer,
  Users,
  Voicemail,
} from "lucide-react";
import type { ComponentType } from "react";
import { Badge } from "@/components/ui/badge";
import { DESTINATION_LABELS } from "../../../shared/destinations";
import type { RoutingFinal, RoutingPath, StepKind } from "../../../shared/routing";

/** Each step kind's icon, the same in a path and in a call flow. */
export const STEP_ICONS: Record<StepKind, ComponentType<{ className?: string; "aria-hidden"?: boolean }>> = {
  trunk: PhoneIncoming,
  "inbound-route": Signpost,
  extension: Phone,
  voicemail: Voicemail,
  "ring-group": PhoneCall,
  queue: Users,
  ivr: CircleHelp,
  "time-condition": Timer,
  announcement: Megaphone,
  "page-group": Radio,
  hangup: PhoneOff,
  loop: Repeat,
  other: Ban,
};

/** Where the call ends, in one line: "Rings 1001, 1002", "Ends in voicemail 1001", "Hung up". */
export function finalText(final: RoutingFinal): string {
  if (final.ringing.length) return `Rings ${final.ringing.join(", ")}`;
  switch (final.kind) {
    case "hangup":
      return "The call is hung up";
    case "voicemail":
      return `Ends in voicemail ${final.target}`;
    case "other":
      return `Stops at FreePBX destination ${final.target}`;
    default:
      return `Ends at ${DESTINATION_LABELS[final.kind]} ${final.target}, where no phone rings`;
  }
}

/** A call's path: each step with its icon, what it is and why the call is there, then where it ends. */
export function PathView({ path, label }: { path: RoutingPath; label: string }) {
  return (
    <section aria-label={label} className="grid gap-3">
      <ol className="grid gap-2">
        {path.steps.map((step, i) => {
          const Icon = STEP_ICONS[step.kind];
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a path's steps never reorder; a loop repeats a target
            <li key={i} className="flex gap-3 rounded-md border p-3" data-step={step.kind}>
              <Icon className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
              <div className="grid gap-1">
                <span className="font-medium">{step.label}</span>
                <span className="text-muted-foreground text-sm">{step.why}</span>
              </div>
            </li>
          );
        })}
      </ol>
      <p className="flex items-center gap-2 font-medium" data-final={path.final.kind}>
        <Badge variant={path.final.ringing.length ? "default" : "secondary"}>{finalText(path.final)}</Badge>
      </p>
    </section>
  );
}

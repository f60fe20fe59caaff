import { ArrowLeftRight, PhoneIncoming, PhoneOutgoing } from "lucide-react";
import type { CallDirection, CallParty } from "../../../shared/live";
import { DIRECTION_LABELS } from "./format";

/** A caller or callee: the name over the number (or just the number), in a table cell. */
export function PartyCell({ party }: { party: CallParty }) {
  const number = party.number.trim();
  const name = party.name.trim();
  if (!number && !name) return <span className="text-muted-foreground">Unknown</span>;
  if (!name || name === number) return <span className="font-mono">{number}</span>;
  return (
    <span className="grid min-w-0">
      <span className="truncate font-medium" title={name}>
        {name}
      </span>
      <span className="font-mono text-muted-foreground text-xs">{number || "—"}</span>
    </span>
  );
}

const DIRECTION_ICONS = { inbound: PhoneIncoming, outbound: PhoneOutgoing, internal: ArrowLeftRight } as const;

/** Inbound / Outbound / Internal with its icon. */
export function DirectionLabel({ direction }: { direction: CallDirection }) {
  const Icon = DIRECTION_ICONS[direction];
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
      <Icon className="size-3.5 shrink-0 text-muted-foreground" aria-hidden />
      {DIRECTION_LABELS[direction]}
    </span>
  );
}

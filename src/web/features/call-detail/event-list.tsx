/** Every event of the call in time order, as offsets from its start, and the transfers CEL recorded. */
import { Badge } from "@/components/ui/badge";
import type { CallTransfer } from "../../../shared/calls";
import { formatOffset, SOURCE_LABELS, type TimelineItem } from "./timeline";

export function EventList({ items }: { items: TimelineItem[] }) {
  if (items.length === 0) return <p className="text-muted-foreground text-sm">No event was recorded for this call.</p>;
  return (
    <ol aria-label="Events in time order" className="grid divide-y text-sm">
      {items.map((item) => (
        <li
          key={item.key}
          data-testid="call-event"
          data-type={item.type}
          data-source={item.source}
          className="grid grid-cols-[4.5rem_minmax(0,1fr)] gap-x-3 gap-y-1 py-2 sm:grid-cols-[5.5rem_6rem_minmax(0,1fr)]"
        >
          <span className="whitespace-nowrap text-muted-foreground tabular-nums" data-testid="call-event-offset">
            {item.offsetMs === null ? (
              <span title="This turn was stored without its time">—</span>
            ) : (
              formatOffset(item.offsetMs)
            )}
          </span>
          <span>
            <Badge variant="outline">{SOURCE_LABELS[item.source]}</Badge>
          </span>
          <span className="col-span-2 min-w-0 sm:col-span-1">
            <span className="block break-words" data-testid="call-event-text">
              {item.text}
            </span>
            <span className="block truncate font-mono text-muted-foreground text-xs">
              {item.type}
              {item.channel && ` · ${item.channel}`}
            </span>
          </span>
        </li>
      ))}
    </ol>
  );
}

const KIND_LABELS: Record<CallTransfer["kind"], string> = { blind: "Blind transfer", attended: "Attended transfer" };

/** The transfers within the call, each with when, by whom and to where. */
export function TransferList({ transfers, start }: { transfers: CallTransfer[]; start: number }) {
  return (
    <ul aria-label="Transfers" className="grid gap-2 text-sm">
      {transfers.map((t) => {
        const at = Date.parse(t.at);
        return (
          <li
            key={`${t.at}-${t.kind}-${t.by}-${t.to}`}
            data-testid="call-transfer"
            data-kind={t.kind}
            className="flex flex-wrap gap-x-2"
          >
            <span className="text-muted-foreground tabular-nums">
              {Number.isNaN(at) ? "" : formatOffset(at - start)}
            </span>
            <span>
              {KIND_LABELS[t.kind]} by <span className="font-mono">{t.by || "unknown"}</span> to{" "}
              <span className="font-mono">{t.to || "unknown"}</span>
            </span>
          </li>
        );
      })}
    </ul>
  );
}

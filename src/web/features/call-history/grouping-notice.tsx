import { Info } from "lucide-react";

/**
 * The server's sentence on how the calls were grouped when it is not the usual way (a call records
 * table without `linkedid`, ADR 0049): shown above the figures and the table, which it explains.
 */
export function GroupingNotice({ notice }: { notice: string | null | undefined }) {
  if (!notice) return null;
  return (
    <p
      role="note"
      data-testid="history-grouping-notice"
      className="flex items-start gap-2 rounded-lg border border-warning bg-muted/40 px-4 py-3 text-sm"
    >
      <Info className="mt-0.5 size-4 shrink-0" aria-hidden />
      <span>{notice}</span>
    </p>
  );
}

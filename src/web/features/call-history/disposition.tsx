import { Badge } from "@/components/ui/badge";
import type { CdrCall, CdrDisposition } from "../../../shared/live";

export const DISPOSITION_LABELS: Record<CdrDisposition, string> = {
  ANSWERED: "Answered",
  "NO ANSWER": "No answer",
  BUSY: "Busy",
  FAILED: "Failed",
  CONGESTION: "Congestion",
};

const VARIANT = {
  ANSWERED: "success",
  "NO ANSWER": "warning",
  BUSY: "warning",
  FAILED: "destructive",
  CONGESTION: "destructive",
  UNKNOWN: "outline",
} as const;

/** A call's result as a word (the colour only repeats it). */
export function DispositionBadge({ disposition }: { disposition: CdrCall["disposition"] }) {
  return (
    <Badge variant={VARIANT[disposition]} data-disposition={disposition}>
      {disposition === "UNKNOWN" ? "Unknown" : DISPOSITION_LABELS[disposition]}
    </Badge>
  );
}

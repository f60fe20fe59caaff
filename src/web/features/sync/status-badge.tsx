import { Badge } from "@/components/ui/badge";
import type { RowStatus } from "./config";

const VARIANT = {
  "Not in Dashboard": "outline",
  "Needs Sync": "warning",
  Synced: "success",
} as const;

export function SyncStatusBadge({ status }: { status: RowStatus }) {
  return (
    <Badge variant={VARIANT[status]} data-testid="sync-status">
      {status}
    </Badge>
  );
}

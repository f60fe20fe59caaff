import { Badge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";

/** A service's state: Not Configured → Configured (Not Active) → Connected (its last test succeeded). */
export function CredentialStatusBadge({ status }: { status?: { configured: boolean; connected: boolean } }) {
  if (!status) return <Skeleton className="h-5 w-24" />;
  if (status.connected)
    return (
      <Badge variant="success" data-testid="credential-status">
        Connected
      </Badge>
    );
  if (status.configured)
    return (
      <Badge variant="secondary" data-testid="credential-status">
        Configured (Not Active)
      </Badge>
    );
  return (
    <Badge variant="outline" data-testid="credential-status">
      Not Configured
    </Badge>
  );
}

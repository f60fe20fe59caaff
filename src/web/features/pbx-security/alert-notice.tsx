import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { ShieldAlert } from "lucide-react";
import { pbxSecurityQuery } from "@/features/live/api";
import { formatNumber } from "@/lib/format";

/** Sources shown by address in the tile; the rest are counted. */
const SHOWN = 3;

/**
 * The Dashboard's warning while a source address is over the failed sign-in threshold in the last hour
 * (GET /api/pbx/security `alerts`). Nothing otherwise, also while AMI is not connected (the live counts
 * say that).
 */
export function SecurityAlertNotice() {
  const security = useQuery(pbxSecurityQuery());
  const alerts = security.data?.alerts ?? [];
  if (alerts.length === 0) return null;
  const n = alerts.length;
  const threshold = security.data?.threshold ?? 0;
  const shown = alerts.slice(0, SHOWN);
  return (
    <div
      role="status"
      aria-label="Failed sign-in warning"
      data-testid="security-alert-notice"
      className="flex flex-col gap-3 rounded-lg border border-destructive/50 bg-destructive/10 px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex min-w-0 items-start gap-2">
        <ShieldAlert className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
        <p className="min-w-0">
          <span className="font-medium">
            {n} {n === 1 ? "address" : "addresses"} exceeded {threshold} failed sign-ins in the last hour.{" "}
          </span>
          <span className="break-words text-muted-foreground">
            {shown.map((a) => `${a.address} (${formatNumber(a.failures)})`).join(", ")}
            {n > SHOWN ? ` and ${n - SHOWN} more` : ""}. Block them in the firewall or fail2ban if they are not yours.
          </span>
        </p>
      </div>
      <Link to="/pbx-security" className="shrink-0 font-medium text-primary text-sm underline-offset-4 hover:underline">
        Open PBX Security
      </Link>
    </div>
  );
}

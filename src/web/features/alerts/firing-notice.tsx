import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { BellRing } from "lucide-react";
import { firingAlertsQuery } from "./api";

/** Alerts named in the notice; the rest are counted. */
const SHOWN = 3;

/** The Dashboard's notice while alerts fire: how many, the first few, and the way to the Alerts screen. */
export function FiringAlertsNotice() {
  const firing = useQuery(firingAlertsQuery());
  const n = firing.data?.firing ?? 0;
  if (n === 0) return null;
  const shown = (firing.data?.items ?? []).slice(0, SHOWN);
  return (
    <div
      role="status"
      aria-label="Firing alerts"
      data-testid="firing-alerts-notice"
      className="flex flex-col gap-3 rounded-lg border border-destructive/50 bg-destructive/10 px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex min-w-0 items-start gap-2">
        <BellRing className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
        <p className="min-w-0">
          <span className="font-medium">
            {n} {n === 1 ? "alert is" : "alerts are"} firing.{" "}
          </span>
          <span className="break-words text-muted-foreground">
            {shown.map((e) => e.message).join("; ")}
            {n > SHOWN ? ` and ${n - SHOWN} more` : ""}.
          </span>
        </p>
      </div>
      <Link to="/alerts" className="shrink-0 font-medium text-primary text-sm underline-offset-4 hover:underline">
        Open Alerts
      </Link>
    </div>
  );
}

import { ScreenHeader } from "@/components/list-kit";
import { AlertChannelsCard } from "@/features/alert-channels/alert-channels-card";
import { AlertHistoryCard, FiringAlertsCard } from "@/features/alerts/alert-tables";
import { AlertRulesCard } from "@/features/alerts/rules-card";

/** The Alerts screen: what fires now, the rules, the channels alerts go to, and the history (ADR 0063). */
export function AlertsPage() {
  return (
    <>
      <ScreenHeader
        title="Alerts"
        subtitle="Rules that watch the PBX and this console, where their alerts go, and what fired"
      />
      <div className="grid gap-6">
        <FiringAlertsCard />
        <AlertRulesCard />
        <AlertChannelsCard />
        <AlertHistoryCard />
      </div>
    </>
  );
}

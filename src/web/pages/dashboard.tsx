import { PageHeader } from "@/components/layout/page-header";
import { FiringAlertsNotice } from "@/features/alerts/firing-notice";
import { CountCards } from "@/features/dashboard/count-cards";
import { PbxChangesNotice } from "@/features/dashboard/pbx-changes-notice";
import { VpsCards } from "@/features/dashboard/vps-cards";
import { OffsiteStatusCard } from "@/features/offsite-backups/dashboard-card";
import { SecurityAlertNotice } from "@/features/pbx-security/alert-notice";

export function DashboardPage() {
  return (
    <>
      <PageHeader title="Dashboard" subtitle="Monitor your VPS and FreePBX system at a glance" />
      <FiringAlertsNotice />
      <PbxChangesNotice />
      <SecurityAlertNotice />
      <VpsCards />
      <CountCards />
      <OffsiteStatusCard />
    </>
  );
}

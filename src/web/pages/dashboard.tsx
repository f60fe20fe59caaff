import { PageHeader } from "@/components/layout/page-header";

export function DashboardPage() {
  return <PageHeader title="Dashboard" subtitle="Monitor your VPS and FreePBX system at a glance" />;
}

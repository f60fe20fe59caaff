import { PageHeader } from "@/components/layout/page-header";

export function OutboundRoutesPage() {
  return <PageHeader title="Outbound Routes" subtitle="Choose which trunk places outgoing calls by dial pattern" />;
}

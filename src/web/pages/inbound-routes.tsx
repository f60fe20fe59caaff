import { PageHeader } from "@/components/layout/page-header";

export function InboundRoutesPage() {
  return <PageHeader title="Inbound Routes" subtitle="Send incoming calls to the right destination by DID number" />;
}

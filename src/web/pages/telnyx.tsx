import { PageHeader } from "@/components/layout/page-header";

export function TelnyxPage() {
  return <PageHeader title="SIP Provider" subtitle="Connections, SIP credentials and phone number routing" />;
}

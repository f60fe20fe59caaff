import { PageHeader } from "@/components/layout/page-header";

export function TrunksPage() {
  return <PageHeader title="Trunks" subtitle="Connect the PBX to your SIP carriers" />;
}

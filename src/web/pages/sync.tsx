import { PageHeader } from "@/components/layout/page-header";

export function SyncPage() {
  return (
    <PageHeader title="Sync Configuration" subtitle="Compare extensions and trunks on the live PBX and import them" />
  );
}

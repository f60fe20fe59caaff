import { PageHeader } from "@/components/layout/page-header";

export function ExtensionsPage() {
  return <PageHeader title="Extensions" subtitle="Create and manage SIP extensions and softphone provisioning" />;
}

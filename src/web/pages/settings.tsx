import { PageHeader } from "@/components/layout/page-header";

export function SettingsPage() {
  return (
    <PageHeader
      title="API Settings"
      subtitle="Credentials for the VPS host, the FreePBX GraphQL API and device management"
    />
  );
}

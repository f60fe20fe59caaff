import { PageHeader } from "@/components/layout/page-header";

export function DeploymentPage() {
  return <PageHeader title="Deployment" subtitle="Push trunks, extensions and PTT groups to the PBX server" />;
}

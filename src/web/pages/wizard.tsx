import { PageHeader } from "@/components/layout/page-header";

export function WizardPage() {
  return <PageHeader title="Configuration Wizard" subtitle="Deploy a starter configuration in a few steps" />;
}

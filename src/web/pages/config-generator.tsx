import { PageHeader } from "@/components/layout/page-header";

export function ConfigGeneratorPage() {
  return <PageHeader title="Configuration Generator" subtitle="Generate SQL statements and manual deployment steps" />;
}

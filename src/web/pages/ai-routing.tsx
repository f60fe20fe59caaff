import { PageHeader } from "@/components/layout/page-header";

export function AiRoutingPage() {
  return <PageHeader title="AI Routing Rules" subtitle="Decide where calls go based on what callers say" />;
}

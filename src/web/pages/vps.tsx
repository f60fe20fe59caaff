import { PageHeader } from "@/components/layout/page-header";

export function VpsPage() {
  return <PageHeader title="VPS Management" subtitle="Start, restart and stop the server and watch its resources" />;
}

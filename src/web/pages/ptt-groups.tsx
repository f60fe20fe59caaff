import { PageHeader } from "@/components/layout/page-header";

export function PttGroupsPage() {
  return <PageHeader title="Push-to-Talk Groups" subtitle="Manage push-to-talk groups for instant voice" />;
}

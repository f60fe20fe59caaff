import { PageHeader } from "@/components/layout/page-header";

export function AiAssistantsPage() {
  return <PageHeader title="AI Assistants" subtitle="Voice assistants that answer and handle calls" />;
}

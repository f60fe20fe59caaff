import { PageHeader } from "@/components/layout/page-header";

export function CallTranscriptsPage() {
  return <PageHeader title="Call Transcripts" subtitle="Search and review transcribed calls" />;
}

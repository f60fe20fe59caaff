import { PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { SoftphoneTabs } from "@/features/softphone/softphone-tabs";

export function SangomaTalkPage() {
  return (
    <>
      <PageHeader title="Sangoma Talk Configuration" subtitle="Provision the softphone app with a QR code or link">
        <Badge variant="secondary">Mobile soft client</Badge>
      </PageHeader>
      <SoftphoneTabs />
    </>
  );
}

import { PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { SoftphoneTabs } from "@/features/softphone/softphone-tabs";

export function SangomaTalkPage() {
  return (
    <>
      <PageHeader
        title="Softphone Provisioning"
        subtitle="Set up Linphone with a one-time QR code, or any SIP app with the details by hand"
      >
        <Badge variant="secondary">Mobile soft client</Badge>
      </PageHeader>
      <SoftphoneTabs />
    </>
  );
}

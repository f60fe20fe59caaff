import { PageHeader } from "@/components/layout/page-header";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { ANNOUNCEMENTS, EXTENSIONS, IVRS, QUEUES, RING_GROUPS, TRUNKS } from "@/features/sync/config";
import { SyncTab } from "@/features/sync/sync-tab";

export function SyncPage() {
  return (
    <>
      <PageHeader title="Sync Configuration" subtitle="Import configuration from the live PBX server" />
      <Tabs defaultValue="extensions">
        <TabsList className="h-auto w-full flex-wrap justify-start sm:w-fit">
          <TabsTrigger value="extensions">Extensions</TabsTrigger>
          <TabsTrigger value="trunks">Trunks</TabsTrigger>
          <TabsTrigger value="ring-groups">Ring Groups</TabsTrigger>
          <TabsTrigger value="queues">Queues</TabsTrigger>
          <TabsTrigger value="ivrs">IVRs</TabsTrigger>
          <TabsTrigger value="announcements">Announcements</TabsTrigger>
        </TabsList>
        <TabsContent value="extensions">
          <SyncTab config={EXTENSIONS} />
        </TabsContent>
        <TabsContent value="trunks">
          <SyncTab config={TRUNKS} />
        </TabsContent>
        <TabsContent value="ring-groups">
          <SyncTab config={RING_GROUPS} />
        </TabsContent>
        <TabsContent value="queues">
          <SyncTab config={QUEUES} />
        </TabsContent>
        <TabsContent value="ivrs">
          <SyncTab config={IVRS} />
        </TabsContent>
        <TabsContent value="announcements">
          <SyncTab config={ANNOUNCEMENTS} />
        </TabsContent>
      </Tabs>
    </>
  );
}

import { PageHeader } from "@/components/layout/page-header";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { EXTENSIONS, TRUNKS } from "@/features/sync/config";
import { SyncTab } from "@/features/sync/sync-tab";

export function SyncPage() {
  return (
    <>
      <PageHeader title="Sync Configuration" subtitle="Import configuration from the live PBX server" />
      <Tabs defaultValue="extensions">
        <TabsList>
          <TabsTrigger value="extensions">Extensions</TabsTrigger>
          <TabsTrigger value="trunks">Trunks</TabsTrigger>
        </TabsList>
        <TabsContent value="extensions">
          <SyncTab config={EXTENSIONS} />
        </TabsContent>
        <TabsContent value="trunks">
          <SyncTab config={TRUNKS} />
        </TabsContent>
      </Tabs>
    </>
  );
}

import { Can } from "@/components/can";
import { PageHeader } from "@/components/layout/page-header";
import { AddExtensionDialog } from "@/features/extensions/add-extension-dialog";
import { ExtensionsList } from "@/features/extensions/extensions-list";
import { PushButton } from "@/features/extensions/push-button";

export function ExtensionsPage() {
  return (
    <>
      <div className="flex flex-col gap-4 md:flex-row md:items-end md:justify-between">
        <PageHeader title="Extensions" subtitle="Create and manage SIP extensions and softphone provisioning" />
        <div className="flex flex-wrap gap-2">
          <Can minRole="operator">
            <PushButton />
          </Can>
          <AddExtensionDialog />
        </div>
      </div>
      <ExtensionsList />
    </>
  );
}

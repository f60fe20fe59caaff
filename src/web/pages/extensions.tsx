import { Can } from "@/components/can";
import { PageHeader } from "@/components/layout/page-header";
import { ExportCsvLink } from "@/components/list-kit";
import { bulkExportUrl } from "@/features/bulk-csv/api";
import { ImportCsvDialog } from "@/features/bulk-csv/import-dialog";
import { ExtensionsList } from "@/features/extensions/extensions-list";
import { PushButton } from "@/features/extensions/push-button";
import { DialerHint } from "@/features/softphone/dialer-hint";
import { AddExtensionDialog } from "@/forms/inventory-deferred";

export function ExtensionsPage() {
  return (
    <>
      <div className="flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
        <PageHeader title="Extensions" subtitle="Create and manage SIP extensions and softphone provisioning" />
        <div className="flex flex-wrap gap-2 lg:justify-end">
          <Can minRole="operator">
            <PushButton />
            <ExportCsvLink href={bulkExportUrl("extensions")} />
            <ImportCsvDialog kind="extensions" />
          </Can>
          <AddExtensionDialog />
        </div>
      </div>
      <DialerHint />
      <ExtensionsList />
    </>
  );
}

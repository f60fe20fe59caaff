/**
 * The Inventory screens' forms, each from the one on-demand chunk `forms-inventory.ts` (ADR 0046): the
 * screens and cards import these, never the dialogs' own modules, so the Inventory group's chunk stays
 * free of zod and react-hook-form. A new Inventory form is exported from `forms-inventory.ts` and
 * wrapped here.
 */
import { deferredCreateDialog } from "@/components/deferred-dialog";
import { Card, CardFooter } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { CreateConnectionHeader } from "@/features/telnyx/create-connection-header";
import { deferred } from "@/lib/deferred";

type Forms = typeof import("@/pages/forms-inventory");
/** A form's props (the extension and trunk dialogs' are optional: `= {}`). */
type PropsOf<K extends keyof Forms> = Forms[K] extends (props: infer P) => unknown ? NonNullable<P> : never;

let chunk: Promise<Forms> | undefined;
const forms = () => {
  chunk ??= import("@/pages/forms-inventory");
  return chunk;
};

export const AddExtensionDialog = deferredCreateDialog(
  () => forms().then((m) => m.AddExtensionDialog),
  "Add Extension",
);
export const EditExtensionDialog = deferred<PropsOf<"AddExtensionDialog">>(() =>
  forms().then((m) => m.AddExtensionDialog),
);

export const AddTrunkDialog = deferredCreateDialog(() => forms().then((m) => m.AddTrunkDialog), "Add Trunk");
export const EditTrunkDialog = deferred<PropsOf<"AddTrunkDialog">>(() => forms().then((m) => m.AddTrunkDialog));

export const AddInboundRouteDialog = deferredCreateDialog(
  () => forms().then((m) => m.AddInboundRouteDialog),
  "Add Inbound Route",
);
export const EditInboundRouteDialog = deferred(() => forms().then((m) => m.EditInboundRouteDialog));

export const AddOutboundRouteDialog = deferredCreateDialog(
  () => forms().then((m) => m.AddOutboundRouteDialog),
  "Add Outbound Route",
);
export const EditOutboundRouteDialog = deferred(() => forms().then((m) => m.EditOutboundRouteDialog));

export const AddPttGroupDialog = deferredCreateDialog(() => forms().then((m) => m.AddPttGroupDialog), "Add PTT Group");
export const EditPttGroupDialog = deferred(() => forms().then((m) => m.EditPttGroupDialog));

export const AddRingGroupDialog = deferredCreateDialog(
  () => forms().then((m) => m.AddRingGroupDialog),
  "Add Ring Group",
);
export const EditRingGroupDialog = deferred(() => forms().then((m) => m.EditRingGroupDialog));

export const AddQueueDialog = deferredCreateDialog(() => forms().then((m) => m.AddQueueDialog), "Add Queue");
export const EditQueueDialog = deferred(() => forms().then((m) => m.EditQueueDialog));

export const AddIvrDialog = deferredCreateDialog(() => forms().then((m) => m.AddIvrDialog), "Add IVR");
export const EditIvrDialog = deferred(() => forms().then((m) => m.EditIvrDialog));

export const AddAnnouncementDialog = deferredCreateDialog(
  () => forms().then((m) => m.AddAnnouncementDialog),
  "Add Announcement",
);
export const EditAnnouncementDialog = deferred(() => forms().then((m) => m.EditAnnouncementDialog));

export const AddTimeGroupDialog = deferredCreateDialog(
  () => forms().then((m) => m.AddTimeGroupDialog),
  "Add Time Group",
);
export const EditTimeGroupDialog = deferred(() => forms().then((m) => m.EditTimeGroupDialog));

export const AddTimeConditionDialog = deferredCreateDialog(
  () => forms().then((m) => m.AddTimeConditionDialog),
  "Add Time Condition",
);
export const EditTimeConditionDialog = deferred(() => forms().then((m) => m.EditTimeConditionDialog));

export const UploadRecordingDialog = deferredCreateDialog(
  () => forms().then((m) => m.UploadRecordingDialog),
  "Upload Recording",
);
export const EditRecordingDialog = deferred(() => forms().then((m) => m.EditRecordingDialog));

/** The Telnyx screen's "Create SIP Connection" card: its frame and the form's height until the form arrives. */
function ConnectionFormPlaceholder() {
  return (
    <Card aria-busy>
      <CreateConnectionHeader />
      <div className="grid flex-1 content-start gap-4 px-6">
        <Skeleton className="h-15" />
        <Skeleton className="h-15" />
      </div>
      <CardFooter>
        <Skeleton className="h-9 w-44" />
      </CardFooter>
    </Card>
  );
}

export const CreateConnectionForm = deferred(
  () => forms().then((m) => m.CreateConnectionForm),
  ConnectionFormPlaceholder,
);

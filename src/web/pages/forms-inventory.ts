// The Inventory screens' forms (react-hook-form, zod and the shared schemas), one chunk loaded on demand
// through forms/inventory-deferred.tsx (ADR 0046). A new Inventory form goes here.

export { AddAnnouncementDialog, EditAnnouncementDialog } from "@/features/announcements/add-announcement-dialog";
export { AddInboundRouteDialog, EditInboundRouteDialog } from "@/features/call-routes/add-inbound-route-dialog";
export { AddOutboundRouteDialog, EditOutboundRouteDialog } from "@/features/call-routes/add-outbound-route-dialog";
export { AddExtensionDialog } from "@/features/extensions/add-extension-dialog";
export { AddIvrDialog, EditIvrDialog } from "@/features/ivrs/add-ivr-dialog";
export { AddPttGroupDialog, EditPttGroupDialog } from "@/features/ptt/add-ptt-group-dialog";
export { AddQueueDialog, EditQueueDialog } from "@/features/queues/add-queue-dialog";
export { EditRecordingDialog, UploadRecordingDialog } from "@/features/recordings/recording-dialogs";
export { AddRingGroupDialog, EditRingGroupDialog } from "@/features/ring-groups/add-ring-group-dialog";
export { CreateConnectionForm } from "@/features/telnyx/create-connection-form";
export { AddTimeConditionDialog, EditTimeConditionDialog } from "@/features/time-conditions/add-time-condition-dialog";
export { AddTimeGroupDialog, EditTimeGroupDialog } from "@/features/time-conditions/add-time-group-dialog";
export { AddTrunkDialog } from "@/features/trunks/add-trunk-dialog";
export { SHARED_MODULES, TooltipProvider } from "./common";
export { FORM_MODULES } from "./common-forms";

/**
 * What two or more screen groups use, gathered into one chunk. Bun splits a module that several lazy
 * entries share into a chunk per set of entries that reach it, and has no manual chunking: the inventory
 * group alone came in 16 to 22 files, most under 1 KB, and on a 40 ms link each file is a request in a
 * queue of six. Every group barrel re-exports `SHARED_MODULES`, so every group reaches all of these and
 * they land in one chunk: a screen pays a few KB it may not use instead of a dozen round trips (ADR 0030).
 * Add a module here when the chunk table (`bun scripts/chunk-sizes.ts`) shows it split out on its own,
 * unless it brings zod or react-hook-form: those go into `common-forms.ts`, which the Inventory group
 * does not load until a form is wanted (ADR 0046).
 */
import { infiniteQueryOptions, useInfiniteQuery } from "@tanstack/react-query";
import * as virtual from "@tanstack/react-virtual";
import * as icons from "lucide-react";
import * as can from "@/components/can";
import * as confirmDelete from "@/components/confirm-delete-dialog";
import * as deferredDialog from "@/components/deferred-dialog";
import * as detailPage from "@/components/detail-page";
import * as editButton from "@/components/edit-button";
import * as emptyState from "@/components/empty-state";
import * as endCallDialog from "@/components/end-call-dialog";
import * as pageHeader from "@/components/layout/page-header";
import * as listKit from "@/components/list-kit";
import * as sectionCard from "@/components/section-card";
import * as badge from "@/components/ui/badge";
import * as checkbox from "@/components/ui/checkbox";
import * as dialog from "@/components/ui/dialog";
import * as formField from "@/components/ui/form-field";
import * as input from "@/components/ui/input";
import * as label from "@/components/ui/label";
import * as progress from "@/components/ui/progress";
import * as select from "@/components/ui/select";
import * as skeleton from "@/components/ui/skeleton";
import * as switchUi from "@/components/ui/switch";
import * as tabs from "@/components/ui/tabs";
import * as textarea from "@/components/ui/textarea";
import * as toast from "@/components/ui/toast";
import * as tooltip from "@/components/ui/tooltip";
import * as virtualTable from "@/components/virtual-table";
import * as deploymentApi from "@/features/deployment/api";
import * as extensionsFilter from "@/features/extensions/filter";
import * as jobsApi from "@/features/jobs/api";
import * as offsiteApi from "@/features/offsite-backups/api";
import * as offsiteHealth from "@/features/offsite-backups/health";
import * as reviewStale from "@/features/review/stale-plan";
import * as safeDeleteApi from "@/features/safe-delete/api";
import * as undoToast from "@/features/safe-delete/undo-toast";
import * as secretInput from "@/features/settings/secret-input";
import * as softphoneApi from "@/features/softphone/api";
import * as linkView from "@/features/softphone/link-view";
import * as telnyxApi from "@/features/telnyx/api";
import * as telnyxConnectionHeader from "@/features/telnyx/create-connection-header";
import * as copied from "@/hooks/use-copied";
import * as debounced from "@/hooks/use-debounced";
import * as now from "@/hooks/use-now";
import * as windowList from "@/hooks/use-window-list";
import * as clipboard from "@/lib/clipboard";
import * as sharedIp from "../../shared/ip";
import * as sharedProvisioning from "../../shared/provisioning";
import * as sharedSort from "../../shared/sort";

const ICONS = [
  icons.Ban,
  icons.Check,
  icons.ChevronDown,
  icons.CloudUpload,
  icons.CircleAlert,
  icons.CircleCheck,
  icons.CircleX,
  icons.Copy,
  icons.Download,
  icons.Eye,
  icons.EyeOff,
  icons.FileText,
  icons.FlaskConical,
  icons.Info,
  icons.Lock,
  icons.Pencil,
  icons.PhoneForwarded,
  icons.PhoneOff,
  icons.Play,
  icons.Plus,
  icons.RotateCw,
  icons.Search,
  icons.SearchX,
  icons.Send,
  icons.Trash,
  icons.Trash2,
  icons.TriangleAlert,
  icons.Undo2,
  icons.Upload,
  icons.X,
];

/** The screens' tooltip provider, which src/web/router.tsx wraps every screen in. */
export { TooltipProvider } from "@/components/ui/tooltip";

export const SHARED_MODULES = [
  infiniteQueryOptions,
  useInfiniteQuery,
  confirmDelete,
  detailPage,
  editButton,
  toast,
  safeDeleteApi,
  undoToast,
  softphoneApi,
  linkView,
  sharedProvisioning,
  sharedIp,
  sharedSort,
  virtual,
  ICONS,
  can,
  deferredDialog,
  emptyState,
  pageHeader,
  sectionCard,
  listKit,
  badge,
  checkbox,
  dialog,
  formField,
  input,
  label,
  progress,
  select,
  skeleton,
  switchUi,
  tabs,
  textarea,
  tooltip,
  virtualTable,
  deploymentApi,
  extensionsFilter,
  telnyxApi,
  offsiteApi,
  offsiteHealth,
  telnyxConnectionHeader,
  endCallDialog,
  now,
  jobsApi,
  reviewStale,
  secretInput,
  copied,
  debounced,
  windowList,
  clipboard,
];

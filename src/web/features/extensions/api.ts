/** Extensions: the list, the provisioning read, create, delete and the web-dialer push. */
import { queryOptions, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { toast } from "@/components/ui/use-toast";
import { sendJson } from "@/lib/api";
import { POLL_LIST_MS } from "@/lib/constants";
import { errorMessage } from "@/lib/error-text";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryClient } from "@/lib/query-client";
import { queryKeys } from "@/lib/query-keys";
import type { DialerStatus } from "../../../shared/credentials";
import type {
  ExtensionBulkDeleteResult,
  ExtensionBulkPatch,
  ExtensionBulkUpdateResult,
} from "../../../shared/extensions-bulk";
import type { Extension, extensionSchema, ProvisioningResponse } from "../../../shared/inventory";
import type { ExtensionRecordingField } from "../../../shared/recording-policy";
import type { DeleteAnswer } from "../../../shared/safe-delete";

/** The cloud push service the web dialer reads extension configs from. */
export const DIALER_SERVICE = "Web Dialer";

/** What Add Extension sends: the schema's fields the dialog edits (the server fills the others in). */
export type NewExtension = Pick<
  z.output<typeof extensionSchema>,
  "extension" | "name" | "email" | "voicemail" | "secret" | ExtensionRecordingField
>;

export const extensionsQuery = () => queryOptions<Extension[]>({ queryKey: queryKeys.extensions });

/** The extension's softphone config; re-read on every mount (the secret or its PTT groups may change). */
export const provisioningQuery = (ext: Extension | null) =>
  queryOptions<ProvisioningResponse>({
    queryKey: queryKeys.extensionProvisioning(ext?.id ?? 0),
    enabled: ext !== null,
    refetchOnMount: "always",
  });

/** The Extensions screen's list, polled every 5 s even while the tab is hidden. */
export function useExtensions() {
  return useQuery({
    ...extensionsQuery(),
    refetchInterval: POLL_LIST_MS,
    refetchIntervalInBackground: true,
    refetchOnMount: "always",
  });
}

/** POST /api/dialer/push-all; answers with how many configs went out. */
async function pushAll(): Promise<number | null> {
  const res = await sendJson<{ count?: number; pushed?: number } | undefined>("POST", "/api/dialer/push-all");
  return res?.count ?? res?.pushed ?? null;
}

/** Whether the web dialer push is set up; kept a minute (API Settings changes make it stale at once). */
export const dialerStatusQuery = () =>
  queryOptions<DialerStatus>({ queryKey: queryKeys.dialerStatus, staleTime: 60_000 });

/**
 * After a create or delete the dialer is refreshed in the background, only when it is configured: a
 * dialer nobody set up is a quiet state (no request, no toast). A configured dialer that fails says so.
 */
export async function pushInBackground() {
  const status = await queryClient.fetchQuery(dialerStatusQuery()).catch(() => null);
  if (!status?.configured) return;
  await pushAll().catch((err: unknown) =>
    toast({
      variant: "destructive",
      title: `Failed to sync extensions to ${DIALER_SERVICE}`,
      description: errorMessage(err),
    }),
  );
}

/** Pushes every extension config to the web dialer's cloud service; answers with how many went out. */
export function usePushAll(ui: MutationUi<number | null, void>) {
  return useApiMutation<number | null>({ mutationFn: pushAll, invalidates: [], ...ui });
}

export function useCreateExtension(ui: MutationUi<Extension, NewExtension>) {
  return useApiMutation({
    mutationFn: (input: NewExtension) => sendJson<Extension>("POST", "/api/extensions", input),
    invalidates: [queryKeys.extensions],
    exact: true,
    afterSuccess: pushInBackground,
    ...ui,
  });
}

/** The edit body: the extension's id and the fields the dialog edits (a blank secret keeps the stored one). */
export type ExtensionEdit = NewExtension & { id: number };

/** PATCH /api/extensions/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateExtension(ui: MutationUi<Extension, ExtensionEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.extensions,
    mutationFn: ({ id, ...body }: ExtensionEdit) => sendJson<Extension>("PATCH", `/api/extensions/${id}`, body),
    apply: (ext, { id: _id, secret, ...edited }) => ({ ...ext, ...edited, hasSecret: ext.hasSecret || !!secret }),
    afterSuccess: pushInBackground,
    ...ui,
  });
}

export function useDeleteExtension(ui: MutationUi<DeleteAnswer, Extension>) {
  return useApiMutation({
    mutationFn: (ext: Extension) => sendJson<DeleteAnswer>("DELETE", `/api/extensions/${ext.id}`),
    invalidates: [queryKeys.extensions],
    exact: true,
    afterSuccess: pushInBackground,
    ...ui,
  });
}

/** POST /api/extensions/bulk-delete/check: what deleting these would do (the confirmation's content). */
export const checkBulkDelete = (ids: number[]) =>
  sendJson<ExtensionBulkDeleteResult>("POST", "/api/extensions/bulk-delete/check", { ids });

/** Deletes the selected extensions in one transaction; the blocked ones come back with the reason. */
export function useBulkDeleteExtensions(ui: MutationUi<ExtensionBulkDeleteResult, number[]>) {
  return useApiMutation({
    mutationFn: (ids: number[]) => sendJson<ExtensionBulkDeleteResult>("POST", "/api/extensions/bulk-delete", { ids }),
    invalidates: [queryKeys.extensions],
    exact: true,
    afterSuccess: pushInBackground,
    ...ui,
  });
}

/** Sets shared fields (voicemail, position) on the selected extensions. */
export function useBulkUpdateExtensions(
  ui: MutationUi<ExtensionBulkUpdateResult, { ids: number[]; patch: ExtensionBulkPatch }>,
) {
  return useApiMutation({
    mutationFn: (body: { ids: number[]; patch: ExtensionBulkPatch }) =>
      sendJson<ExtensionBulkUpdateResult>("POST", "/api/extensions/bulk-update", body),
    invalidates: [queryKeys.extensions],
    exact: true,
    afterSuccess: pushInBackground,
    ...ui,
  });
}

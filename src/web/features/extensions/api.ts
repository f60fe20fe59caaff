/** Extensions: the list, QR code and provisioning reads, create, delete and the web-dialer push. */
import { queryOptions, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { POLL_LIST_MS } from "@/lib/constants";
import { errorMessage } from "@/lib/error-text";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Extension, extensionSchema, ProvisioningResponse } from "../../../shared/inventory";

/** The cloud push service the web dialer reads extension configs from. */
export const DIALER_SERVICE = "Web Dialer";

/** What Add Extension sends: the schema's fields the dialog edits (the server fills the others in). */
export type NewExtension = Pick<
  z.output<typeof extensionSchema>,
  "extension" | "name" | "email" | "voicemail" | "secret"
>;

export const extensionsQuery = () => queryOptions<Extension[]>({ queryKey: queryKeys.extensions });

/** Fetched afresh each time: the code carries the current secret and PTT groups. */
export const qrCodeQuery = (id: number) =>
  queryOptions<{ qrCode: string }>({ queryKey: queryKeys.extensionQrCode(id), staleTime: 0, gcTime: 0 });

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

/** After a create or delete the dialer is refreshed quietly: a failure is only logged. */
function pushInBackground() {
  pushAll().catch((err: unknown) => console.log(`Background push to ${DIALER_SERVICE} failed:`, errorMessage(err)));
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

export function useDeleteExtension(ui: MutationUi<void, Extension>) {
  return useApiMutation({
    mutationFn: (ext: Extension) => sendJson<void>("DELETE", `/api/extensions/${ext.id}`),
    invalidates: [queryKeys.extensions],
    exact: true,
    afterSuccess: pushInBackground,
    ...ui,
  });
}

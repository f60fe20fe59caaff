/** Alert channels: the list, create (a webhook's made secret is in that answer only), edit, delete and "Send test". */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type {
  AlertChannel,
  AlertChannelCreate,
  AlertChannelTestResult,
  AlertChannelUpdate,
  SavedAlertChannel,
} from "../../../shared/alert-channels";

export const alertChannelsQuery = () => queryOptions<AlertChannel[]>({ queryKey: queryKeys.alertChannels });

export function useCreateAlertChannel(ui: MutationUi<SavedAlertChannel, AlertChannelCreate>) {
  return useApiMutation({
    mutationFn: (body: AlertChannelCreate) => sendJson<SavedAlertChannel>("POST", "/api/alerts/channels", body),
    invalidates: [queryKeys.alertChannels],
    ...ui,
  });
}

/** The edit body: the channel's id and its kind's fields (a secret left out keeps the stored one). */
export type AlertChannelEdit = AlertChannelUpdate & { id: number };

export function useUpdateAlertChannel(ui: MutationUi<SavedAlertChannel, AlertChannelEdit>) {
  return useApiMutation({
    mutationFn: ({ id, ...body }: AlertChannelEdit) =>
      sendJson<SavedAlertChannel>("PUT", `/api/alerts/channels/${id}`, body),
    invalidates: [queryKeys.alertChannels],
    ...ui,
  });
}

export function useDeleteAlertChannel(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/alerts/channels/${id}`),
    invalidates: [queryKeys.alertChannels],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Sends a test message now; the answer is the delivery's result (a failure included). */
export function useTestAlertChannel(ui: MutationUi<AlertChannelTestResult, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<AlertChannelTestResult>("POST", `/api/alerts/channels/${id}/test`, {}),
    invalidates: [queryKeys.alertChannels],
    ...ui,
  });
}

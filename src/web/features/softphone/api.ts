/** Softphone provisioning: the one-time link (ADR 0039) and the public SIP host setting it points phones at. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { ProvisioningLink } from "../../../shared/provisioning";
import type { SipSettings, SipSettingsView } from "../../../shared/settings";

/** Where phones dial: the setting, what is in effect, and its warning. */
export const sipSettingsQuery = () => queryOptions<SipSettingsView>({ queryKey: queryKeys.sipSettings });

/** Changes the public SIP host (administrators). */
export function useUpdateSipSettings(ui: MutationUi<SipSettingsView, SipSettings>) {
  return useApiMutation({
    mutationFn: (body: SipSettings) => sendJson<SipSettingsView>("PUT", "/api/settings/sip", body),
    invalidates: [queryKeys.sipSettings],
    ...ui,
  });
}

/** Issues a fresh one-time link for an extension (its earlier link stops working). */
export function useIssueProvisioningLink(ui: MutationUi<ProvisioningLink, number>) {
  return useApiMutation({
    mutationFn: (extensionId: number) =>
      sendJson<ProvisioningLink>("POST", `/api/extensions/${extensionId}/provisioning-link`, {}),
    invalidates: [],
    ...ui,
  });
}

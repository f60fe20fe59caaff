/** The configuration wizard's one request: create the starter configuration. */
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { WizardDeployResult } from "../../../shared/wizard";
import type { WizardOutput } from "./wizard-steps";

/** Sends the reviewed answers (as the last input step); the new extensions and trunk join the lists. */
export function useWizardDeploy(ui: MutationUi<WizardDeployResult, WizardOutput>) {
  return useApiMutation({
    mutationFn: (values: WizardOutput) =>
      sendJson<WizardDeployResult>("POST", "/api/wizard/deploy", { ...values, step: 4 }),
    invalidates: [queryKeys.extensions, queryKeys.trunks],
    waitForRefetch: false,
    ...ui,
  });
}

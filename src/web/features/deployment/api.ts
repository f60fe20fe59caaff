/** Deployment: how the console reaches the PBX (and its reload flag), and the deploy requests. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { DeployAllResponse, DeployResponse, PbxStatus } from "../../../shared/pbx";
import { type DeployRun, type DeployTarget, toRun } from "./model";

export const pbxStatusQuery = () =>
  queryOptions<PbxStatus>({ queryKey: queryKeys.pbxStatus, refetchOnMount: "always" });

/**
 * One mutation for every deploy button, so only one deploy runs at a time. Afterwards, whatever the
 * outcome, trunk status (it follows the PBX) and FreePBX's reload flag are read again.
 */
export function useDeploy(ui: MutationUi<DeployRun, DeployTarget>) {
  return useApiMutation({
    mutationFn: async (target: DeployTarget) =>
      toRun(target, await sendJson<DeployResponse | DeployAllResponse>("POST", `/api/deploy/${target}`)),
    invalidates: [queryKeys.trunks, queryKeys.pbxStatus],
    refetchAfterFailure: true,
    waitForRefetch: false,
    ...ui,
  });
}

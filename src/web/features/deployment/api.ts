/** Deployment: how the console reaches the PBX (and its reload flag), and starting a deployment job. */
import { queryOptions, useQueryClient } from "@tanstack/react-query";
import { useStartJob } from "@/features/jobs/api";
import { queryKeys } from "@/lib/query-keys";
import type { PbxStatus } from "../../../shared/pbx";
import type { DeployTarget } from "./model";

export const pbxStatusQuery = () =>
  queryOptions<PbxStatus>({ queryKey: queryKeys.pbxStatus, refetchOnMount: "always" });

/**
 * One mutation for every deploy button: it starts a job and answers at once with its id (ADR 0024); a
 * job already running answers 409 naming it. The progress comes from the job (features/jobs).
 */
export const useStartDeploy = () => useStartJob((target: DeployTarget) => ({ path: `/api/deploy/${target}` }));

/** After a deployment, whatever its outcome: trunk status (it follows the PBX) and FreePBX's reload flag. */
export function useRefreshAfterDeploy() {
  const client = useQueryClient();
  return () => {
    for (const queryKey of [queryKeys.trunks, queryKeys.pbxStatus]) void client.invalidateQueries({ queryKey });
  };
}

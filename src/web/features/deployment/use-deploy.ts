import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "@/components/ui/use-toast";
import { ApiError, sendJson } from "@/lib/api";
import { keys } from "@/lib/constants";
import type { DeployAllResponse, DeployResponse } from "../../../shared/pbx";
import { type DeployRun, type DeployTarget, deployKeys, deployUrl, failureToast, runToast, toRun } from "./model";

/** One mutation for every deploy button, so only one deploy runs at a time. */
export function useDeploy(onRun: (run: DeployRun) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (target: DeployTarget) =>
      toRun(target, await sendJson<DeployResponse | DeployAllResponse>("POST", deployUrl(target))),
    onSuccess: (run) => {
      onRun(run);
      toast(runToast(run));
    },
    onError: (err, target) => {
      const message = err instanceof ApiError ? err.serverMessage : err instanceof TypeError ? err.message : undefined;
      toast(failureToast(target, message));
    },
    onSettled: () => {
      // Trunk status follows the PBX after a deploy; FreePBX's reload flag may have changed.
      void client.invalidateQueries({ queryKey: keys.trunks });
      void client.invalidateQueries({ queryKey: deployKeys.status });
    },
  });
}

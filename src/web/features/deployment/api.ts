/** Deployment: how the console reaches the PBX (and its reload flag), and starting a deployment job. */
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { useStartJob } from "@/features/jobs/api";
import { stalePlanOf as staleAnswerPlan } from "@/features/review/stale-plan";
import { sendJson } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import type { PbxStatus, VoicemailPinsAnswer } from "../../../shared/pbx";
import type { ApplyRequest, DeployPlan, PlanTarget, StalePlanAnswer } from "../../../shared/plan";
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

/**
 * The plan of a target (ADR 0025): what deploying it would do on the live PBX, per object. Reading the
 * PBX takes a moment; nothing is written.
 */
export const usePlan = () =>
  useMutation<DeployPlan, Error, PlanTarget>({
    mutationFn: (target) => sendJson<DeployPlan>("POST", "/api/deploy/plan", { target }),
  });

/**
 * Applies the reviewed plan: starts the deploy job (202 `{ jobId }`). A 409 either names a running job
 * or says the PBX or the console changed since the plan and carries the new one (`stalePlanOf`).
 */
export const useApplyPlan = () => useStartJob((body: ApplyRequest) => ({ path: "/api/deploy/apply", body }));

/** The new plan a 409 "changed since this plan" carries; undefined for any other error. */
export const stalePlanOf = (err: unknown): DeployPlan | undefined => staleAnswerPlan<StalePlanAnswer["plan"]>(err);

/**
 * The random PINs of the mailboxes a deployment created (ADR 0050): the server answers each once and then
 * forgets it, so the answer lives only in the component that asked.
 */
export const useShowVoicemailPins = () =>
  useMutation<VoicemailPinsAnswer, Error, string[]>({
    mutationFn: (handles) => sendJson<VoicemailPinsAnswer>("POST", "/api/deploy/voicemail-pins", { handles }),
  });

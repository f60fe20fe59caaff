/**
 * The deploy history (ADR 0026): every deployment and roll back with its backup, and
 * starting a roll back (a job, ADR 0024). The list refetches on every "job-updated" event.
 */
import { queryOptions } from "@tanstack/react-query";
import { useStartJob } from "@/features/jobs/api";
import { queryKeys } from "@/lib/query-keys";
import type { DeployHistoryEntry } from "../../../shared/deploy-history";

export const deployHistoryQuery = () =>
  queryOptions<DeployHistoryEntry[]>({ queryKey: queryKeys.deployHistory, refetchOnMount: "always" });

/** Starts rolling a backup back; 409 when it was restored, a newer deployment is in its way, or a job runs. */
export const useStartRollback = () =>
  useStartJob((backupId: number) => ({ path: `/api/deploy/history/${backupId}/rollback`, body: {} }));

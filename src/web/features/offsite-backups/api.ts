/**
 * Off-site backups (ADR 0064): targets with their last copy and drill, the copies sent, the key's id; add, edit,
 * delete, test, "Upload now", the restore drill, and making the key (the one answer that carries it).
 */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type {
  BackupTarget,
  BackupTargetCreate,
  BackupTargetTestResult,
  BackupTargetUpdate,
  BackupUpload,
  CreatedOffsiteKey,
  OffsiteKeyView,
  OffsiteQueued,
} from "../../../shared/offsite-backups";

export const backupTargetsQuery = () => queryOptions<BackupTarget[]>({ queryKey: queryKeys.backupTargets });
export const backupUploadsQuery = () => queryOptions<BackupUpload[]>({ queryKey: queryKeys.backupUploads });
export const offsiteKeyQuery = () => queryOptions<OffsiteKeyView>({ queryKey: queryKeys.offsiteKey });

const ALL = [queryKeys.backupTargets, queryKeys.backupUploads, queryKeys.offsiteKey];

export function useCreateBackupTarget(ui: MutationUi<BackupTarget, BackupTargetCreate>) {
  return useApiMutation({
    mutationFn: (body: BackupTargetCreate) => sendJson<BackupTarget>("POST", "/api/backups/targets", body),
    invalidates: ALL,
    ...ui,
  });
}

/** The edit body: the target's id and its kind's fields (a secret left out keeps the stored one). */
export type BackupTargetEdit = BackupTargetUpdate & { id: number };

export function useUpdateBackupTarget(ui: MutationUi<BackupTarget, BackupTargetEdit>) {
  return useApiMutation({
    mutationFn: ({ id, ...body }: BackupTargetEdit) =>
      sendJson<BackupTarget>("PUT", `/api/backups/targets/${id}`, body),
    invalidates: ALL,
    ...ui,
  });
}

export function useDeleteBackupTarget(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/backups/targets/${id}`),
    invalidates: ALL,
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Connects, writes and deletes a small file; the answer says how it went (a failure included). */
export function useTestBackupTarget(ui: MutationUi<BackupTargetTestResult, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<BackupTargetTestResult>("POST", `/api/backups/targets/${id}/test`, {}),
    invalidates: [queryKeys.backupTargets],
    ...ui,
  });
}

/** Queues a fresh copy of the console's database to the target; its progress and result come as events. */
export function useUploadNow(ui: MutationUi<OffsiteQueued, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<OffsiteQueued>("POST", `/api/backups/targets/${id}/upload`, {}),
    invalidates: ALL,
    ...ui,
  });
}

/** Queues a restore drill of the target's newest copy; the result is the target's `lastDrill`. */
export function useDrill(ui: MutationUi<OffsiteQueued, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<OffsiteQueued>("POST", `/api/backups/targets/${id}/drill`, {}),
    invalidates: [queryKeys.backupTargets],
    ...ui,
  });
}

/** Makes the key (or, with rotate, a new one for new copies); the answer is the only time it is shown. */
export function useCreateOffsiteKey(ui: MutationUi<CreatedOffsiteKey, { rotate: boolean }>) {
  return useApiMutation({
    mutationFn: (body: { rotate: boolean }) => sendJson<CreatedOffsiteKey>("POST", "/api/backups/key", body),
    invalidates: [queryKeys.offsiteKey],
    ...ui,
  });
}

/** System recordings on the PBX: the list, the upload (with its progress), rename, delete and playback. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson, uploadForm } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Recording, RecordingDeleted, RecordingPatch } from "../../../shared/recordings";

export const recordingsQuery = () => queryOptions<Recording[]>({ queryKey: queryKeys.recordings });

/** Where an `<audio>` element plays a recording from (the session cookie goes with it). */
export const recordingAudioUrl = (id: number) => `/api/recordings/${id}/audio`;

export interface NewRecording {
  name: string;
  description: string;
  file: File;
  /** Told how much of the file has been sent, 0 to 1. */
  onProgress?: (fraction: number) => void;
}

export function useUploadRecording(ui: MutationUi<Recording, NewRecording>) {
  return useApiMutation({
    mutationFn: ({ name, description, file, onProgress }: NewRecording) => {
      const form = new FormData();
      form.append("name", name);
      form.append("description", description);
      form.append("file", file, file.name);
      return uploadForm<Recording>("/api/recordings", form, onProgress);
    },
    invalidates: [queryKeys.recordings],
    ...ui,
  });
}

export type RecordingEdit = RecordingPatch & { id: number };

/** PATCH /api/recordings/:id, shown in the list at once and put back if the PBX refuses it. */
export function useUpdateRecording(ui: MutationUi<Recording, RecordingEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.recordings,
    mutationFn: ({ id, ...body }: RecordingEdit) => sendJson<Recording>("PATCH", `/api/recordings/${id}`, body),
    apply: (recording, { id: _id, ...edited }) => ({
      ...recording,
      ...(edited.name !== undefined ? { name: edited.name } : {}),
      ...(edited.description !== undefined ? { description: edited.description } : {}),
    }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means it is gone already, and its card should go. */
export function useDeleteRecording(ui: MutationUi<RecordingDeleted, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<RecordingDeleted>("DELETE", `/api/recordings/${id}`),
    invalidates: [queryKeys.recordings],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Announcements: the list, create, edit and delete. */
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation, useOptimisticEdit } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Announcement, announcementSchema } from "../../../shared/call-flow";
import type { DeleteAnswer } from "../../../shared/safe-delete";

export type NewAnnouncement = z.output<typeof announcementSchema>;

export const announcementsQuery = () => queryOptions<Announcement[]>({ queryKey: queryKeys.announcements });

/** A new announcement is a destination the pickers offer at once. */
export function useCreateAnnouncement(ui: MutationUi<Announcement, NewAnnouncement>) {
  return useApiMutation({
    mutationFn: (body: NewAnnouncement) => sendJson<Announcement>("POST", "/api/announcements", body),
    invalidates: [queryKeys.announcements, queryKeys.destinations],
    ...ui,
  });
}

/** The edit body: the announcement's id and its fields. */
export type AnnouncementEdit = NewAnnouncement & { id: number };

/** PATCH /api/announcements/:id, shown in the list at once and put back if the server refuses it. */
export function useUpdateAnnouncement(ui: MutationUi<Announcement, AnnouncementEdit>) {
  return useOptimisticEdit({
    listKey: queryKeys.announcements,
    mutationFn: ({ id, ...body }: AnnouncementEdit) =>
      sendJson<Announcement>("PATCH", `/api/announcements/${id}`, body),
    apply: (announcement, { id: _id, ...edited }) => ({ ...announcement, ...edited }),
    ...ui,
  });
}

/** A failed delete refetches too: a 404 means someone else deleted it, and the card should go. */
export function useDeleteAnnouncement(ui: MutationUi<DeleteAnswer, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<DeleteAnswer>("DELETE", `/api/announcements/${id}`),
    invalidates: [queryKeys.announcements, queryKeys.destinations],
    refetchAfterFailure: true,
    ...ui,
  });
}

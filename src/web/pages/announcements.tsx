import { useQuery } from "@tanstack/react-query";
import { Megaphone } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { AnnouncementCard } from "@/features/announcements/announcement-card";
import { announcementsQuery, useDeleteAnnouncement } from "@/features/announcements/api";
import { destinationsQuery } from "@/features/routing/api";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { AddAnnouncementDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

export function AnnouncementsPage() {
  const announcements = useQuery({ ...announcementsQuery(), refetchInterval: POLL_LIST_MS });
  // The cards name where each sends the call as the pickers do ("Ring group 600 · Sales").
  const destinations = useQuery(destinationsQuery());
  const del = useDeleteAnnouncement(
    undoableDeleteToasts("Announcement deleted", "Failed to delete announcement.", [
      queryKeys.announcements,
      queryKeys.destinations,
    ]),
  );

  return (
    <>
      <ScreenHeader
        title="Announcements"
        subtitle="A recording played to the caller before the call goes on"
        action={<AddAnnouncementDialog />}
      />
      <ListBody
        query={announcements}
        layout="grid"
        label="Announcements"
        waitFor={destinations.isPending}
        empty={
          <EmptyState
            icon={Megaphone}
            title="No Announcements"
            description="Create an announcement to play a recording to callers before their call goes on."
            viewerDescription="No announcement plays a recording to callers yet."
          />
        }
      >
        {(items) =>
          items.map((a) => (
            <AnnouncementCard
              key={a.id}
              announcement={a}
              deleting={runningFor(del, a.id)}
              onDelete={() => del.mutateAsync(a.id)}
            />
          ))
        }
      </ListBody>
    </>
  );
}

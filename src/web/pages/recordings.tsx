import { useQuery } from "@tanstack/react-query";
import { FileAudio } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { recordingsQuery, useDeleteRecording } from "@/features/recordings/api";
import { RecordingCard } from "@/features/recordings/recording-card";
import { UploadRecordingDialog } from "@/forms/inventory-deferred";
import { deleteToasts, runningFor } from "@/lib/mutations";

export function RecordingsPage() {
  const recordings = useQuery(recordingsQuery());
  const del = useDeleteRecording(deleteToasts("Recording deleted", "Failed to delete the recording."));
  return (
    <>
      <ScreenHeader
        title="System Recordings"
        subtitle="The greetings and prompts the PBX plays (FreePBX's System Recordings), stored on the PBX as soon as they are uploaded"
        action={<UploadRecordingDialog />}
      />
      <ListBody
        query={recordings}
        layout="grid"
        label="Recordings"
        empty={
          <EmptyState
            icon={FileAudio}
            title="No Recordings"
            description="Upload a WAV or MP3 greeting for IVRs and announcements to play."
            viewerDescription="The PBX has no system recording yet."
          />
        }
      >
        {(items) =>
          items.map((r) => (
            <RecordingCard
              key={r.id}
              recording={r}
              deleting={runningFor(del, r.id)}
              onDelete={() => del.mutateAsync(r.id)}
            />
          ))
        }
      </ListBody>
    </>
  );
}

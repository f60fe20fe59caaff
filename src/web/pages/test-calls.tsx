import { useQuery } from "@tanstack/react-query";
import { PhoneCall } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { toast } from "@/components/ui/use-toast";
import { testCallsQuery, useDeleteTestCall, useRunTestCall } from "@/features/test-calls/api";
import { TestCallResultsCard } from "@/features/test-calls/results-chart";
import { TestCallCard } from "@/features/test-calls/test-call-card";
import { TestCallDialog } from "@/features/test-calls/test-call-dialog";
import { errorText } from "@/lib/error-text";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";

export function TestCallsPage() {
  // No polling: test-calls-updated (a run started or ended, an edit) refetches the list and the chart.
  const calls = useQuery(testCallsQuery());
  const run = useRunTestCall({
    onSuccess: (r, id) => {
      const name = calls.data?.find((c) => c.id === id)?.name ?? "Test call";
      toast(
        r.ok
          ? { title: `${name} passed`, description: r.answerMs !== null ? `Answered in ${r.answerMs} ms` : undefined }
          : { variant: "destructive", title: `${name} failed`, description: r.error ?? undefined },
      );
    },
    onError: (err) =>
      toast({ variant: "destructive", title: "Could not run the test call.", description: errorText(err) }),
  });
  const del = useDeleteTestCall(deleteToasts("Test call deleted", "Failed to delete test call."));

  return (
    <>
      <ScreenHeader
        title="Test Calls"
        subtitle="Calls the console places through the PBX on a schedule: answered in time, and audio comes back"
        action={<TestCallDialog />}
      />
      <div className="grid gap-6">
        <ListBody
          query={calls}
          layout="grid"
          label="Test calls"
          empty={
            <EmptyState
              icon={PhoneCall}
              title="No Test Calls"
              description="Add a test call to an echo test (*43), an IVR or an AI assistant's number: the console calls it on a schedule and alerts can say when it fails."
              viewerDescription="No test call is set up yet."
            />
          }
        >
          {(items) =>
            items.map((call) => (
              <TestCallCard
                key={call.id}
                call={call}
                running={runningFor(run, call.id)}
                onRun={() => run.mutate(call.id)}
                deleting={runningFor(del, call.id)}
                onDelete={() =>
                  afterConfirm(`Delete the test call ${call.name} and its results?`, () => del.mutate(call.id))
                }
              />
            ))
          }
        </ListBody>
        {calls.data && calls.data.length > 0 && <TestCallResultsCard calls={calls.data} />}
      </div>
    </>
  );
}

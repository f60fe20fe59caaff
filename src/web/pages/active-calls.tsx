import { useQuery } from "@tanstack/react-query";
import { CircleAlert, PhoneCall, PhoneOff, RotateCw } from "lucide-react";
import { type ReactNode, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { activeCallsQuery } from "@/features/calls/api";
import { CallsTable } from "@/features/calls/calls-table";
import { HangupDialog } from "@/features/calls/hangup-dialog";
import { useNow } from "@/hooks/use-now";
import { errorText } from "@/lib/error-text";
import { cn } from "@/lib/utils";
import type { ActiveCall } from "../../shared/live";

export function ActiveCallsPage() {
  // Never polled: the sync socket's calls-updated refetches it.
  const calls = useQuery(activeCallsQuery());
  const list = calls.data?.connected ? calls.data.calls : [];
  const now = useNow(list.length > 0);
  const [hangingUp, setHangingUp] = useState<ActiveCall | null>(null);

  let body: ReactNode;
  if (calls.isPending) body = <CardListSkeleton layout="list" />;
  else if (calls.isError && !calls.data) {
    body = (
      <EmptyState
        icon={CircleAlert}
        title="Could not load the calls in progress"
        description={errorText(calls.error)}
        action={
          <Button variant="outline" onClick={() => void calls.refetch()} disabled={calls.isFetching}>
            <RotateCw className={cn(calls.isFetching && "animate-spin")} />
            Retry
          </Button>
        }
      />
    );
  } else if (calls.data && !calls.data.connected) {
    body = (
      <div data-testid="calls-unknown">
        <EmptyState
          icon={PhoneOff}
          title="Calls in progress unknown"
          description={calls.data.reason ?? "The Asterisk manager interface is not connected."}
        />
      </div>
    );
  } else if (list.length === 0) {
    body = (
      <EmptyState
        icon={PhoneCall}
        title="No calls in progress"
        description="Calls appear here as they start and leave when they end."
      />
    );
  } else {
    body = (
      <>
        <p className="text-muted-foreground text-sm" aria-live="polite" data-testid="calls-count">
          {list.length} {list.length === 1 ? "call" : "calls"} in progress
        </p>
        <CallsTable calls={list} now={now} onHangup={setHangingUp} />
      </>
    );
  }

  return (
    <>
      <ScreenHeader title="Active Calls" subtitle="Calls on the PBX right now, live from Asterisk" />
      <div className="grid grid-cols-1 gap-4">{body}</div>
      <HangupDialog call={hangingUp} onClose={() => setHangingUp(null)} />
    </>
  );
}

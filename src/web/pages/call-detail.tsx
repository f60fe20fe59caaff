import { useQuery } from "@tanstack/react-query";
import { getRouteApi, Link } from "@tanstack/react-router";
import { CircleAlert, DatabaseZap, SearchX } from "lucide-react";
import type { ReactNode } from "react";
import { Can } from "@/components/can";
import { BackLink, RetryButton, useFollowLive } from "@/components/detail-page";
import { EmptyState } from "@/components/empty-state";
import { PageHeader } from "@/components/layout/page-header";
import { CardListSkeleton } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { audioSettingsQuery } from "@/features/audio-settings/api";
import { callDetailQuery } from "@/features/call-detail/api";
import type { Listening } from "@/features/call-detail/call-audio";
import { CallDetailView } from "@/features/call-detail/call-detail-view";
import { callTitle } from "@/features/call-detail/call-summary";
import { activeCallsQuery } from "@/features/calls/api";
import { useRole } from "@/hooks/use-role";
import { errorText, refusalStatus } from "@/lib/error-text";

const route = getRouteApi("/call-history/$linkedid");

export const CALL_NOT_FOUND = "This call is not in the call records";

/** Whether this user may play the call's audio: a viewer only when an administrator allows it. */
function useListening(): Listening {
  const role = useRole();
  const viewer = role === "viewer";
  // Only a viewer's answer depends on the setting (the route's loader has asked for it already).
  const settings = useQuery({ ...audioSettingsQuery(), enabled: viewer });
  if (role === null) return "unknown";
  if (!viewer) return "allowed";
  if (settings.data) return settings.data.viewersMayListen ? "allowed" : "not-allowed";
  return settings.isError ? "not-allowed" : "unknown";
}

export function CallDetailPage() {
  const { linkedid } = route.useParams();
  const detail = useQuery(callDetailQuery(linkedid));
  // A call in progress changes as its channels do: each new answer of the calls in progress refetches it. Once
  // its records are written, call-history-updated brings the finished call; until then the last answer stays.
  useFollowLive(activeCallsQuery(), detail.data?.live === true, detail.refetch);
  const listening = useListening();
  const retryButton = <RetryButton query={detail} />;

  let title = "Call details";
  let subtitle = `Call ${linkedid}: its legs, events, recording and voicemail on one time axis`;
  let body: ReactNode;
  if (detail.data) {
    title = callTitle(detail.data);
    subtitle = `Call ${detail.data.linkedid}, ${new Date(detail.data.startedAt).toLocaleString()}`;
    body = <CallDetailView detail={detail.data} listening={listening} />;
  } else if (detail.isPending) {
    body = <CardListSkeleton layout="list" />;
  } else {
    const status = refusalStatus(detail.error);
    body =
      status === 404 ? (
        <div data-testid="call-not-found">
          <EmptyState
            icon={SearchX}
            title={CALL_NOT_FOUND}
            description="It may be older than the records the PBX keeps, or the link may be mistyped."
            action={
              <Button asChild variant="outline">
                <Link to="/call-history">Open the call history</Link>
              </Button>
            }
          />
        </div>
      ) : status === 400 || status === 503 ? (
        <div data-testid="call-unavailable">
          <EmptyState
            icon={DatabaseZap}
            title="Call records unavailable"
            description={errorText(detail.error)}
            action={
              <div className="flex flex-wrap items-center justify-center gap-3">
                {retryButton}
                <Can minRole="admin">
                  <Link to="/settings" className="font-medium text-primary text-sm underline-offset-4 hover:underline">
                    Open API Settings
                  </Link>
                </Can>
              </div>
            }
          />
        </div>
      ) : (
        <EmptyState
          icon={CircleAlert}
          title="Could not load the call"
          description={errorText(detail.error)}
          action={retryButton}
        />
      );
  }

  return (
    <>
      <BackLink to="/call-history">Call History</BackLink>
      <PageHeader title={title} subtitle={subtitle} />
      <div aria-busy={detail.isFetching}>{body}</div>
    </>
  );
}

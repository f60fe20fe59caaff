import { useQuery } from "@tanstack/react-query";
import { getRouteApi, Link } from "@tanstack/react-router";
import { ArrowLeft, CircleAlert, RotateCw, SearchX } from "lucide-react";
import { type ReactNode, useEffect, useRef } from "react";
import { EmptyState } from "@/components/empty-state";
import { PageHeader } from "@/components/layout/page-header";
import { CardListSkeleton } from "@/components/list-kit";
import { Section } from "@/components/section-card";
import { Button } from "@/components/ui/button";
import { aiCallQuery, liveAiCallsQuery } from "@/features/ai/api";
import {
  AnalysisSection,
  aiCallTitle,
  CallFacts,
  CostSection,
  EventsSection,
  LatencySection,
  TranscriptSection,
} from "@/features/ai/call-measures";
import { errorText, refusalStatus } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { cn } from "@/lib/utils";

const route = getRouteApi("/ai/calls/$callId");

function BackLink() {
  return (
    <Link
      to="/ai-assistants"
      className="inline-flex w-fit items-center gap-1.5 text-muted-foreground text-sm underline-offset-4 hover:text-foreground hover:underline"
    >
      <ArrowLeft className="size-4" aria-hidden />
      AI Assistants
    </Link>
  );
}

/**
 * A call in progress has no measures yet: each new answer of the live calls (refetched by the sync socket's
 * ai-live-updated, never polled) refetches it, so the page follows the call to its end.
 */
function useFollowLiveCall(live: boolean, refetch: () => unknown) {
  const active = useQuery({ ...liveAiCallsQuery(), enabled: live });
  const seen = useRef(active.dataUpdatedAt);
  useEffect(() => {
    if (active.dataUpdatedAt === seen.current) return;
    seen.current = active.dataUpdatedAt;
    if (live) void refetch();
  }, [live, active.dataUpdatedAt, refetch]);
}

export function AiCallPage() {
  const { callId } = route.useParams();
  const call = useQuery(aiCallQuery(callId));
  useFollowLiveCall(call.data?.live === true, call.refetch);

  let title = "AI call";
  let subtitle = `Call ${callId}: its cost, latency and analysis`;
  let body: ReactNode;
  if (call.data) {
    const c = call.data;
    title = aiCallTitle(c);
    subtitle = `Call ${c.callId}, ${formatDateTime(c.createdAt)}`;
    body = (
      <div className="grid gap-4 lg:grid-cols-2">
        <Section title="Call" testId="ai-call-summary-section">
          <CallFacts call={c} />
        </Section>
        <CostSection call={c} />
        <LatencySection call={c} />
        <AnalysisSection call={c} />
        <TranscriptSection call={c} />
        <EventsSection call={c} />
      </div>
    );
  } else if (call.isPending) {
    body = <CardListSkeleton layout="list" />;
  } else {
    const retry = (
      <Button variant="outline" onClick={() => void call.refetch()} disabled={call.isFetching}>
        <RotateCw className={cn(call.isFetching && "animate-spin")} />
        Retry
      </Button>
    );
    body =
      refusalStatus(call.error) === 404 ? (
        <div data-testid="ai-call-not-found">
          <EmptyState
            icon={SearchX}
            title="This AI call is not in the call log"
            description="The link may be mistyped, or the call was never answered by an assistant."
            action={
              <Button asChild variant="outline">
                <Link to="/ai-assistants">Open AI Assistants</Link>
              </Button>
            }
          />
        </div>
      ) : (
        <EmptyState
          icon={CircleAlert}
          title="Could not load the call"
          description={errorText(call.error)}
          action={retry}
        />
      );
  }

  return (
    <>
      <BackLink />
      <PageHeader title={title} subtitle={subtitle} />
      <div aria-busy={call.isFetching}>{body}</div>
    </>
  );
}

import { useQuery } from "@tanstack/react-query";
import { getRouteApi, Link } from "@tanstack/react-router";
import { CircleAlert, SearchX } from "lucide-react";
import type { ReactNode } from "react";
import { BackLink, RetryButton, useFollowLive } from "@/components/detail-page";
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

const route = getRouteApi("/ai/calls/$callId");

export function AiCallPage() {
  const { callId } = route.useParams();
  const call = useQuery(aiCallQuery(callId));
  // A call in progress: each new answer of the live calls refetches it, so the page follows it to its end.
  useFollowLive(liveAiCallsQuery(), call.data?.live === true, call.refetch);

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
          action={<RetryButton query={call} />}
        />
      );
  }

  return (
    <>
      <BackLink to="/ai-assistants">AI Assistants</BackLink>
      <PageHeader title={title} subtitle={subtitle} />
      <div aria-busy={call.isFetching}>{body}</div>
    </>
  );
}

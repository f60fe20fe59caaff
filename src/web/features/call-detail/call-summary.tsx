/** The call at a glance: who called whom, how it went, when, for how long, who answered. */
import { TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent } from "@/components/ui/card";
import type { CallDetail } from "../../../shared/calls";
import { DispositionBadge } from "../call-history/disposition";
import { formatDuration, partyText } from "../calls/format";
import { DirectionLabel } from "../calls/party";

/** The call's title: "Alice (1001) → 600". */
export const callTitle = (detail: CallDetail) => `${partyText(detail.from)} → ${partyText(detail.to)}`;

function Fact({ label, testId, children }: { label: string; testId?: string; children: ReactNode }) {
  return (
    <div className="grid min-w-0 gap-0.5" data-testid={testId}>
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="min-w-0 break-words font-medium text-sm">{children}</dd>
    </div>
  );
}

const none = <span className="font-normal text-muted-foreground">—</span>;

export function CallSummary({ detail }: { detail: CallDetail }) {
  return (
    <Card className="py-4">
      <CardContent className="px-4 sm:px-6">
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 sm:grid-cols-3 lg:grid-cols-4">
          <Fact label="Result" testId="call-disposition">
            <span className="flex flex-wrap gap-1.5">
              {detail.live && (
                <Badge variant="outline" data-testid="call-live">
                  In progress
                </Badge>
              )}
              <DispositionBadge disposition={detail.disposition} />
            </span>
          </Fact>
          <Fact label="Direction">
            <DirectionLabel direction={detail.direction} />
          </Fact>
          <Fact label="Started">
            <time dateTime={detail.startedAt} title={detail.startedAt}>
              {new Date(detail.startedAt).toLocaleString()}
            </time>
          </Fact>
          <Fact label="Answered by" testId="call-answered-by">
            {detail.answeredBy ? <span className="font-mono">{detail.answeredBy}</span> : "Nobody"}
          </Fact>
          <Fact label="Duration">
            <span className="tabular-nums">{formatDuration(detail.durationSec)}</span>
          </Fact>
          <Fact label="Talk time">
            {detail.talkSec > 0 ? <span className="tabular-nums">{formatDuration(detail.talkSec)}</span> : none}
          </Fact>
          <Fact label="Number dialled (DID)">
            {detail.did ? <span className="font-mono">{detail.did}</span> : none}
          </Fact>
          <Fact label="Legs" testId="call-leg-count">
            {detail.legs.length}
          </Fact>
        </dl>
      </CardContent>
    </Card>
  );
}

/** What the server could not read for this call (the rest of the page still shows). */
export function CallProblems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <div
      role="note"
      data-testid="call-problems"
      className="flex items-start gap-2 rounded-lg border border-warning bg-muted/40 px-4 py-3 text-sm"
    >
      <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
      <ul className="grid gap-1">
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}

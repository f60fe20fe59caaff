/**
 * The AI call page's sections, all from the one answer of GET /api/ai/calls/{callId}: who called and how it
 * ended, what it cost (the usage per token kind at the price the server used), how fast the assistant answered
 * (p50/p95 and each turn), the post-call analysis, and the stored transcript.
 */
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { CircleAlert, CircleCheck, CircleX } from "lucide-react";
import { type ReactNode, useState } from "react";
import { Section } from "@/components/section-card";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { type AiCallDetail, PRICE_FIELDS, PRICE_SCALE, pricedTokens } from "../../../shared/ai/measures";
import { transcriptQuery } from "./api";
import { formatDuration } from "./format";
import { LatencyChart } from "./latency-chart";
import { END_LABELS, formatMs, formatUsd, PRICE_LABELS } from "./measures-format";

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid gap-0.5 sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-3">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="min-w-0 break-words text-sm" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

const missing = (text: string) => <span className="text-muted-foreground">{text}</span>;

const OUTCOME_LABELS: Record<AiCallDetail["outcome"], string> = {
  accept: "Accepted",
  reject: "Rejected",
  refer: "Referred",
  error: "Error",
};

/** "Jane (+1555…)" is not in the log: the number alone, or "an unknown caller". */
export const aiCallTitle = (call: AiCallDetail) => `AI call from ${call.callerNumber ?? "an unknown caller"}`;

export function CallFacts({ call }: { call: AiCallDetail }) {
  const seconds = call.endedAt ? (Date.parse(call.endedAt) - Date.parse(call.createdAt)) / 1000 : null;
  return (
    <dl className="grid gap-2" data-testid="ai-call-facts">
      <Row label="Caller">{call.callerNumber ?? missing("Unknown")}</Row>
      <Row label="Called number">{call.calledNumber ?? missing("Unknown")}</Row>
      <Row label="Assistant">
        {call.assistantName ?? (call.assistantId === null ? missing("None") : `Assistant #${call.assistantId}`)}
      </Row>
      <Row label="Started">{formatDateTime(call.createdAt)}</Row>
      <Row label="Ended">
        {call.live ? <Badge variant="success">In progress</Badge> : call.endedAt ? formatDateTime(call.endedAt) : "—"}
      </Row>
      {seconds !== null && <Row label="Duration">{formatDuration(seconds)}</Row>}
      <Row label="Webhook decision">
        {OUTCOME_LABELS[call.outcome]}
        {call.detail ? `: ${call.detail}` : ""}
      </Row>
      <Row label="End reason" testId="ai-call-end">
        {call.end ? END_LABELS[call.end] : missing(call.live ? "Not ended yet" : "Not recorded")}
      </Row>
    </dl>
  );
}

/** Tokens × price per million, in USD (the server's cost is the sum of these, computed exactly). */
const lineCost = (tokens: number, pricePerMillion: number) =>
  (tokens * Math.round(pricePerMillion * PRICE_SCALE)) / (PRICE_SCALE * 1_000_000);

export function CostSection({ call }: { call: AiCallDetail }) {
  const { usage, price } = call;
  let note: string;
  if (!usage)
    note = call.live ? "The call has not finished a response yet." : "OpenAI reported no usage for this call.";
  else if (call.costUsd === null || !price) note = "No price for this call's model in the price table.";
  else note = `Priced with the table's row for ${price.model} (USD per million tokens) as it was when the call ended.`;
  const tokens = usage ? pricedTokens(usage) : null;
  return (
    <Section title="Cost" description={note} testId="ai-call-cost">
      <div className="grid gap-4">
        <p className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <span className="text-muted-foreground text-sm">Total</span>
          <span
            className="font-semibold text-2xl tabular-nums"
            data-testid="ai-call-cost-total"
            data-usd={call.costUsd ?? ""}
          >
            {formatUsd(call.costUsd)}
          </span>
          {usage && (
            <span className="text-muted-foreground text-sm tabular-nums">
              {usage.total_tokens.toLocaleString()} tokens ({usage.input_tokens.toLocaleString()} in,{" "}
              {usage.output_tokens.toLocaleString()} out)
            </span>
          )}
        </p>
        {tokens && (
          <div>
            <table className="w-full text-sm" data-testid="ai-call-usage">
              <caption className="sr-only">Usage and cost per token kind</caption>
              <thead>
                <tr className="border-b text-left text-muted-foreground">
                  <th scope="col" className="py-1.5 pr-3 font-medium">
                    Token kind
                  </th>
                  <th scope="col" className="py-1.5 pr-3 text-right font-medium">
                    Tokens
                  </th>
                  <th scope="col" className="py-1.5 pr-3 text-right font-medium">
                    Price per 1M
                  </th>
                  <th scope="col" className="py-1.5 text-right font-medium">
                    Cost
                  </th>
                </tr>
              </thead>
              <tbody>
                {PRICE_FIELDS.map((f) => (
                  <tr key={f} className="border-b last:border-0" data-kind={f}>
                    <th scope="row" className="py-1.5 pr-3 text-left font-normal">
                      {PRICE_LABELS[f]}
                    </th>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{tokens[f].toLocaleString()}</td>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{price ? formatUsd(price[f]) : "—"}</td>
                    <td className="py-1.5 text-right tabular-nums">
                      {price ? formatUsd(lineCost(tokens[f], price[f])) : "—"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </Section>
  );
}

export function LatencySection({ call }: { call: AiCallDetail }) {
  const { latency } = call;
  const n = latency.turns.length;
  return (
    <Section
      title="Latency"
      description="Per turn: from the moment the caller stops speaking to the assistant's first audio."
      testId="ai-call-latency"
    >
      <div className="grid gap-4">
        <dl className="flex flex-wrap gap-x-8 gap-y-2">
          <div className="grid gap-0.5">
            <dt className="text-muted-foreground text-sm">p50</dt>
            <dd className="font-semibold text-xl tabular-nums" data-testid="ai-call-p50" data-ms={latency.p50Ms ?? ""}>
              {formatMs(latency.p50Ms)}
            </dd>
          </div>
          <div className="grid gap-0.5">
            <dt className="text-muted-foreground text-sm">p95</dt>
            <dd className="font-semibold text-xl tabular-nums" data-testid="ai-call-p95" data-ms={latency.p95Ms ?? ""}>
              {formatMs(latency.p95Ms)}
            </dd>
          </div>
          <div className="grid gap-0.5">
            <dt className="text-muted-foreground text-sm">Turns measured</dt>
            <dd className="font-semibold text-xl tabular-nums">{n}</dd>
          </div>
        </dl>
        {n > 0 ? (
          <LatencyChart turns={latency.turns} />
        ) : (
          <p className="text-muted-foreground text-sm">No turn was measured.</p>
        )}
      </div>
    </Section>
  );
}

const VERDICT = {
  true: { label: "Goal met", icon: CircleCheck, variant: "success" },
  false: { label: "Goal not met", icon: CircleX, variant: "destructive" },
} as const;

export function AnalysisSection({ call }: { call: AiCallDetail }) {
  const a = call.analysis;
  let body: ReactNode;
  if (a) {
    const verdict = a.success === null ? null : VERDICT[a.success ? "true" : "false"];
    const fields = Object.entries(a.fields);
    body = (
      <div className="grid gap-4">
        <p className="text-sm" data-testid="ai-call-summary">
          {a.summary || missing("No summary")}
        </p>
        <div className="grid gap-1" data-testid="ai-call-verdict">
          {verdict ? (
            <Badge variant={verdict.variant} className="w-fit">
              <verdict.icon aria-hidden />
              {verdict.label}
            </Badge>
          ) : (
            <Badge variant="secondary" className="w-fit">
              No goal stated
            </Badge>
          )}
          {a.reason && <p className="text-muted-foreground text-sm">{a.reason}</p>}
        </div>
        {fields.length > 0 && (
          <dl className="grid gap-2" data-testid="ai-call-fields">
            {fields.map(([name, value]) => (
              <Row key={name} label={name}>
                {value === null ? missing("Not found") : typeof value === "boolean" ? (value ? "Yes" : "No") : value}
              </Row>
            ))}
          </dl>
        )}
        <p className="text-muted-foreground text-xs">
          By {a.model}, {formatDateTime(a.at)}
        </p>
      </div>
    );
  } else if (call.analysisError) {
    body = (
      <p role="alert" className="flex items-center gap-2 text-destructive text-sm" data-testid="ai-call-analysis-error">
        <CircleAlert className="size-4 shrink-0" aria-hidden />
        The analysis failed: {call.analysisError}
      </p>
    );
  } else {
    body = (
      <p className="text-muted-foreground text-sm">
        {call.live ? "The analysis runs when the call ends." : "No analysis: the assistant has none configured."}
      </p>
    );
  }
  return (
    <Section title="Analysis" description="What the post-call analysis found." testId="ai-call-analysis">
      {body}
    </Section>
  );
}

/** The stored transcript, read when asked for (the call's answer carries only its id). */
function StoredTranscript({ id }: { id: number }) {
  const t = useQuery(transcriptQuery(id));
  if (t.data)
    return (
      <div
        className="max-h-96 overflow-y-auto whitespace-pre-wrap rounded-md border bg-muted/30 p-3 text-sm"
        data-testid="ai-call-transcript-text"
      >
        {t.data.transcript}
      </div>
    );
  if (t.isError)
    return (
      <p role="alert" className="text-destructive text-sm">
        Could not load the transcript: {errorText(t.error)}
      </p>
    );
  return (
    <div role="status" aria-label="Loading the transcript" className="grid gap-2">
      <Skeleton className="h-4 w-full" />
      <Skeleton className="h-4 w-4/5" />
    </div>
  );
}

export function TranscriptSection({ call }: { call: AiCallDetail }) {
  const [shown, setShown] = useState(false);
  const id = call.transcriptId;
  return (
    <Section title="Transcript" testId="ai-call-transcript">
      <div className="grid gap-3">
        {id === null ? (
          <p className="text-muted-foreground text-sm">
            {call.live ? "The transcript is stored when the call ends." : "No transcript is stored for this call."}
          </p>
        ) : (
          <>
            <div>
              <Button variant="outline" aria-expanded={shown} onClick={() => setShown((s) => !s)}>
                {shown ? "Hide the transcript" : "Show the stored transcript"}
              </Button>
            </div>
            {shown && <StoredTranscript id={id} />}
          </>
        )}
        {call.callerNumber && (
          <p className="text-sm">
            <Link
              to="/call-transcripts"
              search={{ caller: call.callerNumber }}
              className="font-medium text-primary underline-offset-4 hover:underline"
            >
              Transcripts of calls from {call.callerNumber}
            </Link>
          </p>
        )}
      </div>
    </Section>
  );
}

/** What happened on the call's sideband (tools run, refusals, drops), as the log recorded it. */
export function EventsSection({ call }: { call: AiCallDetail }) {
  if (!call.events.length) return null;
  return (
    <Section title="Events" testId="ai-call-events">
      <ul className="grid list-disc gap-1 pl-5 text-sm">
        {call.events.map((e, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the log's lines in order; the same line may repeat
          <li key={i}>{e}</li>
        ))}
      </ul>
    </Section>
  );
}

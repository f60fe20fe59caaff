import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { CircleAlert, LoaderCircle, PhoneIncoming, PhoneOutgoing, Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Skeleton } from "@/components/ui/skeleton";
import { errorText } from "@/lib/error-text";
import type { CallAnalysisResult } from "../../../shared/ai/analysis";
import type { TranscriptListItem } from "../../../shared/ai/transcripts";
import { transcriptQuery } from "./api";
import { formatDuration } from "./format";

/** The call's sentiment: positive green, negative red, anything else neutral. */
export function SentimentBadge({ sentiment }: { sentiment: string | null }) {
  if (!sentiment) return null;
  const s = sentiment.toLowerCase();
  const variant = s === "positive" ? "success" : s === "negative" ? "destructive" : "secondary";
  return (
    <Badge variant={variant} data-sentiment={s}>
      {sentiment}
    </Badge>
  );
}

/** The post-call analysis's verdict against the assistant's goal (none without a goal). */
export function VerdictBadge({ analysis }: { analysis: CallAnalysisResult | null }) {
  if (!analysis || analysis.success === null) return null;
  return (
    <Badge
      variant={analysis.success ? "success" : "destructive"}
      data-testid="analysis-verdict"
      title={analysis.reason}
    >
      {analysis.success ? "Goal met" : "Goal not met"}
    </Badge>
  );
}

const fieldText = (v: string | number | boolean | null) =>
  v === null ? "—" : v === true ? "yes" : v === false ? "no" : String(v);

/** The analysis's fields as `name: value` chips (those the call did not tell left out in the list). */
function AnalysisFields({ analysis, all = false }: { analysis: CallAnalysisResult; all?: boolean }) {
  const entries = Object.entries(analysis.fields).filter(([, v]) => all || v !== null);
  if (!entries.length) return null;
  return (
    <span className="flex flex-wrap gap-1" data-testid="analysis-fields">
      {entries.map(([name, v]) => (
        <Badge key={name} variant="outline" className="font-normal">
          <span className="text-muted-foreground">{name}:</span> {fieldText(v)}
        </Badge>
      ))}
    </span>
  );
}

function DirectionIcon({ direction }: { direction: string | null }) {
  const inbound = (direction ?? "inbound").toLowerCase() === "inbound";
  const Icon = inbound ? PhoneIncoming : PhoneOutgoing;
  return <Icon className="size-4 shrink-0 text-muted-foreground" aria-label={inbound ? "Inbound" : "Outbound"} />;
}

const when = (iso: string) => new Date(iso).toLocaleString();

/** One transcript in the list (the start of its text); the whole card opens the detail dialog. */
export function TranscriptCard({ transcript: t, onOpen }: { transcript: TranscriptListItem; onOpen: () => void }) {
  return (
    <Card className="gap-3 py-4 transition-colors hover:bg-accent/40">
      <button
        type="button"
        onClick={onOpen}
        className="grid w-full cursor-pointer gap-2 px-6 text-left outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
        aria-label={`Transcript of call with ${t.phoneNumber ?? "Unknown"}`}
      >
        <div className="flex flex-wrap items-center gap-2">
          <DirectionIcon direction={t.direction} />
          <span className="font-medium">{t.phoneNumber ?? "Unknown"}</span>
          {t.extensionId && <Badge variant="outline">Ext {t.extensionId}</Badge>}
          <span className="text-muted-foreground text-sm">{when(t.createdAt)}</span>
          <span className="text-muted-foreground text-sm" data-testid="duration">
            {formatDuration(t.duration)}
          </span>
          <SentimentBadge sentiment={t.sentiment} />
          <VerdictBadge analysis={t.analysis} />
        </div>
        {t.summary && <p className="text-sm">{t.summary}</p>}
        {t.analysis && <AnalysisFields analysis={t.analysis} />}
        {t.keywords.length > 0 && (
          <div className="flex flex-wrap gap-1">
            {t.keywords.map((k) => (
              <Badge key={k} variant="secondary">
                {k}
              </Badge>
            ))}
          </div>
        )}
        <p className="line-clamp-2 text-muted-foreground text-sm">{t.preview}</p>
      </button>
    </Card>
  );
}

/** One term of the dialog's list: a `div` directly in the `dl` (a list may group its terms only one level deep). */
function Row({
  term,
  children,
  wide = false,
  testId,
}: {
  term: string;
  children: ReactNode;
  wide?: boolean;
  testId?: string;
}) {
  return (
    <div className={wide ? "grid gap-1 sm:col-span-3" : "grid gap-1"} data-testid={testId}>
      <dt className="text-muted-foreground text-xs">{term}</dt>
      <dd className="text-sm">{children}</dd>
    </div>
  );
}

/** The whole text, fetched when the dialog opens (the list carries only its start). */
function FullText({ id }: { id: number }) {
  const full = useQuery(transcriptQuery(id));
  if (full.data) return <>{full.data.transcript}</>;
  if (full.isError) {
    return (
      <span role="alert" className="flex items-center gap-2 text-destructive">
        <CircleAlert className="size-4" aria-hidden />
        Could not load the transcript: {errorText(full.error)}
      </span>
    );
  }
  return (
    <span role="status" aria-label="Loading the transcript" className="grid gap-2">
      <Skeleton className="h-4 w-full" />
      <Skeleton className="h-4 w-4/5" />
    </span>
  );
}

/** The detail dialog: everything about one call, Close and (for an operator) Delete. */
export function TranscriptDialog({
  transcript: t,
  deleting,
  onClose,
  onDelete,
}: {
  transcript: TranscriptListItem | null;
  deleting: boolean;
  onClose: () => void;
  onDelete: () => void;
}) {
  return (
    <Dialog open={t !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="sm:max-w-2xl">
        {t && (
          <>
            <DialogHeader>
              <DialogTitle>Call Transcript</DialogTitle>
              <DialogDescription>{when(t.createdAt)}</DialogDescription>
            </DialogHeader>
            <dl className="grid gap-4 sm:grid-cols-3">
              <Row term="Phone number">{t.phoneNumber ?? "Unknown"}</Row>
              <Row term="Extension">{t.extensionId ?? "—"}</Row>
              <Row term="Direction">{t.direction ?? "—"}</Row>
              <Row term="Duration">{formatDuration(t.duration)}</Row>
              <Row term="Sentiment">{t.sentiment ? <SentimentBadge sentiment={t.sentiment} /> : "—"}</Row>
              <Row term="Summary" wide>
                {t.summary ?? "—"}
              </Row>
              <Row term="Keywords" wide>
                {t.keywords.length ? (
                  <span className="flex flex-wrap gap-1">
                    {t.keywords.map((k) => (
                      <Badge key={k} variant="secondary">
                        {k}
                      </Badge>
                    ))}
                  </span>
                ) : (
                  "—"
                )}
              </Row>
              {t.analysis && (
                <Row term="Analysis" wide testId="transcript-analysis">
                  <span className="grid gap-2">
                    <span>{t.analysis.summary}</span>
                    {t.analysis.success !== null && (
                      <span className="flex flex-wrap items-center gap-2">
                        <VerdictBadge analysis={t.analysis} />
                        <span className="text-muted-foreground">{t.analysis.reason}</span>
                      </span>
                    )}
                    <AnalysisFields analysis={t.analysis} all />
                  </span>
                </Row>
              )}
              <Row term="Transcript" wide>
                <span
                  className="block max-h-72 overflow-y-auto whitespace-pre-wrap rounded-md border bg-muted/30 p-3"
                  data-testid="transcript-text"
                >
                  <FullText id={t.id} />
                </span>
              </Row>
            </dl>
            <DialogFooter>
              {t.callId && (
                <Button asChild variant="link" className="mr-auto px-0">
                  <Link to="/ai/calls/$callId" params={{ callId: t.callId }}>
                    Cost, latency and analysis of this call
                  </Link>
                </Button>
              )}
              <Button type="button" variant="outline" onClick={onClose}>
                Close
              </Button>
              <Can minRole="operator">
                <Button type="button" variant="destructive" onClick={onDelete} disabled={deleting}>
                  {deleting ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
                  Delete
                </Button>
              </Can>
            </DialogFooter>
          </>
        )}
      </DialogContent>
    </Dialog>
  );
}

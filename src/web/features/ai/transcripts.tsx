import { LoaderCircle, PhoneIncoming, PhoneOutgoing, Trash2 } from "lucide-react";
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
import { type CallTranscript, formatDuration } from "../../../shared/ai";

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

function DirectionIcon({ direction }: { direction: string | null }) {
  const inbound = (direction ?? "inbound").toLowerCase() === "inbound";
  const Icon = inbound ? PhoneIncoming : PhoneOutgoing;
  return <Icon className="size-4 shrink-0 text-muted-foreground" aria-label={inbound ? "Inbound" : "Outbound"} />;
}

const when = (iso: string) => new Date(iso).toLocaleString();

/** One transcript in the list; the whole card opens the detail dialog. */
export function TranscriptCard({ transcript: t, onOpen }: { transcript: CallTranscript; onOpen: () => void }) {
  return (
    <li>
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
          </div>
          {t.summary && <p className="text-sm">{t.summary}</p>}
          {t.keywords.length > 0 && (
            <div className="flex flex-wrap gap-1">
              {t.keywords.map((k) => (
                <Badge key={k} variant="secondary">
                  {k}
                </Badge>
              ))}
            </div>
          )}
          <p className="line-clamp-2 text-muted-foreground text-sm">{t.transcript}</p>
        </button>
      </Card>
    </li>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <dt className="text-muted-foreground text-xs">{term}</dt>
      <dd className="text-sm">{children}</dd>
    </div>
  );
}

/** The detail dialog: everything about one call, Close and (for an operator) Delete. */
export function TranscriptDialog({
  transcript: t,
  deleting,
  onClose,
  onDelete,
}: {
  transcript: CallTranscript | null;
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
              <div className="sm:col-span-3">
                <Row term="Summary">{t.summary ?? "—"}</Row>
              </div>
              <div className="sm:col-span-3">
                <Row term="Keywords">
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
              </div>
              <div className="sm:col-span-3">
                <Row term="Transcript">
                  <span className="block max-h-72 overflow-y-auto whitespace-pre-wrap rounded-md border bg-muted/30 p-3">
                    {t.transcript}
                  </span>
                </Row>
              </div>
            </dl>
            <DialogFooter>
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

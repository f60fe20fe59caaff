import { useQuery } from "@tanstack/react-query";
import { CircleAlert, FileText, MessageSquare, RotateCw } from "lucide-react";
import { useCallback, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { VirtualTable } from "@/components/virtual-table";
import { aiMessagesQuery, transcriptQuery, useDeleteTranscript } from "@/features/ai/api";
import { DELETE_QUESTION } from "@/features/ai/card-parts";
import { TranscriptDialog } from "@/features/ai/transcripts";
import { errorText } from "@/lib/error-text";
import { formatDateTime, formatNumber } from "@/lib/format";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import { cn } from "@/lib/utils";
import type { AiMessage } from "../../shared/ai/messages";

const HEADERS = ["When", "Caller", "For", "Message", "Call"] as const;
const ROW_HEIGHT = 72;
const rowProps = (m: AiMessage) => ({ "data-testid": "ai-message", "data-message-id": String(m.id) });

/** The transcript of the call a message was taken on, opened from its row. */
function MessageTranscript({ id, onClose }: { id: number | null; onClose: () => void }) {
  const transcript = useQuery({ ...transcriptQuery(id ?? 0), enabled: id !== null });
  const del = useDeleteTranscript(deleteToasts("Transcript deleted", "Failed to delete the transcript"));
  return (
    <TranscriptDialog
      transcript={id !== null && transcript.data ? { ...transcript.data, preview: "" } : null}
      deleting={id !== null && runningFor(del, id)}
      onClose={onClose}
      onDelete={() =>
        id !== null && afterConfirm(DELETE_QUESTION.transcript, () => del.mutate(id, { onSuccess: onClose }))
      }
    />
  );
}

export function AiMessagesPage() {
  // Never polled: ai-messages-updated (a message taken) and ai-transcripts-updated (its call's transcript) refetch it.
  const messages = useQuery(aiMessagesQuery());
  const [open, setOpen] = useState<number | null>(null);
  const cells = useCallback(
    (m: AiMessage) => (
      <>
        <td className="whitespace-nowrap px-3 py-2 text-sm">{formatDateTime(m.createdAt)}</td>
        <td className="px-3 py-2 text-sm">
          <span className="block font-medium">{m.callerName ?? m.callerNumber ?? "Unknown caller"}</span>
          {m.callerName && m.callerNumber && <span className="block text-muted-foreground">{m.callerNumber}</span>}
          {m.callbackNumber && m.callbackNumber !== m.callerNumber && (
            <span className="block text-muted-foreground">Call back: {m.callbackNumber}</span>
          )}
        </td>
        <td className="px-3 py-2 text-sm">{m.recipient}</td>
        <td className="min-w-64 whitespace-pre-wrap break-words px-3 py-2 text-sm">{m.message}</td>
        <td className="px-3 py-2 text-sm">
          {m.transcriptId !== null ? (
            <Button variant="link" className="h-auto p-0" onClick={() => setOpen(m.transcriptId)}>
              <FileText />
              Transcript
            </Button>
          ) : (
            <span className="text-muted-foreground">{m.callId ? "Call in progress or no words" : "—"}</span>
          )}
        </td>
      </>
    ),
    [],
  );
  const count = messages.data?.length ?? 0;
  return (
    <>
      <ScreenHeader title="Messages" subtitle="Messages AI assistants took for people during calls, newest first" />
      {messages.data && (
        <p className="text-muted-foreground text-sm" data-testid="ai-messages-count">
          {formatNumber(count)} {count === 1 ? "message" : "messages"}
        </p>
      )}
      {messages.isPending ? (
        <CardListSkeleton layout="list" />
      ) : messages.isError && !messages.data ? (
        <EmptyState
          icon={CircleAlert}
          title="Could not load the messages"
          description={errorText(messages.error)}
          action={
            <Button variant="outline" onClick={() => void messages.refetch()} disabled={messages.isFetching}>
              <RotateCw className={cn(messages.isFetching && "animate-spin")} />
              Retry
            </Button>
          }
        />
      ) : count === 0 ? (
        <EmptyState
          icon={MessageSquare}
          title="No messages"
          description="When a caller leaves a message with an AI assistant, it appears here at once."
        />
      ) : (
        <VirtualTable
          label="Messages taken by AI assistants"
          headers={HEADERS}
          headerClassName="whitespace-nowrap"
          items={messages.data ?? []}
          getKey={(m) => m.id}
          rowHeight={ROW_HEIGHT}
          rowProps={rowProps}
          cells={cells}
        />
      )}
      <MessageTranscript id={open} onClose={() => setOpen(null)} />
    </>
  );
}

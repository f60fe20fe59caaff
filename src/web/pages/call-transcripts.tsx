import { useQuery } from "@tanstack/react-query";
import { FileText, Search, SearchX } from "lucide-react";
import { useMemo, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Input } from "@/components/ui/input";
import { transcriptsQuery, useDeleteTranscript } from "@/features/ai/api";
import { DELETE_QUESTION } from "@/features/ai/card-parts";
import { TranscriptCard, TranscriptDialog } from "@/features/ai/transcripts";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import { transcriptMatches } from "../../shared/ai";

export function CallTranscriptsPage() {
  const transcripts = useQuery(transcriptsQuery());
  const [query, setQuery] = useState("");
  const [openId, setOpenId] = useState<number | null>(null);
  const del = useDeleteTranscript(deleteToasts("Transcript deleted successfully", "Failed to delete transcript"));
  const all = transcripts.data ?? [];
  const filtered = useMemo(() => all.filter((t) => transcriptMatches(t, query)), [all, query]);
  const open = all.find((t) => t.id === openId) ?? null;

  return (
    <>
      <ScreenHeader title="Call Transcripts" subtitle="Search and review transcribed calls" />
      <div className="flex flex-wrap items-center gap-3">
        <div className="relative min-w-64 flex-1">
          <Search className="absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden />
          <Input
            type="search"
            aria-label="Search transcripts"
            placeholder="Search transcripts, phone numbers, extensions..."
            className="pl-9"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <Badge variant="secondary" data-testid="transcript-count">
          {filtered.length} / {all.length} transcripts
        </Badge>
      </div>
      <ListBody
        query={{ ...transcripts, data: transcripts.data ? filtered : undefined }}
        layout="list"
        label="Call transcripts"
        empty={
          all.length ? (
            <EmptyState icon={SearchX} title="No matching transcripts" description="Try adjusting your search terms" />
          ) : (
            <EmptyState
              icon={FileText}
              title="No Call Transcripts"
              description="Transcripts appear here when the voice bridge stores finished calls."
            />
          )
        }
      >
        {(items) => items.map((t) => <TranscriptCard key={t.id} transcript={t} onOpen={() => setOpenId(t.id)} />)}
      </ListBody>
      <TranscriptDialog
        transcript={open}
        deleting={open ? runningFor(del, open.id) : false}
        onClose={() => setOpenId(null)}
        onDelete={() =>
          open &&
          afterConfirm(DELETE_QUESTION.transcript, () => del.mutate(open.id, { onSuccess: () => setOpenId(null) }))
        }
      />
    </>
  );
}

import { useQuery } from "@tanstack/react-query";
import { FileText, Search, SearchX } from "lucide-react";
import { useMemo, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Input } from "@/components/ui/input";
import { aiKeys, CONFIRM, useConfirmedDelete } from "@/features/ai/kit";
import { TranscriptCard, TranscriptDialog } from "@/features/ai/transcripts";
import { type CallTranscript, transcriptMatches } from "../../shared/ai";

export function CallTranscriptsPage() {
  const transcripts = useQuery<CallTranscript[]>({ queryKey: aiKeys.transcripts, refetchOnMount: "always" });
  const [query, setQuery] = useState("");
  const [openId, setOpenId] = useState<number | null>(null);
  const del = useConfirmedDelete({
    listKey: aiKeys.transcripts,
    confirm: CONFIRM.transcript,
    success: "Transcript deleted successfully",
    failure: "Failed to delete transcript",
  });
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
        deleting={open ? del.isDeleting(open.id) : false}
        onClose={() => setOpenId(null)}
        onDelete={() => open && del.remove(open.id, () => setOpenId(null))}
      />
    </>
  );
}

import { useQuery } from "@tanstack/react-query";
import { Radio } from "lucide-react";
import { useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { liveAiCallsQuery } from "@/features/ai/api";
import { EndAiCallDialog, LiveCallCard, TakeOverDialog } from "@/features/ai/live-calls";
import { useNow } from "@/hooks/use-now";
import type { LiveAiCall } from "../../shared/ai/live";

export function AiLiveCallsPage() {
  // Never polled: the sync socket's ai-live-updated refetches it (ADR 0044).
  const calls = useQuery(liveAiCallsQuery());
  const count = calls.data?.length ?? 0;
  const now = useNow(count > 0);
  const [takingOver, setTakingOver] = useState<LiveAiCall | null>(null);
  const [ending, setEnding] = useState<LiveAiCall | null>(null);
  return (
    <>
      <ScreenHeader title="Live AI Calls" subtitle="Calls an AI assistant is answering now, as they are spoken" />
      {calls.data && (
        <p className="text-muted-foreground text-sm" data-testid="live-ai-count">
          {count} {count === 1 ? "call" : "calls"} in progress
        </p>
      )}
      <ListBody
        query={calls}
        layout="list"
        label="AI calls in progress"
        empty={
          <EmptyState
            icon={Radio}
            title="No AI calls in progress"
            description="Calls appear here when an assistant answers them and leave when they end."
          />
        }
      >
        {(items) =>
          items.map((c) => (
            <LiveCallCard
              key={c.callId}
              call={c}
              now={now}
              onTakeOver={() => setTakingOver(c)}
              onEnd={() => setEnding(c)}
            />
          ))
        }
      </ListBody>
      <TakeOverDialog call={takingOver} onClose={() => setTakingOver(null)} />
      <EndAiCallDialog call={ending} onClose={() => setEnding(null)} />
    </>
  );
}

/**
 * The AI assistant's side of the call: who answered for it, how the call was classified, what the
 * routing rules did and how it ended. Its turns and tool calls are in the event list, on the same axis.
 */
import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import type { CallAi } from "../../../shared/calls";

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-0.5 sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-3">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="min-w-0 break-words text-sm">{children}</dd>
    </div>
  );
}

const missing = (text: string) => <span className="text-muted-foreground">{text}</span>;

const MATCHED_BY: Record<CallAi["matchedBy"], string> = {
  header: "the call's linkedid, which the PBX sent to the assistant",
  "caller-and-time": "the caller's number and the time (the PBX sent no linkedid)",
};

export function AiSection({ ai, callerNumber }: { ai: CallAi; callerNumber: string }) {
  const c = ai.classification;
  const assistant = ai.assistantName ?? (ai.assistantId === null ? null : `Assistant #${ai.assistantId}`);
  return (
    <div className="grid gap-3">
      <dl className="grid gap-2" data-testid="call-ai">
        <Row label="Assistant">{assistant ?? missing("Unknown")}</Row>
        <Row label="Outcome">{ai.outcome ?? missing("Not recorded")}</Row>
        <Row label="Sentiment">{c?.sentiment ?? missing("Not classified")}</Row>
        <Row label="Intent">{c?.intent ?? missing("Not classified")}</Row>
        <Row label="Summary">{c?.summary ?? missing("None")}</Row>
        <Row label="Routing rule">{ai.ruleDecision ?? missing("No rule acted")}</Row>
        <Row label="Tied to this call by">{MATCHED_BY[ai.matchedBy]}</Row>
        <Row label="Turns and tools">
          {ai.turns.length} {ai.turns.length === 1 ? "turn" : "turns"}, {ai.tools.length}{" "}
          {ai.tools.length === 1 ? "tool call" : "tool calls"} (in the event list)
        </Row>
      </dl>
      <p className="text-sm">
        <Link
          to="/ai/calls/$callId"
          params={{ callId: ai.callId }}
          className="font-medium text-primary underline-offset-4 hover:underline"
        >
          The AI call's cost, latency and analysis
        </Link>
      </p>
      {callerNumber && (
        <p className="text-sm">
          <Link
            to="/call-transcripts"
            search={{ caller: callerNumber }}
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            Transcripts of calls from {callerNumber}
          </Link>
        </p>
      )}
    </div>
  );
}

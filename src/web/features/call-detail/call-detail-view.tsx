/**
 * A call's whole page body from the one answer of GET /api/calls/{linkedid}: the summary, what could not
 * be read, the time axis, the event list, the transfers, the audio and the AI's side. Rendered in one go
 * (no section waits for a request of its own), so a call of 20 legs appears in one paint.
 */
import { useMemo } from "react";
import { Section } from "@/components/section-card";
import type { CallDetail } from "../../../shared/calls";
import { AiSection } from "./ai-section";
import { CallAudio, type Listening } from "./call-audio";
import { CallAxis } from "./call-axis";
import { CallProblems, CallSummary } from "./call-summary";
import { EventList, TransferList } from "./event-list";
import { buildTimeline } from "./timeline";

const SOURCE_NOTE: Record<CallDetail["eventSource"], string> = {
  cel: "Channel events as the PBX's event log (CEL) recorded them",
  cdr: "The PBX keeps no channel event log for this call: the events are the legs' own times",
  ami: "The call is in progress: its channels as the PBX's manager interface shows them now",
};

export function CallDetailView({ detail, listening }: { detail: CallDetail; listening: Listening }) {
  const timeline = useMemo(() => buildTimeline(detail), [detail]);
  const recordings = detail.recordings.length ? detail.recordings : detail.recording ? [detail.recording] : [];
  const hasAudio = recordings.length > 0 || detail.voicemail !== undefined;
  const audioTitle =
    recordings.length > 0 && detail.voicemail
      ? "Recording and voicemail"
      : detail.voicemail
        ? "Voicemail"
        : recordings.length > 1
          ? "Recordings"
          : "Recording";
  return (
    <div className="grid min-w-0 gap-4" data-testid="call-detail" data-call-id={detail.linkedid}>
      <CallSummary detail={detail} />
      <CallProblems problems={detail.problems} />
      <Section
        title="Timeline"
        description={
          detail.live
            ? "The call's channels so far on one time axis"
            : `${detail.legs.length} legs of the call on one time axis`
        }
      >
        <CallAxis timeline={timeline} />
      </Section>
      {hasAudio && (
        <Section title={audioTitle} testId="call-audio">
          <CallAudio recordings={recordings} voicemail={detail.voicemail} listening={listening} />
        </Section>
      )}
      {detail.transfers.length > 0 && (
        <Section title="Transfers">
          <TransferList transfers={detail.transfers} start={timeline.start} />
        </Section>
      )}
      {detail.ai && (
        <Section title="AI assistant">
          <AiSection ai={detail.ai} callerNumber={detail.from.number.trim()} />
        </Section>
      )}
      <Section title="Events" description={SOURCE_NOTE[detail.eventSource]}>
        <EventList items={timeline.items} />
      </Section>
    </div>
  );
}

/**
 * A route's call recording mode on its card (ADR 0061), when it decides something: nothing for "don't care"
 * or a mode left to the PBX. No react-hook-form: list screens show it (ADR 0046).
 */
import { Badge } from "@/components/ui/badge";
import { RECORDING_MODE_TEXT, type RecordingMode } from "../../shared/recording-policy";

export function RecordingBadge({ mode }: { mode: RecordingMode | null }) {
  if (mode === null || mode === "dontcare") return null;
  return (
    <Badge variant="outline" title={`Call recording: ${RECORDING_MODE_TEXT[mode].hint}`} data-testid="recording-mode">
      Recording: {RECORDING_MODE_TEXT[mode].label}
    </Badge>
  );
}

/** How a test call and its results read on the screen. */
import type { TestCall, TestCallResult } from "../../../shared/test-calls";

export const whenText = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

export const scheduleText = (call: TestCall) =>
  call.enabled
    ? `Every ${call.intervalMinutes === 1 ? "minute" : `${call.intervalMinutes} minutes`}`
    : "Not scheduled (Run now only)";

export const targetText = (call: TestCall) =>
  `Dials ${call.number} in ${call.context}; answer within ${call.answerWithinSeconds} s, listen ${call.listenSeconds} s`;

/** The measurements of a run, those it has. */
export function measuresText(r: TestCallResult): string {
  const parts: string[] = [];
  if (r.answerMs !== null) parts.push(`answered in ${r.answerMs} ms`);
  if (r.rxPackets !== null) parts.push(`${r.rxPackets} packets in, ${r.txPackets ?? 0} out`);
  if (r.lossPercent !== null) parts.push(`${r.lossPercent}% loss`);
  if (r.jitterMs !== null) parts.push(`${r.jitterMs} ms jitter`);
  return parts.join(", ");
}

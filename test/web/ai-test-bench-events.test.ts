// The test bench's reading of Realtime events (src/web/features/ai/test-bench-session.ts), each event built as
// the SDK's type says OpenAI sends it: what the caller and the assistant said, tool calls shown and answered
// (not run) so the model carries on, errors shown, everything else ignored.
import { describe, expect, test } from "bun:test";
import type {
  ConversationItemInputAudioTranscriptionCompletedEvent,
  RealtimeErrorEvent,
  ResponseAudioTranscriptDoneEvent,
  ResponseFunctionCallArgumentsDoneEvent,
  ResponseTextDeltaEvent,
} from "openai/resources/realtime/realtime";
import { BENCH_TOOL_OUTPUT, benchStep } from "../../src/web/features/ai/test-bench-session";

describe("benchStep", () => {
  test("the caller's transcribed words and the assistant's spoken words become transcript lines", () => {
    const heard: ConversationItemInputAudioTranscriptionCompletedEvent = {
      type: "conversation.item.input_audio_transcription.completed",
      event_id: "event_1",
      item_id: "item_1",
      content_index: 0,
      transcript: " I'd like to book a table. ",
      usage: { type: "tokens", input_tokens: 10, output_tokens: 6, total_tokens: 16 },
    };
    expect(benchStep(heard)).toEqual({ entry: { kind: "caller", text: "I'd like to book a table." } });
    const said: ResponseAudioTranscriptDoneEvent = {
      type: "response.output_audio_transcript.done",
      event_id: "event_2",
      item_id: "item_2",
      response_id: "resp_1",
      output_index: 0,
      content_index: 0,
      transcript: "For how many people?",
    };
    expect(benchStep(said)).toEqual({ entry: { kind: "assistant", text: "For how many people?" } });
    expect(benchStep({ ...said, transcript: "  " })).toEqual({});
  });

  test("a tool call is shown with its arguments and answered with an output that says it did not run", () => {
    const tool: ResponseFunctionCallArgumentsDoneEvent = {
      type: "response.function_call_arguments.done",
      event_id: "event_3",
      item_id: "item_3",
      response_id: "resp_2",
      output_index: 0,
      call_id: "call_abc",
      name: "transfer_call",
      arguments: '{"extension":"1002"}',
    };
    const step = benchStep(tool);
    expect(step.entry).toEqual({ kind: "tool", text: 'transfer_call({"extension":"1002"})' });
    expect(step.reply).toEqual([
      {
        type: "conversation.item.create",
        item: { type: "function_call_output", call_id: "call_abc", output: BENCH_TOOL_OUTPUT },
      },
      { type: "response.create" },
    ]);
    expect(JSON.parse(BENCH_TOOL_OUTPUT)).toMatchObject({ ok: false });
  });

  test("an error event is shown; deltas and other events add nothing", () => {
    const error: RealtimeErrorEvent = {
      type: "error",
      event_id: "event_4",
      error: { type: "invalid_request_error", message: "Session expired", code: null, param: null, event_id: null },
    };
    expect(benchStep(error)).toEqual({ entry: { kind: "error", text: "Session expired" } });
    const delta: ResponseTextDeltaEvent = {
      type: "response.output_text.delta",
      event_id: "event_5",
      item_id: "item_5",
      response_id: "resp_3",
      output_index: 0,
      content_index: 0,
      delta: "For",
    };
    expect(benchStep(delta)).toEqual({});
  });
});

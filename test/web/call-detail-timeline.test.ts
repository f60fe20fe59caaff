// The call detail's time axis (src/web/features/call-detail/timeline.ts): lanes per leg, each event on the
// lane it happened on, the AI's turns merged in time order (untimed ones after the AI's start), offsets.
import { describe, expect, test } from "bun:test";
import type { CallDetail, CallEvent, CallLeg } from "../../src/shared/calls";
import { axisTicks, buildTimeline, formatOffset } from "../../src/web/features/call-detail/timeline";

const T0 = Date.parse("2026-12-07T10:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function leg(partial: Partial<CallLeg>): CallLeg {
  return {
    uniqueid: "1765101600.1",
    sequence: 0,
    startedAt: at(0),
    answeredAt: null,
    endedAt: at(10),
    durationSec: 10,
    talkSec: 0,
    disposition: "NO ANSWER",
    channel: "PJSIP/trunk-00000001",
    dstChannel: "",
    from: { number: "5551234", name: "" },
    to: { number: "600", name: "" },
    did: "5550000",
    context: "from-trunk",
    lastApp: "Dial",
    lastData: "",
    recordingFile: "",
    ...partial,
  };
}

const ev = (s: number, type: string, channel: string, source: CallEvent["source"] = "cel"): CallEvent => ({
  at: at(s),
  source,
  type,
  channel,
  uniqueid: "",
  text: `${type} on ${channel}`,
});

function detail(partial: Partial<CallDetail>): CallDetail {
  return {
    linkedid: "1765101600.1",
    live: false,
    startedAt: at(0),
    endedAt: at(40),
    from: { number: "5551234", name: "" },
    to: { number: "600", name: "" },
    did: "5550000",
    direction: "inbound",
    disposition: "ANSWERED",
    durationSec: 40,
    talkSec: 30,
    answeredBy: "2902",
    legs: [],
    events: [],
    eventSource: "cel",
    transfers: [],
    recordings: [],
    problems: [],
    ...partial,
  };
}

describe("the call's time axis", () => {
  test("a ring group: a lane per leg in start order, each event on the leg whose channel it is", () => {
    const legs = [
      leg({
        sequence: 1,
        dstChannel: "PJSIP/2902-00000003",
        answeredAt: at(5),
        endedAt: at(40),
        disposition: "ANSWERED",
      }),
      leg({ sequence: 0, dstChannel: "PJSIP/2901-00000002", endedAt: at(5) }),
    ];
    const t = buildTimeline(
      detail({
        legs,
        events: [
          ev(0, "CHAN_START", "PJSIP/trunk-00000001"),
          ev(1, "CHAN_START", "PJSIP/2901-00000002"),
          ev(1, "CHAN_START", "PJSIP/2902-00000003"),
          ev(5, "ANSWER", "PJSIP/2902-00000003"),
          ev(5, "HANGUP", "PJSIP/2901-00000002"),
          ev(40, "LINKEDID_END", "PJSIP/trunk-00000001"),
          ev(41, "SOMETHING", "PJSIP/elsewhere-00000009"),
        ],
      }),
    );
    expect(t.lanes.map((l) => [l.kind, l.leg?.dstChannel ?? ""])).toEqual([
      ["call", ""],
      ["leg", "PJSIP/2901-00000002"],
      ["leg", "PJSIP/2902-00000003"],
    ]);
    const [call, first, second] = t.lanes;
    // The caller's channel is on both legs: its events go to the leg whose time holds them (the first leg's
    // start at 0 s, the second's end at 40 s); an unknown channel's to the call's own lane.
    expect(first?.marks.map((m) => `${m.type} ${m.channel}`)).toEqual([
      "CHAN_START PJSIP/trunk-00000001",
      "CHAN_START PJSIP/2901-00000002",
      "HANGUP PJSIP/2901-00000002",
    ]);
    expect(second?.marks.map((m) => `${m.type} ${m.channel}`)).toEqual([
      "CHAN_START PJSIP/2902-00000003",
      "ANSWER PJSIP/2902-00000003",
      "LINKEDID_END PJSIP/trunk-00000001",
    ]);
    expect(call?.marks.map((m) => m.type)).toEqual(["SOMETHING"]);
    expect(t.lanes.flatMap((l) => l.marks).length).toBe(7);
    expect(second?.answeredMs).toBe(5000);
    expect(first?.answeredMs).toBeNull();
    expect(t.spanMs).toBe(41_000);
    expect(t.items.map((i) => i.offsetMs)).toEqual([0, 1000, 1000, 5000, 5000, 40_000, 41_000]);
  });

  test("the AI's turns and tools join the list in time order; untimed turns follow the AI's start in order", () => {
    const t = buildTimeline(
      detail({
        legs: [leg({ answeredAt: at(2), endedAt: at(30), disposition: "ANSWERED" })],
        events: [ev(0, "CHAN_START", "PJSIP/trunk-00000001"), ev(3, "AI_START", "", "ai"), ev(20, "HANGUP", "x")],
        ai: {
          callId: "rtc_1",
          assistantId: 1,
          assistantName: "Front desk",
          startedAt: at(3),
          outcome: "completed",
          turns: [
            { at: null, speaker: "assistant", text: "Hello" },
            { at: null, speaker: "caller", text: "Book a table" },
          ],
          tools: [{ at: at(10), name: "book_table", result: "done" }],
          classification: null,
          ruleDecision: null,
          matchedBy: "header",
        },
      }),
    );
    expect(t.items.map((i) => i.text)).toEqual([
      "CHAN_START on PJSIP/trunk-00000001",
      "AI_START on ",
      "Assistant: Hello",
      "Caller: Book a table",
      "book_table: done",
      "HANGUP on x",
    ]);
    expect(t.items.map((i) => i.offsetMs)).toEqual([0, 3000, null, null, 10_000, 20_000]);
    const ai = t.lanes.find((l) => l.kind === "ai");
    expect(ai?.marks.length).toBe(4);
    expect([ai?.startMs, ai?.endMs]).toEqual([3000, 10_000]);
  });

  test("timed turns the server already sent as events are not added twice", () => {
    const turnEvent = { ...ev(4, "AI_TURN", "", "ai"), text: "Caller: hi" };
    const t = buildTimeline(
      detail({
        events: [turnEvent],
        ai: {
          callId: "rtc_1",
          assistantId: null,
          assistantName: null,
          startedAt: at(3),
          outcome: null,
          turns: [{ at: at(4), speaker: "caller", text: "hi" }],
          tools: [],
          classification: null,
          ruleDecision: null,
          matchedBy: "caller-and-time",
        },
      }),
    );
    expect(t.items.map((i) => i.text)).toEqual(["Caller: hi"]);
  });

  test("a call in progress (no legs yet): a lane per channel AMI lists, answered from the call's answer on", () => {
    const t = buildTimeline(
      detail({
        live: true,
        endedAt: at(30),
        eventSource: "ami",
        events: [
          { ...ev(0, "CHANNEL", "PJSIP/trunk-00000001", "ami") },
          { ...ev(2, "CHANNEL", "PJSIP/2901-00000002", "ami") },
          { ...ev(6, "ANSWER", "", "ami") },
        ],
      }),
    );
    expect(t.lanes.map((l) => [l.kind, l.channel ?? "", l.startMs, l.answeredMs, l.endMs, l.marks.length])).toEqual([
      ["call", "", 0, null, 0, 1],
      ["channel", "PJSIP/trunk-00000001", 0, 6000, 30_000, 1],
      ["channel", "PJSIP/2901-00000002", 2000, 6000, 30_000, 1],
    ]);
  });

  test("offsets and axis labels read as people read them", () => {
    expect(formatOffset(12_400)).toBe("+12.4 s");
    expect(formatOffset(0)).toBe("+0.0 s");
    expect(formatOffset(-300)).toBe("−0.3 s");
    expect(formatOffset(62_400)).toBe("+1:02.4");
    expect(formatOffset(3_723_000)).toBe("+1:02:03");
    expect(axisTicks(41_000)).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    expect(axisTicks(3000)).toEqual([0, 1000, 2000, 3000]);
    expect(axisTicks(3 * 3600_000).length).toBeLessThanOrEqual(7);
  });
});

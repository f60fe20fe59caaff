// FreePBX time-group rows read as Asterisk's GotoIfTime reads them (main/pbx_timing.c), and the simulator
// following a time condition: its override whatever the time, else its time group at the call's instant in its
// zone (the PBX's when it names none).
import { describe, expect, test } from "bun:test";
import { pbxModel } from "../../src/server/routing/model";
import { simulate } from "../../src/server/routing/simulate";
import { instantText, knownZone, ruleMatches } from "../../src/server/routing/time-match";

// Friday 4 December 2026, 16:59:30 UTC.
const FRI_1659 = new Date("2026-12-04T16:59:30Z");

describe("a time-group row", () => {
  test("weekdays, the end minute included, and nothing after it", () => {
    const office = "08:00-17:00|mon-fri|*|*";
    expect(ruleMatches(office, FRI_1659, "UTC")).toBe(true);
    expect(ruleMatches(office, new Date("2026-12-04T17:00:59Z"), "UTC")).toBe(true);
    expect(ruleMatches(office, new Date("2026-12-04T17:01:00Z"), "UTC")).toBe(false);
    expect(ruleMatches(office, new Date("2026-12-05T10:00:00Z"), "UTC")).toBe(false); // Saturday
    expect(ruleMatches(office, new Date("2026-12-07T07:59:00Z"), "UTC")).toBe(false); // Monday, early
  });

  test("ranges wrap around: overnight hours, Friday to Monday, December to January", () => {
    expect(ruleMatches("22:00-06:00|*|*|*", new Date("2026-12-04T23:30:00Z"), "UTC")).toBe(true);
    expect(ruleMatches("22:00-06:00|*|*|*", new Date("2026-12-04T05:00:00Z"), "UTC")).toBe(true);
    expect(ruleMatches("22:00-06:00|*|*|*", new Date("2026-12-04T12:00:00Z"), "UTC")).toBe(false);
    expect(ruleMatches("*|fri-mon|*|*", new Date("2026-12-06T12:00:00Z"), "UTC")).toBe(true); // Sunday
    expect(ruleMatches("*|fri-mon|*|*", new Date("2026-12-08T12:00:00Z"), "UTC")).toBe(false); // Tuesday
    expect(ruleMatches("*|*|*|dec-jan", new Date("2027-01-15T12:00:00Z"), "UTC")).toBe(true);
  });

  test("a dated holiday, parts joined by &, names or numbers", () => {
    expect(ruleMatches("*|*|24-26|dec", new Date("2026-12-25T09:00:00Z"), "UTC")).toBe(true);
    expect(ruleMatches("*|*|24-26|dec", new Date("2026-12-27T09:00:00Z"), "UTC")).toBe(false);
    expect(ruleMatches("*|*|1&25|12", new Date("2026-12-25T09:00:00Z"), "UTC")).toBe(true);
    expect(ruleMatches("09:00-12:00&13:00-17:00|*|*|*", new Date("2026-12-04T12:30:00Z"), "UTC")).toBe(false);
  });

  test("read in the zone: 16:59 UTC is 17:59 in Berlin, outside office hours there", () => {
    expect(ruleMatches("08:00-17:00|mon-fri|*|*", FRI_1659, "Europe/Berlin")).toBe(false);
    expect(instantText(FRI_1659, "Europe/Berlin")).toBe("Fri 4 Dec 17:59 (Europe/Berlin)");
    expect(knownZone("Europe/Berlin")).toBe(true);
    expect(knownZone("Mars/Olympus")).toBe(false);
  });
});

describe("the simulator at a time condition", () => {
  const model = (override: "auto" | "closed" | "open-once", zone: string | null = null) => {
    const m = pbxModel({
      users: [
        { extension: "2801", name: "Front", voicemail: "novm" },
        { extension: "2802", name: "After", voicemail: "default" },
      ],
      incoming: [{ extension: "5550800", cidnum: "", description: "Main", destination: "timeconditions,3,1" }],
    });
    m.zone = "UTC";
    m.timeConditions = new Map([
      [
        "3",
        {
          name: "Office hours",
          group: { name: "Office", rules: ["08:00-17:00|mon-fri|*|*"] },
          zone,
          match: { kind: "extension", target: "2801" },
          noMatch: { kind: "voicemail", target: "2802" },
          override,
        },
      ],
    ]);
    return m;
  };
  const call = (at: Date) => ({ did: "5550800", callerId: "", digits: "", unanswered: false, at });

  test("in office hours it rings the office; on Saturday night the caller reaches voicemail", () => {
    const open = simulate(model("auto"), call(FRI_1659));
    expect(open.final).toEqual({ kind: "extension", target: "2801", ringing: ["2801"] });
    const tc = open.steps.find((s) => s.kind === "time-condition");
    expect(tc?.label).toBe("Time condition 3 · Office hours");
    expect(tc?.why).toBe(
      "At Fri 4 Dec 16:59 (UTC) its time group Office matches (08:00-17:00|mon-fri|*|*). The call goes to Extension 2801 · Front.",
    );
    const night = simulate(model("auto"), call(new Date("2026-12-05T22:30:00Z")));
    expect(night.final).toEqual({ kind: "voicemail", target: "2802", ringing: [] });
  });

  test("an override wins whatever the time; the time condition's own zone is used when it has one", () => {
    expect(simulate(model("closed"), call(FRI_1659)).final.kind).toBe("voicemail");
    expect(simulate(model("open-once"), call(new Date("2026-12-05T22:30:00Z"))).final.kind).toBe("extension");
    expect(simulate(model("auto", "Europe/Berlin"), call(FRI_1659)).final.kind).toBe("voicemail");
  });

  test("not read from the PBX, or not on it: the step says so", () => {
    const m = model("auto");
    m.timeConditions = null;
    const path = simulate(m, call(FRI_1659));
    expect(path.final).toEqual({ kind: "time-condition", target: "3", ringing: [] });
    expect(path.steps.at(-1)?.why).toContain("compare with the PBX");
    const gone = model("auto");
    gone.timeConditions = new Map();
    expect(simulate(gone, call(FRI_1659)).final).toEqual({ kind: "hangup", target: "", ringing: [] });
  });
});

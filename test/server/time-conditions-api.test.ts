// Time groups and time conditions over HTTP (ADR 0059): the rows as FreePBX keeps them, bad input refused with the
// message under its field and nothing stored (overlapping or impossible times, unknown time zones, a group that is
// not the console's), deletes refused while something uses them (409 naming it), undo, and the event.
import { describe, expect, test } from "bun:test";
import type { TimeCondition, TimeGroup } from "../../src/shared/call-flow";
import { signedInServer } from "../helpers/server";

const s = signedInServer({
  clean: ["time_conditions", "time_groups", "inbound_routes", "ivrs", "extensions", "pbx_objects"],
});

async function made<T = { id: number }>(path: string, body: unknown): Promise<T> {
  const res = await s.call("POST", path, body);
  expect(res.status, res.text).toBe(201);
  return res.json as T;
}
const weekdays = { fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" };

describe("time groups", () => {
  test("weekly hours and holidays are stored as given, a day range without its end is one day", async () => {
    const g = await made<TimeGroup>("/api/time-groups", {
      name: " Office hours ",
      weekly: [
        weekdays,
        { fromDay: "sat", start: "09:00", end: "12:00" },
        { fromDay: "fri", toDay: "mon", start: "20:00", end: "23:59" },
      ],
      holidays: [
        { month: "dec", day: 24, toDay: 26 },
        { month: "feb", day: 29 },
      ],
    });
    expect(g).toMatchObject({
      name: "Office hours",
      weekly: [
        weekdays,
        { fromDay: "sat", toDay: "sat", start: "09:00", end: "12:00" },
        { fromDay: "fri", toDay: "mon", start: "20:00", end: "23:59" },
      ],
      holidays: [
        { month: "dec", day: 24, toDay: 26 },
        { month: "feb", day: 29, toDay: 29 },
      ],
    });
    expect((await s.call("GET", "/api/time-groups")).json).toEqual([g]);
  });

  test("impossible, overlapping and malformed times: 400 under the field, nothing stored", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ weekly: [], holidays: [] }, "weekly", "Add weekly hours or a holiday"],
      [
        { weekly: [{ ...weekdays, end: "07:00" }] },
        "weekly",
        "Row 1: the end must be after the start (a night is two rows: until 23:59, and from 00:00)",
      ],
      [{ weekly: [{ ...weekdays, start: "24:00" }] }, "weekly.0.start", "Start must be HH:MM, 00:00 to 23:59"],
      [{ weekly: [{ ...weekdays, end: "9am" }] }, "weekly.0.end", "End must be HH:MM, 00:00 to 23:59"],
      [{ weekly: [{ ...weekdays, fromDay: "monday" }] }, "weekly.0.fromDay", "Day must be mon-sun"],
      [
        { weekly: [weekdays, { fromDay: "wed", start: "16:00", end: "18:00" }] },
        "weekly",
        "Rows 1 and 2 overlap on wed",
      ],
      [
        {
          weekly: [
            { fromDay: "fri", toDay: "mon", start: "20:00", end: "23:00" },
            { fromDay: "sun", start: "22:00", end: "23:30" },
          ],
        },
        "weekly",
        "Rows 1 and 2 overlap on sun",
      ],
      [{ holidays: [{ month: "feb", day: 30 }] }, "holidays", "feb has 29 days"],
      [{ holidays: [{ month: "apr", day: 31 }] }, "holidays", "apr has 30 days"],
      [
        { holidays: [{ month: "dec", day: 26, toDay: 24 }] },
        "holidays",
        "A holiday's last day must not be before its first",
      ],
      [
        {
          holidays: [
            { month: "dec", day: 24, toDay: 26 },
            { month: "dec", day: 25 },
          ],
        },
        "holidays",
        "Holidays 1 and 2 share a day (dec)",
      ],
      [{ holidays: [{ month: "december", day: 25 }] }, "holidays.0.month", "Month must be jan-dec"],
      [{ holidays: [{ month: "dec", day: 0 }] }, "holidays.0.day", "Day must be 1-31"],
      [{ name: "x".repeat(51), holidays: [{ month: "dec", day: 25 }] }, "name", "Name must be at most 50 characters"],
    ];
    for (const [body, field, message] of cases) {
      const error = await s.refused(
        "time_groups",
        () => s.call("POST", "/api/time-groups", { name: "Hours", ...body }),
        400,
      );
      expect(error.fields?.[field], JSON.stringify(body)).toBe(message);
    }
  });

  test("a group a time condition reads is not deleted (409 naming it); free, it is, and undo brings it back", async () => {
    const g = await made("/api/time-groups", { name: "Hours", weekly: [weekdays] });
    const tc = await made("/api/time-conditions", { name: "Office", timeGroup: g.id });
    const refused = await s.refused("time_groups", () => s.call("DELETE", `/api/time-groups/${g.id}`), 409);
    expect(refused.message).toBe("Time condition(s) Office read time group Hours. Change it first.");
    expect((await s.call("GET", `/api/time-groups/${g.id}/dependents`)).json.dependents).toEqual([
      { kind: "time-condition", id: tc.id, label: "Office" },
    ]);
    expect((await s.call("DELETE", `/api/time-conditions/${tc.id}`)).status).toBe(200);
    const gone = await s.call("DELETE", `/api/time-groups/${g.id}`);
    expect(gone.status, gone.text).toBe(200);
    expect((await s.call("POST", `/api/undo/${gone.json.undoToken}`)).status).toBe(200);
    expect(((await s.call("GET", "/api/time-groups")).json as TimeGroup[]).map((x) => x.id)).toEqual([g.id]);
  });
});

describe("time conditions", () => {
  test("a time group, a zone and two destinations; an unknown zone, group or destination is refused under its field", async () => {
    await made("/api/extensions", { extension: "1001", name: "Desk", voicemail: true });
    const g = await made("/api/time-groups", { name: "Hours", weekly: [weekdays] });
    const tc = await made<TimeCondition>("/api/time-conditions", {
      name: "Office",
      timeGroup: g.id,
      timeZone: "Europe/Berlin",
      match: { kind: "extension", target: "1001" },
      noMatch: { kind: "voicemail", target: "1001" },
    });
    expect(tc).toMatchObject({
      timeGroup: g.id,
      timeZone: "Europe/Berlin",
      noMatch: { kind: "voicemail", target: "1001" },
    });
    const none = await made<TimeCondition>("/api/time-conditions", { name: "PBX zone", timeGroup: g.id, timeZone: "" });
    expect(none).toMatchObject({ timeZone: null, match: null, noMatch: null });
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { timeZone: "Europe/Atlantis" },
        "timeZone",
        "Unknown time zone Europe/Atlantis (an IANA name, e.g. Europe/Berlin)",
      ],
      [{ timeZone: "+01:00" }, "timeZone", "Unknown time zone +01:00 (an IANA name, e.g. Europe/Berlin)"],
      [{ timeGroup: 9999 }, "timeGroup", "Time group 9999 does not exist"],
      [{ timeGroup: "Hours" }, "timeGroup", "Choose a time group"],
      [{ match: { kind: "extension", target: "1009" } }, "match.target", "Extension 1009 does not exist"],
      [
        { noMatch: { kind: "ivr", target: "77" } },
        "noMatch.target",
        "IVR 77 does not exist (an IVR is chosen by the console's number for it)",
      ],
      [{ name: "Office" }, "name", "A time condition named Office exists already"],
    ];
    for (const [body, field, message] of cases) {
      const res = await s.call("POST", "/api/time-conditions", { name: "Other", timeGroup: g.id, ...body });
      expect(res.status, JSON.stringify(body)).toBe(field === "name" ? 409 : 400);
      expect(res.json.error.fields?.[field], JSON.stringify(body)).toBe(message);
    }
    expect(((await s.call("GET", "/api/time-conditions")).json as TimeCondition[]).map((t) => t.name)).toEqual([
      "Office",
      "PBX zone",
    ]);
  });

  test("an IVR whose no-key path is the time condition that sends calls back to it closes a loop: refused", async () => {
    const g = await made("/api/time-groups", { name: "Hours", weekly: [weekdays] });
    const menu = await made("/api/ivrs", { name: "Main" });
    const tc = await made("/api/time-conditions", {
      name: "Office",
      timeGroup: g.id,
      match: { kind: "ivr", target: String(menu.id) },
    });
    const res = await s.call("PATCH", `/api/ivrs/${menu.id}`, {
      timeoutDestination: { kind: "time-condition", target: String(tc.id) },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.fields["timeoutDestination.target"]).toBe(
      `This makes a loop: IVR ${menu.id} · Main → Time condition ${tc.id} · Office → IVR ${menu.id} · Main. A call would go round it until the caller hangs up`,
    );
    // Something sends calls to the time condition: its delete is refused, naming it.
    await made("/api/inbound-routes", {
      description: "Main line",
      didNumber: "5550100",
      destinationType: "time-condition",
      destination: String(tc.id),
    });
    const refused = await s.refused("time_conditions", () => s.call("DELETE", `/api/time-conditions/${tc.id}`), 409);
    expect(refused.message).toBe("Inbound route(s) Main line send calls to time condition Office. Change it first.");
  });
});

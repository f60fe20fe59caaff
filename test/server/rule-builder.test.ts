/**
 * Routing rules without JSON (ADR 0040): every condition kind the builder offers is evaluated
 * (src/server/ai/rule-evaluator.ts `conditionHolds` / `ruleMatches`, used by src/server/ai/routing.ts), the
 * server refuses invalid conditions and parameters with field messages, and rules stored in the older
 * flat shape still parse, match and can be edited.
 */
import { describe, expect, test } from "bun:test";
import { conditionHolds, dialPatternRegex, ruleMatches } from "../../src/server/ai/rule-evaluator";
import {
  aiRoutingRuleSchema,
  conditionsForBuilder,
  parseRuleConditions,
  type RuleCondition,
} from "../../src/shared/ai/routing-rules";
import { signedInServer } from "../helpers/server";

// A Tuesday, 10:30 in the console's local time.
const TUESDAY_1030 = new Date(2026, 10, 24, 10, 30);
const holds = (c: RuleCondition, facts: Record<string, unknown>, now = TUESDAY_1030) => conditionHolds(c, facts, now);

describe("each condition kind", () => {
  test("sentiment is / is not; a call without a sentiment matches neither", () => {
    const is = { kind: "sentiment", op: "is", value: "negative" } as const;
    const isNot = { kind: "sentiment", op: "is_not", value: "negative" } as const;
    expect(holds(is, { sentiment: "Negative" })).toBe(true);
    expect(holds(is, { sentiment: "neutral" })).toBe(false);
    expect(holds(isNot, { sentiment: "neutral" })).toBe(true);
    expect(holds(isNot, { sentiment: "negative" })).toBe(false);
    expect(holds(is, {})).toBe(false);
    expect(holds(isNot, {})).toBe(false);
  });

  test("intent is any of / is none of", () => {
    const is = { kind: "intent", op: "is", values: ["billing", "Refund"] } as const;
    expect(holds({ ...is, values: [...is.values] }, { intent: "refund" })).toBe(true);
    expect(holds({ ...is, values: [...is.values] }, { intent: "sales" })).toBe(false);
    expect(holds({ kind: "intent", op: "is_not", values: ["billing"] }, { intent: "sales" })).toBe(true);
    expect(holds({ kind: "intent", op: "is_not", values: ["billing"] }, { intent: "BILLING" })).toBe(false);
  });

  test("the transcript contains any of the keywords (case-insensitive)", () => {
    const c = { kind: "keywords", any: ["cancel my", "lawyer"] } as const;
    const k = { ...c, any: [...c.any] };
    expect(holds(k, { transcript: "I want to CANCEL MY contract" })).toBe(true);
    expect(holds(k, { transcript: "my lawyer says" })).toBe(true);
    expect(holds(k, { transcript: "all good" })).toBe(false);
    expect(holds(k, {})).toBe(false);
  });

  test("the caller number matches a FreePBX pattern, or starts with a prefix", () => {
    const nanp = { kind: "caller", op: "matches", pattern: "NXXNXXXXXX" } as const;
    expect(holds(nanp, { callerNumber: "2125551234" })).toBe(true);
    expect(holds(nanp, { callerNumber: "1125551234" })).toBe(false); // N is 2-9
    expect(holds(nanp, { callerNumber: "212555123" })).toBe(false); // the whole number
    expect(holds({ kind: "caller", op: "matches", pattern: "+44." }, { callerNumber: "+442071234567" })).toBe(true);
    expect(holds({ kind: "caller", op: "matches", pattern: "+44." }, { callerNumber: "+44" })).toBe(false);
    expect(holds({ kind: "caller", op: "matches", pattern: "1[2-4]ZX" }, { callerNumber: "1319" })).toBe(true);
    expect(holds({ kind: "caller", op: "matches", pattern: "1[2-4]ZX" }, { callerNumber: "1509" })).toBe(false);
    expect(holds({ kind: "caller", op: "matches", pattern: "1[2-4]ZX" }, { callerNumber: "1309" })).toBe(false);
    expect(holds({ kind: "caller", op: "starts_with", pattern: "+1555" }, { callerNumber: "+15550100" })).toBe(true);
    expect(holds({ kind: "caller", op: "starts_with", pattern: "+1555" }, { callerNumber: "+15560100" })).toBe(false);
    expect(holds({ kind: "caller", op: "matches", pattern: "NXX" }, {})).toBe(false);
    expect(dialPatternRegex("*7X#").test("*75#")).toBe(true);
  });

  test("time of day between two times on chosen days, over midnight too; `time`/`day` facts stand for now", () => {
    const office = { kind: "time", from: "09:00", to: "17:00", days: ["mon", "tue", "wed", "thu", "fri"] } as const;
    const o = { ...office, days: [...office.days] };
    expect(holds(o, {})).toBe(true); // Tuesday 10:30
    expect(holds(o, {}, new Date(2026, 10, 24, 17, 0))).toBe(false); // To is exclusive
    expect(holds(o, {}, new Date(2026, 10, 24, 9, 0))).toBe(true);
    expect(holds(o, {}, new Date(2026, 10, 29, 10, 30))).toBe(false); // a Sunday
    expect(holds(o, { time: "08:59" })).toBe(false);
    expect(holds(o, { day: "sat" })).toBe(false);
    const night = { kind: "time", from: "22:00", to: "06:00", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] };
    const n = night as RuleCondition;
    expect(holds(n, { time: "23:15" })).toBe(true);
    expect(holds(n, { time: "05:59" })).toBe(true);
    expect(holds(n, { time: "06:00" })).toBe(false);
    expect(holds(n, {})).toBe(false);
  });

  test("a call fact equals any of the values (the older rules' key = value)", () => {
    const c: RuleCondition = { kind: "fact", key: "calledNumber", values: ["1001", "1002"] };
    expect(holds(c, { calledNumber: 1002 })).toBe(true);
    expect(holds(c, { CalledNumber: "1003" })).toBe(false);
  });

  test("all / any; no conditions match every call", () => {
    const text = (match: string) =>
      JSON.stringify({
        match,
        conditions: [
          { kind: "sentiment", op: "is", value: "negative" },
          { kind: "intent", op: "is", values: ["billing"] },
        ],
      });
    expect(ruleMatches(text("all"), { sentiment: "negative", intent: "billing" }, TUESDAY_1030)).toBe(true);
    expect(ruleMatches(text("all"), { sentiment: "negative", intent: "sales" }, TUESDAY_1030)).toBe(false);
    expect(ruleMatches(text("any"), { sentiment: "negative", intent: "sales" }, TUESDAY_1030)).toBe(true);
    expect(ruleMatches(text("any"), { sentiment: "positive", intent: "sales" }, TUESDAY_1030)).toBe(false);
    expect(ruleMatches('{"match":"all","conditions":[]}', {}, TUESDAY_1030)).toBe(true);
  });
});

describe("older stored rules", () => {
  test("the flat shape still parses, matches as before, and opens in the builder as rows", () => {
    const old = '{"sentiment":"negative","intent":["billing","refund"],"vip":true}';
    expect(parseRuleConditions(old)).toMatchObject({ ok: true, shape: "legacy" });
    expect(ruleMatches(old, { sentiment: "NEGATIVE", intent: "refund", vip: "true" }, TUESDAY_1030)).toBe(true);
    expect(ruleMatches(old, { sentiment: "negative", intent: "sales", vip: true }, TUESDAY_1030)).toBe(false);
    expect(conditionsForBuilder(old)).toEqual({
      match: "all",
      conditions: [
        { kind: "sentiment", op: "is", value: "negative" },
        { kind: "intent", op: "is", values: ["billing", "refund"] },
        { kind: "fact", key: "vip", values: ["true"] },
      ],
    });
    expect(conditionsForBuilder("{}")).toEqual({ match: "all", conditions: [] });
    // The schema accepts the old rows as they are (an edit of another field saves).
    const row = {
      name: "Old",
      priority: 1,
      conditions: old,
      action: "route_to_extension",
      actionParams: '{"extensionId":"200"}',
    };
    expect(aiRoutingRuleSchema.safeParse(row).success).toBe(true);
  });
});

const s = signedInServer({ clean: ["ai_call_logs", "ai_assistants", "ai_routing_rules"] });
const BUILT = {
  match: "any",
  conditions: [
    { kind: "sentiment", op: "is_not", value: "positive" },
    { kind: "caller", op: "matches", pattern: "nxxnxxxxxx" },
    { kind: "time", from: "22:00", to: "06:00", days: ["sat", "sun"] },
  ],
};
const rule = (extra: Record<string, unknown>) =>
  s.call("POST", "/api/ai/routing-rules", {
    name: "Built",
    priority: 10,
    conditions: JSON.stringify(BUILT),
    action: "route_to_extension",
    actionParams: '{"extensionId":"200"}',
    enabled: true,
    ...extra,
  });

describe("over HTTP", () => {
  test("a built rule is stored as JSON text and decides calls; the route tester sees it", async () => {
    const res = await rule({});
    expect(res.status).toBe(201);
    expect(JSON.parse(res.json.conditions)).toEqual(BUILT);
    const hit = await s.call("POST", "/api/ai/route", { callerNumber: "2125551234", sentiment: "positive" });
    expect(hit.json).toMatchObject({ matched: true, rule: { name: "Built" }, actionParams: { extensionId: "200" } });
    const weekend = await s.call("POST", "/api/ai/route", { sentiment: "positive", day: "sun", time: "23:00" });
    expect(weekend.json.matched).toBe(true);
    const miss = await s.call("POST", "/api/ai/route", { sentiment: "positive", day: "tue", time: "23:00" });
    expect(miss.json.matched).toBe(false);
  });

  test("invalid conditions and parameters are 400 with field messages, and nothing is stored", async () => {
    const cond = (c: unknown) => JSON.stringify({ match: "all", conditions: [c] });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ conditions: "not json" }, "conditions", "Conditions must be a JSON object"],
      [
        { conditions: cond({ kind: "caller", op: "matches", pattern: "12ab" }) },
        "conditions",
        "Condition 1 (caller number): Dial patterns may only contain 0-9 * # + - . [ ] X N Z",
      ],
      [
        { conditions: cond({ kind: "time", from: "9am", to: "17:00" }) },
        "conditions",
        "Condition 1 (time of day): From must be a time such as 09:00",
      ],
      [
        { conditions: cond({ kind: "time", from: "09:00", to: "17:00", days: [] }) },
        "conditions",
        "Condition 1 (time of day): Choose at least one day",
      ],
      [
        { conditions: cond({ kind: "keywords", any: [] }) },
        "conditions",
        "Condition 1 (transcript keywords): Enter at least one keyword",
      ],
      [
        { conditions: cond({ kind: "sentiment", op: "is", value: "angry" }) },
        "conditions",
        "Condition 1 (sentiment): Choose positive, neutral or negative",
      ],
      [{ conditions: cond({ kind: "weather" }) }, "conditions", "Condition 1: Choose a condition"],
      [
        { conditions: '{"sentiment":{"a":1}}' },
        "conditions",
        "A condition's value must be text, a number, true/false or a list of them",
      ],
      [{ action: "dance" }, "action", "Choose one of the listed actions"],
      [{ actionParams: "{}" }, "actionParams", "Choose an extension"],
      [{ action: "route_to_ivr", actionParams: '{"number":"abc"}' }, "actionParams", "Enter the IVR or queue number"],
      [{ action: "transfer_to_ai", actionParams: '{"assistantId":"x"}' }, "actionParams", "Choose an assistant"],
      [
        { action: "transfer_to_ai", actionParams: '{"assistantId":999}' },
        "actionParams",
        "Choose an existing assistant",
      ],
      [{ action: "hangup", actionParams: '{"statusCode":200}' }, "actionParams", "The SIP status must be 400-699"],
    ];
    for (const [patch, field, message] of cases) {
      const err = await s.refused("ai_routing_rules", () => rule(patch), 400);
      expect({ patch, message: err.fields?.[field] }).toEqual({ patch, message });
    }
    // Hang up needs no parameters; a PATCH is checked the same way.
    const ok = await rule({ action: "hangup", actionParams: "{}" });
    expect(ok.status).toBe(201);
    const patch = await s.call("PATCH", `/api/ai/routing-rules/${ok.json.id}`, { conditions: "[]" });
    expect(patch.status).toBe(400);
    expect(patch.json.error.fields.conditions).toBe("Conditions must be a JSON object");
  });

  test("a rule stored in the older shape lists, matches and can be edited", async () => {
    s.db.$client.run(
      "INSERT INTO ai_routing_rules (name, priority, conditions, action, action_params, enabled, created_at) VALUES ('Old', 5, ?, 'route_to_extension', '{\"extensionId\":\"300\"}', 1, ?)",
      ['{"sentiment":"negative","intent":"billing"}', Date.now()],
    );
    const list = await s.call("GET", "/api/ai/routing-rules");
    const old = list.json.find((r: { name: string }) => r.name === "Old");
    expect((await s.call("POST", "/api/ai/route", { sentiment: "negative", intent: "billing" })).json.rule.name).toBe(
      "Old",
    );
    const edit = await s.call("PATCH", `/api/ai/routing-rules/${old.id}`, { priority: 7 });
    expect(edit.status).toBe(200);
    expect(edit.json).toMatchObject({ priority: 7, conditions: '{"sentiment":"negative","intent":"billing"}' });
  });
});

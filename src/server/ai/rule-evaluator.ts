/**
 * The routing rules' evaluator: whether a rule's stored conditions (the builder's shape or the older flat
 * one) hold for a call's facts at a moment, and the first enabled rule that matches. ADRs 0007, 0040.
 */
import {
  byRuleOrder,
  isBuilderShape,
  parseJsonObject,
  parseRuleConditions,
  type RuleCondition,
  WEEKDAYS,
  type Weekday,
} from "../../shared/ai/routing-rules";

const norm = (v: unknown): string | null =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v).trim().toLowerCase() : null;

/**
 * True when every `key = value` of the conditions holds in the facts. Keys and
 * values compare case-insensitively; a list value means "any of"; a missing
 * fact never matches; `{}` matches every call.
 */
export function conditionsMatch(conditions: Record<string, unknown>, facts: Record<string, unknown>): boolean {
  const byKey = new Map<string, string>();
  for (const [k, v] of Object.entries(facts)) {
    const n = norm(v);
    if (n !== null) byKey.set(k.trim().toLowerCase(), n);
  }
  return Object.entries(conditions).every(([key, expected]) => {
    const actual = byKey.get(key.trim().toLowerCase());
    if (actual === undefined) return false;
    const options = Array.isArray(expected) ? expected : [expected];
    return options.some((o) => norm(o) === actual);
  });
}

/**
 * A FreePBX dial pattern as a regular expression over the whole number: X = 0-9, Z = 1-9, N = 2-9,
 * [15-7] a set, a `.` one or more of anything, `-` outside a set ignored; other characters as they are.
 */
export function dialPatternRegex(pattern: string): RegExp {
  let out = "";
  const p = pattern.toUpperCase();
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === "X") out += "[0-9]";
    else if (c === "Z") out += "[1-9]";
    else if (c === "N") out += "[2-9]";
    else if (c === ".") out += ".+";
    else if (c === "-") continue;
    else if (c === "[") {
      const end = p.indexOf("]", i);
      const set = end > i ? p.slice(i + 1, end).replace(/[^0-9-]/g, "") : "";
      out += set ? `[${set}]` : "\\[";
      if (end > i) i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\#]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

const factOf = (facts: Record<string, unknown>, name: string): string | null => {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(facts)) if (k.trim().toLowerCase() === want) return norm(v);
  return null;
};

/** `now`'s weekday and minutes since midnight (the console's local time: the PBX host's), or the facts' `day`/`time`. */
function clockOf(facts: Record<string, unknown>, now: Date): { day: Weekday; minutes: number } {
  const time = factOf(facts, "time");
  const day = factOf(facts, "day");
  const m = time?.match(/^(\d{1,2}):(\d{2})$/);
  const minutes = m ? Number(m[1]) * 60 + Number(m[2]) : now.getHours() * 60 + now.getMinutes();
  const weekday = (WEEKDAYS as readonly string[]).includes(day?.slice(0, 3) ?? "")
    ? (day?.slice(0, 3) as Weekday)
    : (WEEKDAYS[(now.getDay() + 6) % 7] as Weekday);
  return { day: weekday, minutes };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether one condition holds for a call's facts at `now`. Facts are read case-insensitively by name:
 * `sentiment`, `intent`, `transcript`, `callerNumber`, and `time` (HH:MM) / `day` (mon…sun) to test a
 * moment other than now. A fact the call does not have never matches ("is not" included).
 */
export function conditionHolds(c: RuleCondition, facts: Record<string, unknown>, now: Date): boolean {
  switch (c.kind) {
    case "sentiment": {
      const v = factOf(facts, "sentiment");
      if (v === null) return false;
      return (v === c.value) === (c.op === "is");
    }
    case "intent": {
      const v = factOf(facts, "intent");
      if (v === null) return false;
      const hit = c.values.some((x) => x.trim().toLowerCase() === v);
      return hit === (c.op === "is");
    }
    case "keywords": {
      const text = factOf(facts, "transcript");
      if (text === null) return false;
      return c.any.some((k) => text.includes(k.trim().toLowerCase()));
    }
    case "caller": {
      const number = factOf(facts, "callerNumber")?.replace(/[\s()-]/g, "") ?? null;
      if (!number) return false;
      const pattern = c.pattern.toUpperCase();
      if (c.op === "starts_with") return number.toUpperCase().startsWith(pattern);
      return dialPatternRegex(pattern).test(number.toUpperCase());
    }
    case "time": {
      const { day, minutes } = clockOf(facts, now);
      if (!c.days.includes(day)) return false;
      const from = minutesOf(c.from);
      const to = minutesOf(c.to);
      // From 22:00 to 06:00 runs over midnight.
      return from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
    }
    case "fact": {
      const v = factOf(facts, c.key.trim());
      if (v === null) return false;
      return c.values.some((x) => x.trim().toLowerCase() === v);
    }
  }
}

/** Whether a rule's stored conditions (either shape) match; conditions that do not parse never match. */
export function ruleMatches(conditionsText: string, facts: Record<string, unknown>, now: Date): boolean {
  const parsed = parseRuleConditions(conditionsText);
  if (!parsed.ok) {
    // Rows stored before conditions were checked: a JSON object still matches the old way.
    const obj = parseJsonObject(conditionsText);
    return obj !== null && !isBuilderShape(obj) && conditionsMatch(obj, facts);
  }
  if (parsed.shape === "legacy") return conditionsMatch(parsed.value, facts);
  const { match, conditions } = parsed.value;
  if (conditions.length === 0) return true;
  return match === "all"
    ? conditions.every((c) => conditionHolds(c, facts, now))
    : conditions.some((c) => conditionHolds(c, facts, now));
}

/** The first enabled rule, in evaluation order, whose conditions all match; invalid conditions never match. */
export function firstMatchingRule<R extends { priority: number; id: number; enabled: boolean; conditions: string }>(
  rules: readonly R[],
  facts: Record<string, unknown>,
  now: Date = new Date(),
): R | null {
  for (const rule of [...rules].sort(byRuleOrder)) {
    if (!rule.enabled) continue;
    if (ruleMatches(rule.conditions, facts, now)) return rule;
  }
  return null;
}

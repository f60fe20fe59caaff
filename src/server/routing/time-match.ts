/**
 * Whether an instant falls in a FreePBX time-group row (`08:00-17:00|mon-fri|*|*`, FreePBX's own form's shape),
 * read as Asterisk's `GotoIfTime` reads it (main/pbx_timing.c): each of the four fields `*` or parts joined by
 * `&`, each part a value or a `start-end` range that wraps around (`fri-mon`, `22:00-06:00`); a time range
 * includes its end minute; weekdays and months by name or number; the instant taken in the given zone.
 */

const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** A name (`mon`) or a 1-based number of `names` (or of 1..max without names) → its 0-based index. */
function indexOf(text: string, max: number, names?: string[]): number {
  const t = text.trim().toLowerCase();
  if (names && t > "9") return names.indexOf(t);
  const n = Number.parseInt(t, 10);
  return Number.isInteger(n) && n >= 1 && n <= max ? n - 1 : -1;
}

/** The set of indexes a field allows (Asterisk's `get_range`): all for `*` or empty; parts skipped when invalid. */
function rangeSet(field: string | undefined, max: number, names?: string[]): Set<number> {
  const all = new Set(Array.from({ length: max }, (_, i) => i));
  if (field === undefined || field.trim() === "" || field.trim() === "*") return all;
  const out = new Set<number>();
  for (const part of field.split("&")) {
    const [a, b] = part.split("-");
    const start = indexOf(a ?? "", max, names);
    const end = b === undefined ? start : indexOf(b, max, names);
    if (start < 0 || end < 0) continue;
    for (let i = start; ; i = (i + 1) % max) {
      out.add(i);
      if (i === end) break;
    }
  }
  return out;
}

const minuteOf = (hhmm: string): number | null => {
  const m = hhmm.trim().match(/^(\d{1,2}):(\d{1,2})$/);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h <= 23 && min <= 59 ? h * 60 + min : null;
};

/** Whether a minute of the day is in the time field (Asterisk's `get_timerange`: the end minute included). */
function inTimes(field: string | undefined, minute: number): boolean {
  if (field === undefined || field.trim() === "" || field.trim() === "*") return true;
  for (const part of field.split("&")) {
    const [a, b] = part.split("-");
    const start = minuteOf(a ?? "");
    if (start === null) continue;
    const end = b === undefined ? start : minuteOf(b.replace(/^\D+/, ""));
    if (end === null) continue;
    const inside = start <= end ? minute >= start && minute <= end : minute >= start || minute <= end;
    if (inside) return true;
  }
  return false;
}

/** The wall clock of an instant in a zone: minute of the day, weekday (0 Sunday), day of the month, month (0 January). */
export function wallClock(at: Date, zone: string): { minute: number; dow: number; day: number; month: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      weekday: "short",
      day: "numeric",
      month: "numeric",
      hour: "2-digit",
      minute: "2-digit",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    minute: Number(parts.hour) * 60 + Number(parts.minute),
    dow: DAYS.indexOf(String(parts.weekday).toLowerCase()),
    day: Number(parts.day),
    month: Number(parts.month) - 1,
  };
}

/** Whether `at`, in `zone`, falls in the FreePBX time-group row `rule`. */
export function ruleMatches(rule: string, at: Date, zone: string): boolean {
  const [times, dows, days, months] = rule.split("|");
  const c = wallClock(at, zone);
  return (
    rangeSet(months, 12, MONTHS).has(c.month) &&
    rangeSet(days, 31).has(c.day - 1) &&
    rangeSet(dows, 7, DAYS).has(c.dow) &&
    inTimes(times, c.minute)
  );
}

/** Whether `zone` is a time zone this runtime knows (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function knownZone(zone: string | null | undefined): zone is string {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** How a step names the instant: `Sat 5 Dec 22:30 (Europe/Berlin)`. */
export function instantText(at: Date, zone: string): string {
  const text = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hourCycle: "h23",
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  }).format(at);
  return `${text.replace(",", "")} (${zone})`;
}

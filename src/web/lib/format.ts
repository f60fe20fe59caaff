/**
 * Numbers, dates and times as the person reading them writes them: the browser's locale (its language
 * settings), never a fixed "en-US". One place, so every screen agrees.
 */
const LOCALE = undefined;

/** 1234567 → "1,234,567" (en), "1.234.567" (de), "12,34,567" (en-IN). */
export const formatNumber = (n: number): string => n.toLocaleString(LOCALE);

// One formatter each, made once: `toLocaleString` with options builds a new one per call, which a
// table's rows add up.
const DATE_TIME = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeStyle: "short" });
const DAY = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium" });
const TIME = new Intl.DateTimeFormat(LOCALE, { timeStyle: "medium" });
const TIME_SHORT = new Intl.DateTimeFormat(LOCALE, { timeStyle: "short" });

/** As `toLocaleString` would (which says "Invalid Date" where `format` throws). */
export function formatWith(format: Intl.DateTimeFormat, at: string | number | Date): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? "Invalid Date" : format.format(d);
}

/** A moment: the date and the time ("Nov 24, 2026, 5:43 PM" in en-US). */
export const formatDateTime = (at: string | number | Date): string => formatWith(DATE_TIME, at);

/** A day ("Nov 24, 2026" in en-US). */
export const formatDay = (at: string | number | Date): string => formatWith(DAY, at);

/** A time of day, with seconds when they matter ("5:43:10 PM" in en-US). */
export const formatTime = (at: string | number | Date, seconds = true): string =>
  formatWith(seconds ? TIME : TIME_SHORT, at);

/**
 * Numbers, dates and times as the person reading them writes them: the browser's locale (its language
 * settings), never a fixed "en-US". One place, so every screen agrees (issue 16).
 */
const LOCALE = undefined;

/** 1234567 → "1,234,567" (en), "1.234.567" (de), "12,34,567" (en-IN). */
export const formatNumber = (n: number): string => n.toLocaleString(LOCALE);

/** A moment: the date and the time ("Nov 24, 2026, 5:43 PM" in en-US). */
export const formatDateTime = (at: string | number | Date): string =>
  new Date(at).toLocaleString(LOCALE, { dateStyle: "medium", timeStyle: "short" });

/** A day ("Nov 24, 2026" in en-US). */
export const formatDay = (at: string | number | Date): string =>
  new Date(at).toLocaleDateString(LOCALE, { dateStyle: "medium" });

/** A time of day, with seconds when they matter ("5:43:10 PM" in en-US). */
export const formatTime = (at: string | number | Date, seconds = true): string =>
  new Date(at).toLocaleTimeString(LOCALE, seconds ? { timeStyle: "medium" } : { timeStyle: "short" });

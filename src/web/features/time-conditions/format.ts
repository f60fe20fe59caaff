/**
 * How the cards read a time group's rows: "Mon–Fri 08:00–17:00", "25 Dec", "24–26 Dec". Type imports only:
 * the Inventory chunk stays free of the schemas' zod (ADR 0046).
 */
import type { Holiday, WeeklyHours } from "../../../shared/call-flow";

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export function weeklyText(w: WeeklyHours): string {
  const days = w.fromDay === w.toDay ? capitalized(w.fromDay) : `${capitalized(w.fromDay)}–${capitalized(w.toDay)}`;
  return `${days} ${w.start}–${w.end}`;
}

export function holidayText(h: Holiday): string {
  const days = h.day === h.toDay ? String(h.day) : `${h.day}–${h.toDay}`;
  return `${days} ${capitalized(h.month)}`;
}

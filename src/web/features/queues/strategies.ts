import type { QueueStrategy } from "../../../shared/inventory";

/** How a queue strategy reads on a card and in the form (FreePBX's form lists Asterisk's names, explained). */
export const STRATEGY_TEXT: Record<QueueStrategy, string> = {
  ringall: "Ring all",
  leastrecent: "Least recent",
  fewestcalls: "Fewest calls",
  random: "Random",
  rrmemory: "Round robin (memory)",
  rrordered: "Round robin (in order)",
  linear: "Linear",
  wrandom: "Weighted random",
};

/** A max wait as FreePBX's form shows it: "Unlimited", "45 seconds", "2 minutes 20 seconds". */
export function maxWaitText(seconds: number): string {
  if (seconds === 0) return "Unlimited";
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  const part = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (m === 0) return part(s, "second");
  return s === 0 ? part(m, "minute") : `${part(m, "minute")} ${part(s, "second")}`;
}

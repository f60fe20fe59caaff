import type { RingStrategy } from "../../../shared/inventory";

/** How a ring strategy reads on a card (FreePBX's own names, as its form lists them). */
export const STRATEGY_TEXT: Record<RingStrategy, string> = {
  ringall: "Ring all",
  "ringall-prim": "Ring all (primary first)",
  hunt: "Hunt",
  "hunt-prim": "Hunt (primary first)",
  memoryhunt: "Memory hunt",
  "memoryhunt-prim": "Memory hunt (primary first)",
  firstavailable: "First available",
  firstnotonphone: "First not on phone",
  random: "Random",
};

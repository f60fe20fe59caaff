/**
 * How FreePBX picks the inbound route of a call, after core's own dial plan (`from-pstn` includes `ext-did`
 * with `ext-did-0001` before `ext-did-0002`, then `from-did-direct`, then `ext-did-catchall`): a route for the
 * DID and the caller ID first, then the DID alone, then the caller ID alone; a DID that is an extension's
 * number then rings that extension (`from-did-direct`); only then the route for any DID and any caller ID. DIDs
 * and caller IDs may be Asterisk patterns (`_X.`); within a tier an exact number beats a pattern, as Asterisk
 * orders them.
 */
import type { InboundEntry } from "./model";

const CLASS: Record<string, string> = { X: "[0-9]", Z: "[1-9]", N: "[2-9]", ".": ".+", "!": ".*" };

/** An Asterisk extension pattern (`_NXX.`) as a regular expression; null for a plain number. */
function patternRe(pattern: string): RegExp | null {
  if (!pattern.startsWith("_")) return null;
  let re = "";
  const body = pattern.slice(1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    const upper = c.toUpperCase();
    if (CLASS[upper]) re += CLASS[upper];
    else if (c === "[") {
      const end = body.indexOf("]", i);
      if (end < 0) return /$^/;
      re += `[${body.slice(i + 1, end).replace(/[\\^\]]/g, "\\$&")}]`;
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** How well `pattern` matches `value`: 2 for the same number, 1 for a pattern that matches, 0 for none. */
export function matchQuality(pattern: string, value: string): 0 | 1 | 2 {
  const re = patternRe(pattern);
  if (!re) return pattern === value ? 2 : 0;
  return re.test(value) ? 1 : 0;
}

/**
 * The inbound route `ext-did` matches for `did` from `callerId` (`"specific"`: by DID and caller ID), or the
 * route for any DID (`"any"`, what the catch-all sends the rest to); null when there is none.
 */
export function matchInbound(
  routes: readonly InboundEntry[],
  did: string,
  callerId: string,
  which: "specific" | "any" = "specific",
): InboundEntry | null {
  const tiers: ((r: InboundEntry) => number)[] =
    which === "any"
      ? [(r) => (!r.did && !r.cid ? 2 : 0)]
      : [
          (r) => (r.did && r.cid ? Math.min(matchQuality(r.did, did), matchQuality(r.cid, callerId)) : 0),
          (r) => (r.did && !r.cid ? matchQuality(r.did, did) : 0),
          (r) => (!r.did && r.cid ? matchQuality(r.cid, callerId) : 0),
        ];
  for (const quality of tiers) {
    let best: InboundEntry | null = null;
    let bestQ = 0;
    for (const r of routes) {
      const q = quality(r);
      if (q > bestQ) {
        best = r;
        bestQ = q;
      }
    }
    if (best) return best;
  }
  return null;
}

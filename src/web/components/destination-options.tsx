import { useMemo } from "react";
import type { DestinationKind } from "../../shared/destinations";
import type { DestinationItem } from "../../shared/routing";

/**
 * The most options the datalist holds. Every option is a DOM node the browser lays out and scans on each
 * keystroke, and a controlled field renders them again on each one: 5,000 extensions cost a long task when
 * the kind is chosen and a late frame per keystroke, while nobody scrolls past the first screens of them.
 */
export const MAX_SUGGESTIONS = 200;

/**
 * The options offered for `typed`: every object of the kind while there are at most `max` of them (the
 * browser filters them as one types); past that, those whose number or label contains what is typed
 * (ignoring case, as the browser matches), numbers that start with it first, at most `max`, in the list's
 * order. `ofKind` is the list already narrowed to one kind.
 */
export function suggestedTargets(
  ofKind: readonly DestinationItem[],
  typed: string,
  max = MAX_SUGGESTIONS,
): readonly DestinationItem[] {
  if (ofKind.length <= max) return ofKind;
  const needle = typed.trim().toLowerCase();
  const starts: DestinationItem[] = [];
  const contains: DestinationItem[] = [];
  for (const item of ofKind) {
    if (item.target.startsWith(needle)) {
      starts.push(item);
      if (starts.length === max) break;
    } else if (contains.length < max && (item.target.includes(needle) || item.label.toLowerCase().includes(needle)))
      contains.push(item);
  }
  if (starts.length === max || contains.length === 0) return starts;
  const kept = new Set([...starts, ...contains.slice(0, max - starts.length)]);
  return ofKind.filter((item) => kept.has(item));
}

/**
 * The suggestions under a destination's number field: the console's objects of the chosen kind
 * (`GET /api/destinations`), as a datalist the input names with `list`. The browser filters it as one
 * types; a kind with thousands of objects (extensions) offers the matches of `typed` (see
 * `suggestedTargets`), so each is still one keystroke away. Any other number can still be typed
 * (FreePBX's IVRs, time conditions and announcements are its own ids).
 */
export function DestinationOptions({
  id,
  kind,
  items,
  typed = "",
}: {
  id: string;
  kind: DestinationKind;
  items: readonly DestinationItem[] | undefined;
  /** What the field holds. */
  typed?: string;
}) {
  const ofKind = useMemo(() => items?.filter((i) => i.kind === kind) ?? [], [items, kind]);
  const offered = useMemo(() => suggestedTargets(ofKind, typed), [ofKind, typed]);
  return (
    <datalist id={id}>
      {offered.map((i) => (
        <option key={i.target} value={i.target} label={i.label} />
      ))}
    </datalist>
  );
}

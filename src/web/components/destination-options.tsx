import type { DestinationKind } from "../../shared/destinations";
import type { DestinationItem } from "../../shared/routing";

/**
 * The suggestions under a destination's number field: the console's objects of the chosen kind
 * (`GET /api/destinations`), as a datalist the input names with `list`. The browser filters it as one
 * types, so thousands of extensions stay one keystroke away, and any other number can still be typed
 * (FreePBX's IVRs, time conditions and announcements are its own ids).
 */
export function DestinationOptions({
  id,
  kind,
  items,
}: {
  id: string;
  kind: DestinationKind;
  items: readonly DestinationItem[] | undefined;
}) {
  return (
    <datalist id={id}>
      {items
        ?.filter((i) => i.kind === kind)
        .map((i) => (
          <option key={i.target} value={i.target} label={i.label} />
        ))}
    </datalist>
  );
}

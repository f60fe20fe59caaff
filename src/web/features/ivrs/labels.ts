/**
 * How the IVR and announcement cards name what they point at: a destination as `GET /api/destinations`
 * labels it ("Extension 1001 · Alice"), a system recording by its name on the PBX. Both lists are only read
 * here, never required: a card still reads right with the bare number while they load or fail.
 */
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import { recordingsQuery } from "@/features/recordings/api";
import { destinationsQuery } from "@/features/routing/api";
import { type Destination, destinationLabel } from "../../../shared/destinations";

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A destination's label; null is FreePBX's empty destination, where the call is hung up. */
export function useDestinationText(): (d: Destination | null) => string {
  const items = useQuery(destinationsQuery()).data?.items;
  const labels = useMemo(() => new Map(items?.map((i) => [`${i.kind}:${i.target}`, i.label])), [items]);
  return useCallback(
    (d) => (d ? (labels.get(`${d.kind}:${d.target}`) ?? capitalized(destinationLabel(d))) : "Hang up"),
    [labels],
  );
}

/**
 * A recording's name ("None" for null). The recordings are read over SSH, so only when `id` names one:
 * without a PBX host the read fails and the card shows the number.
 */
export function useRecordingText(id: number | null): string {
  const recordings = useQuery({ ...recordingsQuery(), enabled: id !== null }).data;
  if (id === null) return "None";
  return recordings?.find((r) => r.id === id)?.name ?? `Recording ${id}`;
}

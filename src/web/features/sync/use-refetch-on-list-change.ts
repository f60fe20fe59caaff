import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";

/**
 * The comparison depends on the console's own list as well as the PBX. The sync socket
 * (lib/ws.ts) refetches the list on `extensions-updated` / `trunks-updated`; whenever the
 * list's data actually changes (an import in another console, a create or delete anywhere),
 * the comparison is fetched again too. The first data seen is only remembered.
 */
export function useRefetchOnListChange(listKey: readonly string[], compareKey: readonly string[]) {
  const client = useQueryClient();
  const list = useQuery<unknown[]>({ queryKey: listKey });
  const seen = useRef<unknown[] | undefined>(undefined);
  useEffect(() => {
    if (list.data === undefined) return;
    const before = seen.current;
    seen.current = list.data;
    // Structural sharing keeps the same array when nothing changed.
    if (before !== undefined && before !== list.data) {
      void client.invalidateQueries({ queryKey: compareKey, exact: true });
    }
  }, [list.data, client, compareKey]);
}

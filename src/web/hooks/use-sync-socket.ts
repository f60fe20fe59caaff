import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { ME_KEY, sessionEnded } from "../lib/session";
import { coalesceInvalidations, SyncSocket, syncSocketUrl } from "../lib/ws";

/** Keeps the sync socket open while the calling component (the signed-in shell) is mounted. */
export function useSyncSocket(): void {
  const client = useQueryClient();
  useEffect(() => {
    const socket = new SyncSocket({
      url: syncSocketUrl(window.location),
      invalidate: coalesceInvalidations((queryKey) => void client.invalidateQueries({ queryKey })),
      onSessionEnded: () => sessionEnded(client),
      // Anything read before the socket opened, or still being read, may have missed an event (a screen's
      // loader starts its queries beside the session check, ADR 0030): the first open refetches like a
      // reconnect does. Except /me: the shell exists because of its answer, and re-reading it after a 401
      // would bounce between the sign-in page and the console.
      onFirstOpen: (keys) => {
        for (const queryKey of keys) if (queryKey[0] !== ME_KEY[0]) void client.invalidateQueries({ queryKey });
      },
    });
    socket.start();
    return () => socket.close();
  }, [client]);
}

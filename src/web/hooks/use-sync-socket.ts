import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { sessionEnded } from "../lib/session";
import { coalesceInvalidations, SyncSocket, syncSocketUrl } from "../lib/ws";

/** Keeps the sync socket open while the calling component (the signed-in shell) is mounted. */
export function useSyncSocket(): void {
  const client = useQueryClient();
  useEffect(() => {
    const socket = new SyncSocket({
      url: syncSocketUrl(window.location),
      invalidate: coalesceInvalidations((queryKey) => void client.invalidateQueries({ queryKey })),
      onSessionEnded: () => sessionEnded(client),
    });
    socket.start();
    return () => socket.close();
  }, [client]);
}

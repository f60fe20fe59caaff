/** Extension list, create, delete and the web-dialer push (spec section 7, Extensions). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "@/components/ui/use-toast";
import { sendJson } from "@/lib/api";
import { keys, POLL_LIST_MS } from "@/lib/constants";
import { errorMessage } from "@/lib/error-text";
import type { Extension } from "../../../shared/inventory";

/** The cloud push service the web dialer reads extension configs from. */
export const DIALER_SERVICE = "Web Dialer";

export interface NewExtension {
  extension: string;
  name: string;
  email: string | null;
  voicemail: boolean;
  secret: string | null;
}

/** The list, polled every 5 s even while the tab is hidden (spec section 9). */
export function useExtensions() {
  return useQuery<Extension[]>({
    queryKey: keys.extensions,
    refetchInterval: POLL_LIST_MS,
    refetchIntervalInBackground: true,
    refetchOnMount: "always",
  });
}

/** POST /api/dialer/push-all; answers with how many configs went out. */
export async function pushAll(): Promise<number | null> {
  const res = await sendJson<{ count?: number; pushed?: number } | undefined>("POST", "/api/dialer/push-all");
  return res?.count ?? res?.pushed ?? null;
}

/** After a create or delete the dialer is refreshed quietly: a failure is only logged. */
function pushInBackground() {
  pushAll().catch((err: unknown) => console.log(`Background push to ${DIALER_SERVICE} failed:`, errorMessage(err)));
}

export function usePushAll() {
  return useMutation({
    mutationFn: pushAll,
    onSuccess: (count) =>
      toast({
        title: `Synced to ${DIALER_SERVICE}`,
        description: `${count ?? "All"} extension configs pushed to the cloud for web dialer`,
      }),
    onError: (err) =>
      toast({
        variant: "destructive",
        title: `Failed to sync extensions to ${DIALER_SERVICE}`,
        description: errorMessage(err),
      }),
  });
}

export function useCreateExtension() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: NewExtension) => sendJson<Extension>("POST", "/api/extensions", input),
    onSuccess: async () => {
      toast({ title: "Extension created" });
      pushInBackground();
      await client.invalidateQueries({ queryKey: keys.extensions, exact: true });
    },
  });
}

export function useDeleteExtension() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ext: Extension) => sendJson<void>("DELETE", `/api/extensions/${ext.id}`),
    onSuccess: async () => {
      toast({ title: "Extension deleted" });
      pushInBackground();
      await client.invalidateQueries({ queryKey: keys.extensions, exact: true });
    },
    // A 409 says why (a PTT group or inbound route still uses it): show that, not just "failed".
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to delete extension.", description: errorMessage(err) }),
  });
}

/** The VPS: its status and metrics (polled) and the power controls. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { POLL_VPS_MS } from "@/lib/constants";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { VpsStatus } from "../../../shared/vps";

export type VpsAction = "start" | "restart" | "stop";

/** Polled every 10 s. */
export const vpsStatusQuery = () =>
  queryOptions<VpsStatus>({ queryKey: queryKeys.vpsStatus, refetchInterval: POLL_VPS_MS });

/** Start, restart or stop; the status is read again afterwards, whatever the answer. */
export function useVpsControl(ui: MutationUi<{ success: boolean; message: string }, VpsAction>) {
  return useApiMutation({
    mutationFn: (action: VpsAction) =>
      sendJson<{ success: boolean; message: string }>("POST", "/api/vps/control", { action }),
    invalidates: [queryKeys.vpsStatus],
    refetchAfterFailure: true,
    ...ui,
  });
}

/**
 * fail2ban from the attack view (ADR 0067): the jails' state, ban and unban, the trusted networks. Never
 * polled: the sync socket's `firewall-updated` makes the state stale (lib/query-keys.ts).
 */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type {
  FirewallActionResult,
  FirewallBanRequest,
  FirewallState,
  TrustedNetworkRequest,
  TrustResult,
} from "../../../shared/firewall";

/** GET /api/firewall (each read asks fail2ban: kept fresh for a while rather than refetched on every focus). */
export const firewallQuery = () =>
  queryOptions<FirewallState>({ queryKey: queryKeys.firewall, staleTime: 30_000, refetchOnWindowFocus: false });

export function useBan(ui: MutationUi<FirewallActionResult, FirewallBanRequest>) {
  return useApiMutation({
    mutationFn: (body: FirewallBanRequest) => sendJson<FirewallActionResult>("POST", "/api/firewall/ban", body),
    invalidates: [queryKeys.firewall],
    ...ui,
  });
}

export function useUnban(ui: MutationUi<FirewallActionResult, FirewallBanRequest>) {
  return useApiMutation({
    mutationFn: (body: FirewallBanRequest) => sendJson<FirewallActionResult>("POST", "/api/firewall/unban", body),
    invalidates: [queryKeys.firewall],
    ...ui,
  });
}

export function useTrust(ui: MutationUi<TrustResult, TrustedNetworkRequest>) {
  return useApiMutation({
    mutationFn: (body: TrustedNetworkRequest) => sendJson<TrustResult>("POST", "/api/firewall/trusted", body),
    invalidates: [queryKeys.firewall],
    ...ui,
  });
}

export function useUntrust(ui: MutationUi<TrustResult, string>) {
  return useApiMutation({
    mutationFn: (network: string) =>
      sendJson<TrustResult>("DELETE", `/api/firewall/trusted?network=${encodeURIComponent(network)}`),
    invalidates: [queryKeys.firewall],
    ...ui,
  });
}

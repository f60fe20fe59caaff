/**
 * Ban and Unban for each attacking address of the PBX Security table (ADR 0067). The table owns one set of
 * mutations and the one firewall query (`useAddressActions`); each row gets a plain `AddressAction` (ADR 0045:
 * a row mounts no query or mutation of its own).
 */
import { useQuery } from "@tanstack/react-query";
import { Ban, LoaderCircle, ShieldCheck, Undo2 } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { afterConfirm } from "@/lib/mutations";
import type { FirewallState } from "../../../shared/firewall";
import { networkContains, parseIp, parseNetwork } from "../../../shared/ip";
import { firewallQuery, useBan, useUnban } from "./api";

/** What the console may do with one address now. */
export type AddressStatus =
  | { kind: "unknown" }
  | { kind: "banned"; jails: string[] }
  | { kind: "protected"; why: string }
  | { kind: "bannable" };

/** The address's status in the firewall state (banned in a jail, or why it may not be banned). */
export function addressStatus(state: FirewallState | undefined, address: string): AddressStatus {
  if (!state?.available) return { kind: "unknown" };
  const ip = parseIp(address);
  if (!ip) return { kind: "unknown" };
  const jails = state.jails.filter((j) => j.banned.some((b) => b.address === ip.text)).map((j) => j.name);
  if (jails.length) return { kind: "banned", jails };
  if (state.yourAddress && parseIp(state.yourAddress)?.text === ip.text) {
    return { kind: "protected", why: "Your own address" };
  }
  const inside = (entry: string) => {
    const net = parseNetwork(entry);
    return net !== null && networkContains(net, ip);
  };
  const trusted = state.trusted.find((t) => inside(t.network));
  if (trusted) return { kind: "protected", why: `Trusted (${trusted.network})` };
  const ignored = state.jails.flatMap((j) => j.ignoreIp).find(inside);
  if (ignored) return { kind: "protected", why: `Ignored by fail2ban (${ignored})` };
  if (!state.defaultJail) return { kind: "unknown" };
  return { kind: "bannable" };
}

export function useAddressActions() {
  const isAdmin = useCan("admin");
  const state = useQuery(firewallQuery());
  const failed = (title: string) => (err: Error) =>
    toast({ variant: "destructive", title, description: errorText(err) });
  const ban = useBan({
    onSuccess: (r) => toast({ title: `Banned ${r.id}`, description: `In the ${r.jail} jail` }),
    onError: failed("Ban refused"),
  });
  const unban = useUnban({
    onSuccess: (r) => toast({ title: `Unbanned ${r.id}` }),
    onError: failed("Unban failed"),
  });
  const pendingFor = (address: string) =>
    (ban.isPending && ban.variables?.address === address) || (unban.isPending && unban.variables?.address === address);
  return {
    isAdmin,
    statusOf: (address: string) => addressStatus(state.data, address),
    pendingFor,
    ban: (address: string) =>
      afterConfirm(
        `Ban ${address} in fail2ban (${state.data?.defaultJail ?? "its jail"})? It can no longer reach this server.`,
        () => ban.mutate({ address }),
      ),
    unban: (address: string) => unban.mutate({ address }),
  };
}

export type AddressActions = ReturnType<typeof useAddressActions>;

/** One row's control: Ban, or Banned with Unban; a protected address says why; viewers see only the state. */
export function AddressAction({ address, actions }: { address: string; actions: AddressActions }) {
  const status = actions.statusOf(address);
  const pending = actions.pendingFor(address);
  if (status.kind === "unknown") return <span className="text-muted-foreground">—</span>;
  if (status.kind === "protected") {
    return (
      <Badge variant="outline" title={status.why}>
        <ShieldCheck aria-hidden />
        {status.why}
      </Badge>
    );
  }
  if (status.kind === "banned") {
    return (
      <span className="flex flex-wrap items-center gap-2">
        <Badge variant="destructive" title={`Banned in ${status.jails.join(", ")}`}>
          <Ban aria-hidden />
          Banned
        </Badge>
        {actions.isAdmin && (
          <Button
            type="button"
            variant="outline"
            size="sm"
            disabled={pending}
            aria-label={`Unban ${address}`}
            onClick={() => actions.unban(address)}
          >
            {pending ? <LoaderCircle className="animate-spin" /> : <Undo2 aria-hidden />}
            Unban
          </Button>
        )}
      </span>
    );
  }
  if (!actions.isAdmin) return <span className="text-muted-foreground">Not banned</span>;
  return (
    <Button
      type="button"
      variant="outline"
      size="sm"
      className="text-destructive hover:text-destructive"
      disabled={pending}
      aria-label={`Ban ${address}`}
      onClick={() => actions.ban(address)}
    >
      {pending ? <LoaderCircle className="animate-spin" /> : <Ban aria-hidden />}
      Ban
    </Button>
  );
}

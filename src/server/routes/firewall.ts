import {
  type FirewallBanRequest,
  firewallBanSchema,
  type TrustedNetworkRequest,
  trustedNetworkSchema,
  untrustQuerySchema,
} from "../../shared/firewall";
import { type RouteDef, route, signedInUser } from "../context";
import {
  banAddress,
  firewallState,
  trustedEntry,
  trustNetwork,
  unbanAddress,
  untrustNetwork,
} from "../firewall/firewall";
import { json } from "../http";

/** The address an audited ban or unban names (the request's, as parsed). */
const addressOf = (_app: unknown, _params: Record<string, string>, body: unknown) => {
  const address = (body as { address?: unknown } | undefined)?.address;
  return typeof address === "string" ? { id: address } : null;
};
const jailDetail = (verb: string) => (answer: unknown) => {
  const a = answer as { jail?: string; changed?: boolean };
  return `${verb} in ${a.jail ?? "?"}${a.changed === false ? " (no change)" : ""}`;
};

/** fail2ban from the attack view (ADR 0067): the jails' state for everyone; bans and trust for administrators. */
export const firewallRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/firewall",
    summary:
      "fail2ban's state for the console's jails (FAIL2BAN_JAILS): banned addresses with their times, each jail's ignoreip, the console's trusted networks and the caller's own address (available: false with the reason when fail2ban cannot be asked)",
    handler: async ({ app, clientIp }) => json(await firewallState(app, clientIp)),
  }),
  route<FirewallBanRequest>({
    method: "POST",
    path: "/api/firewall/ban",
    summary:
      "Ban an address in a jail (default: the first configured jail fail2ban runs). 409 for the caller's own address, loopback, this server's addresses and any address in a trusted network (the console's or the jail's ignoreip); 503 when fail2ban cannot be asked",
    minRole: "admin",
    body: firewallBanSchema,
    publishes: ["firewall-updated"],
    audit: { action: "firewall.ban", object: "address", load: addressOf, detail: jailDetail("Banned") },
    handler: async ({ app, body, clientIp }) => json(await banAddress(app, body, clientIp)),
  }),
  route<FirewallBanRequest>({
    method: "POST",
    path: "/api/firewall/unban",
    summary: "Unban an address in a jail, or in every configured jail when none is named",
    minRole: "admin",
    body: firewallBanSchema,
    publishes: ["firewall-updated"],
    audit: { action: "firewall.unban", object: "address", load: addressOf, detail: jailDetail("Unbanned") },
    handler: async ({ app, body }) => json(await unbanAddress(app, body)),
  }),
  route<TrustedNetworkRequest>({
    method: "POST",
    path: "/api/firewall/trusted",
    summary:
      "Trust a network (address/prefix, at most a /8 or IPv6 /32) or one address: never banned by the console, and added to each jail's ignoreip",
    minRole: "admin",
    body: trustedNetworkSchema,
    publishes: ["firewall-updated"],
    audit: {
      action: "firewall.trust",
      object: "network",
      load: (app, _params, body) => trustedEntry(app, (body as { network?: unknown } | undefined)?.network),
    },
    handler: async ({ app, body, user }) => json(await trustNetwork(app, body, signedInUser(user))),
  }),
  route<undefined, { network: string }>({
    method: "DELETE",
    path: "/api/firewall/trusted",
    summary:
      "Stop trusting a network of the console's list (?network=address/prefix) and remove it from each jail's ignoreip",
    minRole: "admin",
    query: untrustQuerySchema,
    publishes: ["firewall-updated"],
    audit: {
      action: "firewall.untrust",
      object: "network",
      detail: (answer) => `Removed ${(answer as { id?: string }).id ?? "?"}`,
    },
    handler: async ({ app, query }) => json(await untrustNetwork(app, query.network)),
  }),
];

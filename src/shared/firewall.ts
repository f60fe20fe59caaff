/**
 * Firewall actions through fail2ban (ADR 0067): ban and unban an address in a jail, the console's trusted
 * networks (copied into each jail's `ignoreip`), and the jails' real state. The addresses and networks are
 * parsed by ./ip.ts, so the web form and the server refuse the same input; the server checks again with
 * `node:net` right before anything reaches fail2ban-client's argv.
 */
import { z } from "zod";
import { parseIp, parseNetwork } from "./ip";
import { lazySchema } from "./lazy-schema";

// ---------------------------------------------------------------------------------------------------
// Addresses and networks (parsed in ./ip.ts)
// ---------------------------------------------------------------------------------------------------

/**
 * The widest network the console trusts: trusting more would turn a jail off for a large part of the
 * Internet (an IPv4 /8 is 16 million addresses; an IPv6 /32 is what a registry gives a provider).
 */
export const WIDEST_TRUSTED_PREFIX = { 4: 8, 6: 32 } as const;

/** A fail2ban jail's name as the console accepts it: what jail.conf section names are in practice. */
export const JAIL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

// ---------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------

export const NOT_AN_ADDRESS = "Enter an IPv4 or IPv6 address (e.g. 203.0.113.7)";
export const NOT_A_NETWORK = "Enter an address or network in address/prefix form (e.g. 198.51.100.0/24)";
export const BAD_JAIL = "A jail name is letters, digits, '.', '_' and '-' (at most 64)";

const address = () =>
  z
    .string({ error: "Address is required" })
    .trim()
    .min(1, "Address is required")
    .max(45, NOT_AN_ADDRESS)
    .transform((v, ctx) => {
      const ip = parseIp(v);
      if (!ip) {
        ctx.addIssue({ code: "custom", message: NOT_AN_ADDRESS });
        return z.NEVER;
      }
      return ip.text;
    });

const jail = () => z.string().trim().regex(JAIL_NAME, BAD_JAIL).optional();

/** POST /api/firewall/ban and /unban: an address, and the jail (default: the first configured jail running). */
export const firewallBanSchema = lazySchema(() => z.object({ address: address(), jail: jail() }));
export type FirewallBanRequest = z.input<typeof firewallBanSchema>;

const network = () =>
  z
    .string({ error: "Network is required" })
    .trim()
    .min(1, "Network is required")
    .max(49, NOT_A_NETWORK)
    .transform((v, ctx) => {
      const net = parseNetwork(v);
      if (!net) {
        ctx.addIssue({ code: "custom", message: NOT_A_NETWORK });
        return z.NEVER;
      }
      if (net.prefix < WIDEST_TRUSTED_PREFIX[net.version]) {
        ctx.addIssue({
          code: "custom",
          message: `A trusted network is at most a /${WIDEST_TRUSTED_PREFIX[net.version]} (IPv${net.version})`,
        });
        return z.NEVER;
      }
      return net.text;
    });

/** POST /api/firewall/trusted: a network (or one address) to trust, with a note. */
export const trustedNetworkSchema = lazySchema(() =>
  z.object({
    network: network(),
    note: z.string().trim().max(100, "The note is at most 100 characters").optional().default(""),
  }),
);
export type TrustedNetworkRequest = z.input<typeof trustedNetworkSchema>;

/** DELETE /api/firewall/trusted?network=…: the network as listed. */
export const untrustQuerySchema = lazySchema(() => z.object({ network: network() }));

// ---------------------------------------------------------------------------------------------------
// Wire types
// ---------------------------------------------------------------------------------------------------

export interface BannedAddress {
  address: string;
  /** ISO time of the ban, null when fail2ban did not say. */
  bannedAt: string | null;
  /** ISO time the ban ends; null: permanent (or not said). */
  expiresAt: string | null;
}

export interface JailState {
  name: string;
  /** The jail exists in the running fail2ban. */
  present: boolean;
  banned: BannedAddress[];
  /** fail2ban's `ignoreip` for this jail (its own entries and the console's trusted networks). */
  ignoreIp: string[];
  /** Why this jail could not be read (e.g. not configured in fail2ban), null when read. */
  error: string | null;
}

export interface TrustedNetwork {
  network: string;
  note: string;
  addedAt: string;
  addedBy: string;
}

/** GET /api/firewall */
export interface FirewallState {
  /** fail2ban answered. */
  available: boolean;
  /** Why not (not installed, not running, permission denied…), null when available. */
  reason: string | null;
  /** The configured jails (FAIL2BAN_JAILS), in order. */
  jails: JailState[];
  /** Where a ban goes when no jail is named: the first configured jail present in fail2ban. */
  defaultJail: string | null;
  /** The console's trusted networks. */
  trusted: TrustedNetwork[];
  /** The address the caller is using, as the console sees it (never banned). */
  yourAddress: string | null;
}

/** The answer of a ban or unban. */
export interface FirewallActionResult {
  /** The address (the audit's object id). */
  id: string;
  jail: string;
  /** Whether fail2ban changed anything (false: it was banned already / was not banned). */
  changed: boolean;
}

/** The answer of a trust or untrust. */
export interface TrustResult {
  id: string;
  trusted: TrustedNetwork[];
  /** Jails whose `ignoreip` could not be changed now (fail2ban not running…); applied when it answers again. */
  notApplied: string[];
}

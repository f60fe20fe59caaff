/**
 * The client's address behind a reverse proxy (TRUSTED_PROXIES, ADR 0069). Only a request whose TCP peer is a
 * trusted proxy has its forwarding header read, and that header is read from the right: each trusted hop is
 * skipped, and the first address that is not a trusted proxy is the client. Everything left of it was written
 * by the client (or by proxies nobody vouches for) and is never believed. From any other peer the headers are
 * ignored: the peer is the client.
 *
 * `X-Forwarded-For` is read when present (what nginx, Caddy, HAProxy and Traefik append by default), else
 * `Forwarded` (RFC 7239). A proxy that writes only `Forwarded` must drop a client's `X-Forwarded-For`.
 */
import { type IpNetwork, networkContains, parseIp, parseNetwork } from "../../shared/ip";

export interface TrustedProxies {
  /** Whether no proxy is trusted (the headers are never read). */
  readonly none: boolean;
  has(address: string): boolean;
}

/** TRUSTED_PROXIES' entries (each checked by the configuration) as a matcher. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const networks: IpNetwork[] = entries.map((entry) => {
    const network = parseNetwork(entry);
    if (!network) throw new Error(`not an address or network: ${entry}`);
    return network;
  });
  return {
    none: networks.length === 0,
    has(address) {
      const ip = parseIp(address);
      return ip !== null && networks.some((network) => networkContains(network, ip));
    },
  };
}

/** An address as the rest of the console writes it (`::ffff:192.0.2.1` is `192.0.2.1`), or null. */
const canonical = (text: string) => parseIp(text)?.text ?? null;

/** A forwarded node as an address: `[2001:db8::1]:4711`, `"192.0.2.1:80"`, `192.0.2.1`; null when not one. */
function nodeAddress(raw: string): string | null {
  let node = raw.trim();
  if (node.startsWith('"') && node.endsWith('"') && node.length >= 2) node = node.slice(1, -1);
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(node);
  if (bracketed) node = bracketed[1] ?? "";
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(node)) node = node.slice(0, node.lastIndexOf(":"));
  return canonical(node);
}

/** The `for=` nodes of a `Forwarded` header, in order (commas inside quotes kept). */
function forwardedFor(header: string): (string | null)[] {
  const elements = header.match(/(?:[^,"]|"[^"]*")+/g) ?? [];
  return elements.map((element) => {
    for (const pair of element.split(";")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === "for") return nodeAddress(pair.slice(eq + 1));
    }
    return null;
  });
}

/** The addresses a forwarding header lists, client first; null for an entry that is not an address. */
function forwardedChain(headers: Headers): (string | null)[] {
  const xff = headers.get("x-forwarded-for");
  if (xff !== null) return xff.split(",").map(nodeAddress);
  const forwarded = headers.get("forwarded");
  return forwarded === null ? [] : forwardedFor(forwarded);
}

/**
 * The client's address: `peer` unless it is a trusted proxy, else the rightmost address of the forwarding
 * header that is not a trusted proxy. An entry that is not an address stops the walk at the last hop believed.
 */
export function clientAddress(peer: string | null, headers: Headers, trusted: TrustedProxies): string | null {
  if (peer === null) return null;
  const plainPeer = canonical(peer) ?? peer;
  if (trusted.none || !trusted.has(plainPeer)) return plainPeer;
  const chain = forwardedChain(headers);
  let believed = plainPeer;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i];
    if (hop == null) return believed;
    if (!trusted.has(hop)) return hop;
    believed = hop;
  }
  return believed;
}

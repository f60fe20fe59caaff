/**
 * IP addresses and networks, parsed without any library so the web forms and the server refuse the same input
 * (the firewall actions, ADR 0067) and the transport can match trusted proxies on every request without loading
 * `node:net` at start (ADR 0069).
 */

/** An IP address as 4 (IPv4) or 16 (IPv6) bytes, with its canonical text. */
export interface IpAddress {
  version: 4 | 6;
  bytes: number[];
  text: string;
}

/** A network: its first address (host bits cleared), the prefix length and the canonical `address/prefix`. */
export interface IpNetwork {
  version: 4 | 6;
  bytes: number[];
  prefix: number;
  text: string;
}

const V4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;

function parseV4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => V4_PART.test(p))) return null;
  return parts.map(Number);
}

function parseV6(text: string): number[] | null {
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || text.length > 45) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as string;
      // An IPv4 tail (::ffff:192.0.2.1) stands for the last two groups.
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = parseV4(item);
        if (!v4) return null;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(item)) return null;
        out.push(Number.parseInt(item, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (!head || !tail) return null;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else groups = head;
  if (groups.length !== 8) return null;
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** RFC 5952 text: lower case, the longest run of two or more zero groups as `::`. */
function v6Text(bytes: number[]): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(":");
  return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

/**
 * An IPv4 or IPv6 address, or null: no zone (`%eth0`), no brackets, no leading zeros in IPv4 parts (read
 * as octal by some tools). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is that IPv4 address.
 */
export function parseIp(input: string): IpAddress | null {
  const text = input.trim();
  const v4 = parseV4(text);
  if (v4) return { version: 4, bytes: v4, text: v4.join(".") };
  const v6 = parseV6(text);
  if (!v6) return null;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  if (mapped) {
    const bytes = v6.slice(12);
    return { version: 4, bytes, text: bytes.join(".") };
  }
  return { version: 6, bytes: v6, text: v6Text(v6) };
}

/** `address/prefix` (or a bare address: one host) with the host bits cleared, or null. */
export function parseNetwork(input: string): IpNetwork | null {
  const text = input.trim();
  const slash = text.indexOf("/");
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!ip) return null;
  const max = ip.version === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) return null;
    prefix = Number(p);
  }
  const bytes = ip.bytes.map((b, i) => {
    const bits = Math.max(0, Math.min(8, prefix - 8 * i));
    return b & ((0xff << (8 - bits)) & 0xff);
  });
  const base = ip.version === 4 ? bytes.join(".") : v6Text(bytes);
  return { version: ip.version, bytes, prefix, text: prefix === max ? base : `${base}/${prefix}` };
}

/** Whether `address` is inside `network` (same family). */
export function networkContains(network: IpNetwork, address: IpAddress): boolean {
  if (network.version !== address.version) return false;
  for (let i = 0; i < network.bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, network.prefix - 8 * i));
    if (bits === 0) return true;
    const mask = (0xff << (8 - bits)) & 0xff;
    if (((address.bytes[i] as number) & mask) !== (network.bytes[i] as number)) return false;
  }
  return true;
}

/** Loopback: 127.0.0.0/8 and ::1. */
export function isLoopback(address: IpAddress): boolean {
  return address.version === 4 ? address.bytes[0] === 127 : address.text === "::1";
}

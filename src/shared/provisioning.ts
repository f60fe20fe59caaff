/**
 * Softphone provisioning (ADR 0039): the one-time link's wire types, and the reachability rule for the SIP
 * host a phone would dial and the console origin it would fetch its account from. Pure: the server puts
 * the warnings in its answers and the settings form shows the same words while the host is typed.
 */

/** POST /api/extensions/:id/provisioning-link: a fresh one-time link (any earlier one of the extension stops working). */
export interface ProvisioningLink {
  /** https://<console>/api/provisioning/<token>.xml: the account file in Linphone's remote provisioning format. */
  link: string;
  /** The link as a QR code (PNG data URL). */
  qrCode: string;
  /** ISO time after which the link answers 404. */
  expiresAt: string;
  /** Why a phone elsewhere might not be able to use it (origin not https or local, SIP host private…). */
  warnings: string[];
}

/** How long a provisioning link works (and answers at most once). */
export const PROVISIONING_LINK_MINUTES = 15;

/** The apps that read the account file, and where in each the link or its QR code goes. */
export const PROVISIONING_APPS = [
  {
    name: "Linphone",
    where: "Settings → Assistant → Fetch remote configuration (or scan the QR code there)",
  },
] as const;

export type HostKind = "unset" | "loopback" | "private" | "local-name" | "public";

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4Kind(a: number, b: number): HostKind {
  if (a === 0) return "unset";
  if (a === 127) return "loopback";
  if (a === 10) return "private";
  if (a === 172 && b >= 16 && b <= 31) return "private";
  if (a === 192 && b === 168) return "private";
  // Carrier-grade NAT (RFC 6598) and link-local (RFC 3927).
  if (a === 100 && b >= 64 && b <= 127) return "private";
  if (a === 169 && b === 254) return "private";
  return "public";
}

/**
 * What kind of address `host` is for a phone somewhere else: unset (empty, 0.0.0.0, ::), loopback
 * (127/8, ::1, localhost), private (RFC 1918, CGNAT 100.64/10, link-local 169.254/16 and fe80::/10, ULA
 * fc00::/7), a local-network name (no dot, .local, .lan, .internal, .home.arpa), or public.
 */
export function hostKind(raw: string): HostKind {
  const host = raw
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (host === "") return "unset";
  const v4 = V4.exec(host);
  if (v4) return ipv4Kind(Number(v4[1]), Number(v4[2]));
  if (host.includes(":")) {
    if (/^[0:]+$/.test(host)) return "unset";
    if (/^(0{0,4}:){2,7}0*1$/.test(host) || host === "::1") return "loopback";
    const mapped = /^::ffff:(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
    if (mapped) return ipv4Kind(Number(mapped[1]), Number(mapped[2]));
    const first = Number.parseInt(host.split(":")[0] || "0", 16);
    if ((first & 0xfe00) === 0xfc00) return "private";
    if ((first & 0xffc0) === 0xfe80) return "private";
    return "public";
  }
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (!host.includes(".") || /\.(local|lan|internal|home\.arpa)$/.test(host)) return "local-name";
  return "public";
}

/** The warning for the SIP host a phone would dial, or null when it is a public name or address. */
export function sipHostWarning(host: string): string | null {
  switch (hostKind(host)) {
    case "unset":
      return "No SIP host is set: a phone would not know where to register. Set the public SIP host in API Settings.";
    case "loopback":
      return `${host} is this machine's loopback address: no phone can reach it. Set the public SIP host in API Settings.`;
    case "private":
      return `${host} is a private address: only phones on the same network (or VPN) can register. Set the public SIP host in API Settings for phones elsewhere.`;
    case "local-name":
      return `${host} is a local network name: phones elsewhere cannot resolve it. Set the public SIP host in API Settings.`;
    case "public":
      return null;
  }
}

/** The warnings for the console origin a phone would fetch its account file from (e.g. https://pbx.example.com). */
export function originWarnings(origin: string): string[] {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return ["The console's address is not known: the link may not open on a phone."];
  }
  const warnings: string[] = [];
  if (url.protocol !== "https:") {
    warnings.push(
      `The link is plain http (${url.host}): the account file with the SIP password would cross the network unencrypted. Serve the console over HTTPS (TLS_CERT/TLS_KEY or a reverse proxy).`,
    );
  }
  const kind = hostKind(url.hostname);
  if (kind === "loopback" || kind === "unset") {
    warnings.push(
      `The link points at ${url.hostname}, this machine itself: no phone can open it. Open the console by its public name to issue links.`,
    );
  } else if (kind !== "public") {
    warnings.push(
      `The link points at ${url.hostname}: only phones on the same network can open it. Open the console by its public name for phones elsewhere.`,
    );
  }
  return warnings;
}

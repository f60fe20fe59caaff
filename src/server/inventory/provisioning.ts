/**
 * Softphone provisioning (ADR 0039).
 *
 * - The plain SIP details of an extension (server, port, transport, username, password, PTT groups) for
 *   manual entry, with a warning when the host a phone would dial is loopback, private or unset.
 * - A one-time link: `https://<console>/api/provisioning/<token>.xml`, valid 15 minutes, answering once,
 *   only the SHA-256 of the token stored, at most one per extension (issuing a new one revokes the last).
 *   It serves the account in Linphone's XML remote provisioning format; the QR code carries the link.
 * - The public read of that link: the token is its only credential; anything but a live token is a bare
 *   `NotFound`, and an address asking too often is `RateLimited`.
 */

import { and, eq, gt, isNull } from "drizzle-orm";
import { provisioningTokens } from "../../db/schema";
import type { ProvisioningConfig, ProvisioningResponse } from "../../shared/inventory";
import { originWarnings, PROVISIONING_LINK_MINUTES, type ProvisioningLink } from "../../shared/provisioning";
import { byNumber } from "../../shared/sort";
import { sipSettings } from "../accounts/settings";
import type { Deps } from "../core/deps";
import { NotFound, RateLimited } from "../core/errors";
import { qrDataUrl } from "../qr";
import { type ExtensionRow, findExtension } from "./extensions";
import { groupsWithMember } from "./ptt-groups";

type ProvisioningDeps = Pick<Deps, "db" | "config" | "box">;

/** The path of a link, under the API (the route is `auth: "public"`: the token is the credential). */
export const PROVISIONING_PATH = "/api/provisioning/";
const TOKEN_BYTES = 32;
const FILE_RE = /^([A-Za-z0-9_-]{43})\.xml$/;

const sha256 = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

/** The SIP details of one extension, as a person would type them into any softphone. */
function sipDetails(deps: ProvisioningDeps, row: ExtensionRow): { config: ProvisioningConfig; warning: string | null } {
  const sip = sipSettings(deps.db, deps.config);
  const groups = groupsWithMember(deps.db, row.extension).sort((a, b) => byNumber(a.extension, b.extension));
  return {
    config: {
      sip_server: sip.effective.host,
      sip_port: sip.effective.port,
      transport: sip.effective.transport.toUpperCase(),
      username: row.extension,
      password: deps.box.open(row.secret) ?? "",
      display_name: row.name,
      ptt_enabled: true,
      ptt_groups: groups.map((g) => ({
        id: g.id,
        name: g.name,
        number: g.extension,
        mode: g.duplex ? "duplex" : "simplex",
      })),
    },
    warning: sip.warning,
  };
}

/** An extension's SIP details for manual entry, and why a phone elsewhere might not reach them (`NotFound` for an unknown id). */
export function extensionProvisioning(deps: ProvisioningDeps, id: number): ProvisioningResponse {
  const { config, warning } = sipDetails(deps, findExtension(deps.db, id));
  return { config, warnings: warning ? [warning] : [] };
}

/**
 * Issues the extension's one-time provisioning link under `origin` (the console's address as the operator
 * reached it), replacing any earlier link of the extension. `NotFound` for an unknown id.
 */
export async function issueProvisioningLink(
  deps: ProvisioningDeps & Pick<Deps, "events" | "now">,
  id: number,
  origin: string,
): Promise<ProvisioningLink> {
  const row = findExtension(deps.db, id);
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES))).toString("base64url");
  const now = deps.now();
  const expiresAt = new Date(now + PROVISIONING_LINK_MINUTES * 60_000);
  deps.db.transaction((tx) => {
    tx.delete(provisioningTokens).where(eq(provisioningTokens.extensionId, row.id)).run();
    tx.insert(provisioningTokens)
      .values({ tokenHash: sha256(token), extensionId: row.id, createdAt: new Date(now), expiresAt })
      .run();
  });
  deps.events.publish({ type: "provisioning-updated", data: { extensionId: row.id, used: false } });
  const link = `${origin}${PROVISIONING_PATH}${token}.xml`;
  const sipWarning = sipSettings(deps.db, deps.config).warning;
  return {
    link,
    qrCode: await qrDataUrl(link),
    expiresAt: expiresAt.toISOString(),
    warnings: [...originWarnings(origin), ...(sipWarning ? [sipWarning] : [])],
  };
}

/** Requests per address per minute the public read answers before 429 (a phone needs one). */
export const PROVISIONING_RATE_LIMIT = 20;
const WINDOW_MS = 60_000;
const MAX_TRACKED = 10_000;

/** A fixed one-minute window per client address, bounded; one per database so test servers do not share it. */
class AddressLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  /** Seconds to wait, or 0 when this request may go on. */
  hit(address: string, now: number): number {
    let w = this.windows.get(address);
    if (!w || now - w.start >= WINDOW_MS || now < w.start) {
      if (!w && this.windows.size >= MAX_TRACKED) this.prune(now);
      w = { start: now, count: 0 };
      this.windows.set(address, w);
    }
    w.count++;
    return w.count > PROVISIONING_RATE_LIMIT ? Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000)) : 0;
  }

  private prune(now: number) {
    for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
    // Still full (an address-spraying flood): forget the oldest half rather than grow.
    if (this.windows.size >= MAX_TRACKED) {
      let n = 0;
      for (const key of this.windows.keys()) {
        if (n++ >= MAX_TRACKED / 2) break;
        this.windows.delete(key);
      }
    }
  }
}
const limiters = new WeakMap<object, AddressLimiter>();

/** The one answer to anything but a live token: no hint of which part was wrong. */
const notFound = () => new NotFound("Provisioning link", "Not found");

/**
 * The public read of a link (`GET /api/provisioning/<token>.xml`): the account file, once, before the link
 * expires; the token is used up by this call whatever happens next. `NotFound` for a malformed, unknown,
 * expired or used token; `RateLimited` past `PROVISIONING_RATE_LIMIT` calls a minute from one address.
 */
export function readProvisioningFile(
  deps: ProvisioningDeps & Pick<Deps, "events" | "now">,
  file: string,
  clientIp: string | null,
  /** HEAD: says whether the link is live without using it up (and without the file). */
  peek = false,
): string {
  const now = deps.now();
  let limiter = limiters.get(deps.db);
  if (!limiter) {
    limiter = new AddressLimiter();
    limiters.set(deps.db, limiter);
  }
  const wait = limiter.hit(clientIp ?? "-", now);
  if (wait > 0) throw new RateLimited(`Too many requests; try again in ${wait} s`, wait);
  const token = FILE_RE.exec(file)?.[1];
  if (!token) throw notFound();
  if (peek) {
    const live = deps.db
      .select({ extensionId: provisioningTokens.extensionId })
      .from(provisioningTokens)
      .where(
        and(
          eq(provisioningTokens.tokenHash, sha256(token)),
          isNull(provisioningTokens.usedAt),
          gt(provisioningTokens.expiresAt, new Date(now)),
        ),
      )
      .get();
    if (!live) throw notFound();
    return "";
  }
  // Used up atomically: two phones racing for one link, only one gets the file.
  const used = deps.db
    .update(provisioningTokens)
    .set({ usedAt: new Date(now) })
    .where(
      and(
        eq(provisioningTokens.tokenHash, sha256(token)),
        isNull(provisioningTokens.usedAt),
        gt(provisioningTokens.expiresAt, new Date(now)),
      ),
    )
    .returning({ extensionId: provisioningTokens.extensionId })
    .get();
  if (!used) throw notFound();
  deps.events.publish({ type: "provisioning-updated", data: { extensionId: used.extensionId, used: true } });
  const { config } = sipDetails(deps, findExtension(deps.db, used.extensionId));
  return linphoneXml(config);
}

/** Text for XML element content and attribute values. */
export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** A SIP quoted-string (RFC 3261 §25.1): `"` and `\` escaped with a backslash, control characters dropped. */
const sipQuoted = (text: string) => `"${text.replace(/[\p{Cc}]/gu, "").replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** A host in a SIP URI: IPv6 addresses in brackets. */
const uriHost = (host: string) => (host.includes(":") ? `[${host}]` : host);

/**
 * The account in Linphone's XML remote provisioning format (lpconfig.xsd): one SIP account (`proxy_0`)
 * and its credentials (`auth_info_0`), each entry `overwrite="true"` so a phone that was provisioned
 * before takes the new values. No realm: Linphone then answers whatever realm the PBX challenges with.
 */
export function linphoneXml(config: ProvisioningConfig): string {
  const transport = config.transport.toLowerCase();
  const server = `sip:${uriHost(config.sip_server)}:${config.sip_port};transport=${transport}`;
  const identity = `sip:${config.username}@${uriHost(config.sip_server)}`;
  const section = (name: string, entries: [string, string][]) =>
    [
      `  <section name="${xmlEscape(name)}">`,
      ...entries.map(
        ([key, value]) => `    <entry name="${xmlEscape(key)}" overwrite="true">${xmlEscape(value)}</entry>`,
      ),
      "  </section>",
    ].join("\n");
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<config xmlns="http://www.linphone.org/xsds/lpconfig.xsd" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.linphone.org/xsds/lpconfig.xsd lpconfig.xsd">',
    section("proxy_0", [
      ["reg_proxy", `<${server}>`],
      ["reg_route", `<${server}>`],
      ["reg_identity", `${sipQuoted(config.display_name)} <${identity}>`],
      ["reg_expires", "3600"],
      ["reg_sendregister", "1"],
      ["publish", "0"],
      ["dial_escape_plus", "0"],
    ]),
    section("auth_info_0", [
      ["username", config.username],
      ["userid", config.username],
      ["passwd", config.password],
      ["domain", config.sip_server],
    ]),
    section("sip", [["default_proxy", "0"]]),
    "</config>",
    "",
  ].join("\n");
}

/**
 * The console's origin as the operator reached it, for a link: the browser's `Origin` when it names this
 * same host (it says https behind a TLS-terminating proxy), else the request's own URL.
 */
export function consoleOrigin(url: URL, originHeader: string | null): string {
  if (originHeader) {
    try {
      const origin = new URL(originHeader);
      if (origin.host === url.host && (origin.protocol === "https:" || origin.protocol === "http:"))
        return origin.origin;
    } catch {
      // Not a URL: the request's own.
    }
  }
  return url.origin;
}

/**
 * Reading the SIP headers OpenAI forwards with an incoming call: header
 * lookup (with compact forms), address parsing, and the called number.
 */

import { CALL_ID_RE, LINKEDID_HEADER } from "../../shared/calls";

export interface SipHeader {
  name: string;
  value: string;
}

/** A PBX can put the dialled number here when the To header carries the OpenAI project id. */
export const CALLED_NUMBER_HEADER = "X-Called-Number";

/** SIP header compact forms (RFC 3261 §7.3.3) for the headers read here. */
const COMPACT: Record<string, string> = { t: "to", f: "from" };

export function sipHeader(headers: readonly SipHeader[], name: string): string | null {
  const want = name.toLowerCase();
  for (const h of headers) {
    const n = h.name.trim().toLowerCase();
    if (n === want || COMPACT[n] === want) return h.value;
  }
  return null;
}

/** `"Name" <sip:user@host:port;params>;tag=x` → {user, host}; also bare `sip:`/`tel:` URIs. */
export function parseSipAddress(value: string | null): { user: string | null; host: string | null } {
  if (!value) return { user: null, host: null };
  const bracketed = /<([^>]*)>/.exec(value);
  let uri = (bracketed ? bracketed[1] : value.split(";")[0]) ?? "";
  uri = uri.trim();
  const scheme = /^(sips?|tel):/i.exec(uri);
  if (!scheme) return { user: null, host: null };
  const rest = uri.slice(scheme[0].length);
  if (scheme[1]?.toLowerCase() === "tel") return { user: decode(rest.split(";")[0] ?? ""), host: null };
  const at = rest.lastIndexOf("@");
  const user = at >= 0 ? decode((rest.slice(0, at).split(";")[0] ?? "").split(":")[0] ?? "") : null;
  const hostPart = (at >= 0 ? rest.slice(at + 1) : rest).split(";")[0] ?? "";
  const host = /^\[[0-9A-Fa-f:.]+\]|^[A-Za-z0-9.-]+/.exec(hostPart)?.[0] ?? null;
  return { user: user || null, host };
}

/** The display name of a From/To value (`"Jane Doe" <sip:…>` → Jane Doe), or null; at most 100 characters. */
export function displayNameOf(value: string | null): string | null {
  if (!value) return null;
  const lt = value.indexOf("<");
  if (lt <= 0) return null;
  let name = value.slice(0, lt).trim();
  if (name.startsWith('"')) name = name.replace(/^"((?:[^"\\]|\\.)*)".*$/, "$1").replace(/\\(.)/g, "$1");
  name = name.trim();
  return name ? name.slice(0, 100) : null;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s).trim();
  } catch {
    return s.trim();
  }
}

/** Numbers compare on their digits and * #, without a leading +. */
export const normalizeNumber = (v: string) => v.replace(/[^0-9*#]/g, "");

/** The called number: the X-Called-Number header, else the To user part (not the `proj_…` id). */
export function calledNumberOf(headers: readonly SipHeader[]): string | null {
  const explicit = sipHeader(headers, CALLED_NUMBER_HEADER)?.trim();
  const candidates = [explicit && /^(sips?|tel):|</i.test(explicit) ? parseSipAddress(explicit).user : explicit];
  candidates.push(parseSipAddress(sipHeader(headers, "To")).user);
  for (const c of candidates) if (c && !/^proj_/i.test(c) && normalizeNumber(c)) return c;
  return null;
}

/** The PBX call's linkedid the INVITE carried (`X-Linkedid`), when it is one; null otherwise. */
export function linkedidOf(headers: readonly SipHeader[]): string | null {
  const value = sipHeader(headers, LINKEDID_HEADER)?.trim() ?? "";
  return CALL_ID_RE.test(value) ? value : null;
}

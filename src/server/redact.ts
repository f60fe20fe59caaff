/**
 * The one redaction of secrets from text the console stores, returns or logs
 * (outside-service errors, Test Connection messages, call-log details). A
 * secret is removed in every encoding an outside service or a proxy could echo
 * it in: as is, URL-encoded (encodeURIComponent, form encoding, either hex
 * case, twice), JSON-escaped (also PHP's `\/` and `\uXXXX`), hex, and base64 /
 * base64url, including inside a longer base64 text (e.g. a Basic `user:pass`
 * header) at any of the three byte alignments. ADR 0018.
 */

export const REDACTED = "•••";

/** Shorter values are not redacted: they would blank out ordinary words. */
const MIN_SECRET = 4;

const lowerHexEscapes = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** base64 text that only the secret's bytes decide, for the secret at byte offset 0, 1 or 2 of a longer text. */
function base64Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes])
      .toString("base64")
      .replace(/=+$/, "");
    const start = Math.ceil((k * 8) / 6);
    const end = Math.floor(((k + bytes.length) * 8) / 6);
    out.push(b64.slice(start, end));
  }
  return out;
}

const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1);
const unicodeEscaped = (s: string) =>
  jsonEscaped(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Every form of one secret that redaction looks for (longest first). */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  const add = (v: string) => {
    if (v.length >= MIN_SECRET) forms.add(v);
  };
  const bytes = Buffer.from(secret, "utf8");
  const uri = encodeURIComponent(secret);
  const form = new URLSearchParams({ v: secret }).toString().slice(2);
  for (const v of [secret, uri, form, encodeURI(secret), encodeURIComponent(uri), uri.replace(/%20/g, "+")]) {
    add(v);
    add(lowerHexEscapes(v));
  }
  for (const v of [jsonEscaped(secret), unicodeEscaped(secret)]) {
    add(v);
    add(v.replace(/\//g, "\\/"));
  }
  add(bytes.toString("base64"));
  add(bytes.toString("base64").replace(/=+$/, ""));
  add(bytes.toString("base64url"));
  add(bytes.toString("hex"));
  add(bytes.toString("hex").toUpperCase());
  for (const core of base64Cores(bytes)) {
    add(core);
    add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every secret, in every form above, replaced by `•••`. */
export function redact(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  const forms = new Set<string>();
  for (const s of secrets) if (s && s.length >= MIN_SECRET) for (const f of secretForms(s)) forms.add(f);
  let out = text;
  for (const f of [...forms].sort((a, b) => b.length - a.length))
    if (out.includes(f)) out = out.split(f).join(REDACTED);
  return out;
}

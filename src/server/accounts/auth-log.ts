/**
 * The failed sign-in line (docs/decisions/0016), written to stdout (the journal under systemd) for
 * fail2ban and the administrator:
 *
 *     2026-11-24T06:14:37.123Z auth-failure user=<name> ip=<address>
 *
 * One line per password that was checked and wrong (sign-in, or the current password of a password
 * change); attempts refused by the throttle (429) are not checked and write none. Written even with
 * LOG_LEVEL=silent: fail2ban depends on it. Never contains the password.
 *
 * The name is what the client sent, percent-encoded outside `A-Z a-z 0-9 . _ @ -` (so a space, `=`,
 * a newline or any other byte cannot forge a field or a line) and cut to 64 characters of input. The
 * address is the TCP peer (never a forwarded header), or `unknown`.
 */
const SAFE_NAME = /[A-Za-z0-9._@-]/;

/** The username as it appears in the line: safe characters as is, every other byte as %XX. */
export function logSafeName(name: string): string {
  let out = "";
  for (const ch of [...name].slice(0, 64)) {
    if (SAFE_NAME.test(ch)) out += ch;
    else for (const byte of new TextEncoder().encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out || "-";
}

/** The address as it appears in the line: an IP address (hex digits, `.`, `:`) or `unknown`. */
export function logSafeAddress(ip: string | null | undefined): string {
  if (!ip) return "unknown";
  const plain = ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  return /^[0-9A-Fa-f.:]{2,45}$/.test(plain) ? plain : "unknown";
}

export function authFailureLine(name: string, ip: string | null | undefined, at = new Date()): string {
  return `${at.toISOString()} auth-failure user=${logSafeName(name)} ip=${logSafeAddress(ip)}`;
}

/** Writes the failed sign-in line (see the module comment for the format). */
export function logAuthFailure(name: string, ip: string | null | undefined): void {
  console.log(authFailureLine(name, ip));
}

/**
 * The browser's preference cookies (theme, sidebar, the Extensions table's columns and where its list begins,
 * the window's size): read from a Cookie header or `document.cookie`, written for a year, same-site only. No
 * imports: `theme-init.ts` uses it before anything else runs. None holds a secret; the server reads them to
 * draw a screen's picture (ADR 0047).
 */

/** The value of cookie `name` in `cookie` (a Cookie header or `document.cookie`), if any. */
export function cookieValue(cookie: string, name: string): string | undefined {
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Keeps a preference in cookie `name` for a year (readable by the page and sent to this site only). */
export function setPreferenceCookie(name: string, value: string): void {
  // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie, as the sidebar's.
  document.cookie = `${name}=${value}; path=/; max-age=31536000; SameSite=Strict`;
}

/**
 * The first screen's picture, rendered by the server (ADR 0047). The page of a screen that has one comes
 * with `<div id="prerender" aria-hidden="true"><div inert>…</div></div>` before `#root`: the same components
 * rendered on the server from the session's answers, laid over the window (styles.css) from the moment the
 * HTML and CSS are in. The app renders into `#root` underneath as usual; once the screen shows its data (or
 * anything else: sign-in, an error, another screen), `revealApp` removes the picture in that same commit.
 * Nothing is hydrated: the picture is a picture of the first screen, the app is the console.
 */
import { useLayoutEffect } from "react";
import { cookieValue, setPreferenceCookie } from "./cookies";

/** Rendering on the server: no window, no deferred first render (a server render shows deferred values' initial ones). */
export const ON_SERVER = typeof window === "undefined";

let requestCookie = "";
/** The Cookie header of the request being rendered on the server (renderToString is synchronous). */
export function setPrerenderCookie(cookie: string): void {
  requestCookie = cookie;
}
/** `document.cookie` in the browser, the request's cookies on the server. */
export const documentCookie = (): string => (ON_SERVER ? requestCookie : document.cookie);

const VIEWPORT_COOKIE = "viewport";
/** A tall desktop window, for a browser that has not said its size yet. */
const DEFAULT_VIEWPORT = { width: 1280, height: 1000 };

/**
 * The window the server renders a screen's picture for: the browser's last size, from its `viewport` cookie
 * (`rememberViewport`), else a desktop one. So the picture holds the rows the window shows (no more: each
 * is parsed and laid out twice, once in the picture and once by the app) and the narrow layout on a phone.
 */
export function serverViewport(): { width: number; height: number } {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(cookieValue(documentCookie(), VIEWPORT_COOKIE) ?? "");
  if (!m) return DEFAULT_VIEWPORT;
  const clamp = (v: string) => Math.min(4000, Math.max(200, Number(v)));
  return { width: clamp(m[1] as string), height: clamp(m[2] as string) };
}

/**
 * Keeps the window's size in the `viewport` cookie, after the first frame and after each resize (ADR 0047).
 * Not at start: read while the page had not been laid out yet (the app's entry runs before the first frame
 * when its scripts are cached), `innerWidth` made Chromium style and lay out the whole picture inside the
 * entry's task (the longest task of /extensions). After a frame it costs nothing,
 * and the cookie is only read by the next visit.
 */
export function rememberViewport(): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const write = () => {
    const value = `${window.innerWidth}x${window.innerHeight}`;
    if (cookieValue(document.cookie, VIEWPORT_COOKIE) !== value) setPreferenceCookie(VIEWPORT_COOKIE, value);
  };
  requestAnimationFrame(() => setTimeout(write));
  window.addEventListener("resize", () => {
    clearTimeout(timer);
    timer = setTimeout(write, 500);
  });
}

/** Removes the server's copy of the first screen, showing the app (idempotent). */
export function revealApp(): void {
  if (ON_SERVER) return;
  document.getElementById("prerender")?.remove();
}

/** Whether the page came with the server's copy of its first screen, still shown. */
export const prerenderShown = (): boolean => !ON_SERVER && document.getElementById("prerender") !== null;

/** Reveals the app once `ready` (in the commit that shows it, so the swap is one frame). */
export function useRevealWhen(ready: boolean): void {
  useLayoutEffect(() => {
    if (ready) revealApp();
  }, [ready]);
}

/**
 * At start-up: the server's copy goes when the app navigates elsewhere (back, forward) or, whatever else
 * happens, after `maxMs` (a screen whose data never comes shows its own loading state then).
 */
export function installPrerenderGuard(onNavigate: (listener: (pathname: string) => void) => void, maxMs = 8_000): void {
  if (!prerenderShown()) return;
  const shownFor = window.location.pathname;
  onNavigate((pathname) => {
    if (pathname !== shownFor) revealApp();
  });
  setTimeout(revealApp, maxMs);
}

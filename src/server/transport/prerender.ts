/**
 * The picture of a screen's first HTML, rendered on the server (ADR 0047). For a signed-in request of a
 * screen in `PICTURE_DATA`, the screen's first data is read through the API itself (the same routes,
 * session check, roles and list cache as the browser's own requests get, with the request's cookies), and
 * the web app's components render it (`src/web/first-screen.tsx`, imported on first use: a console that is
 * never asked for such a page never loads React's server renderer). Anything else — no session, a refused
 * or failed answer of the screen's own data, a render that falls back, the deadline passed — gives no
 * picture and the page as before. A refused or failed extra answer (`PICTURE_DATA`) is left out: the
 * picture shows that part loading, as the app would.
 */
import type { MeResponse } from "../../shared/auth";
import { PICTURE_DATA, SCREEN_DATA } from "../../shared/screens";
import { cookieValue } from "../../web/lib/cookies";
import { HOST_SESSION_COOKIE, SESSION_COOKIE } from "../accounts/sessions";

/** Answers an API request in this process (app.ts's `handleApi`). */
export type AnswerApi = (req: Request) => Promise<Response>;

/** A picture and the theme it was painted in (the page's `<html>` class follows it). */
export interface FirstScreen {
  html: string;
  theme: "dark" | "light";
}

interface Answer {
  url: string;
  /** What tells this answer apart from another: a list's ETag (ADR 0029), else the JSON text itself. */
  tag: string;
  text: () => Promise<string>;
}

/** Pictures kept, the most recently used: ~0.2 MB each at 5,000 extensions. */
export const PICTURES_KEPT = 16;

export type RenderFirstScreen = (req: Request, path: string) => Promise<FirstScreen | null>;

export const ME_URL = "/api/auth/me";
/** The whole picture (its answers and the render) or none: a page is never held longer for it. */
export const PRERENDER_DEADLINE_MS = 1_000;

const SESSION_IN_COOKIE = new RegExp(`(?:^|;\\s*)(?:${SESSION_COOKIE}|${HOST_SESSION_COOKIE})=`);
const SESSION_VALUE = new RegExp(`(?:^|;\\s*)(?:${SESSION_COOKIE}|${HOST_SESSION_COOKIE})=[^;]*`, "g");

/** The picture renderer over `answer`; `deadlineMs` bounds each page's wait for it. */
export function firstScreenRenderer(answer: AnswerApi, deadlineMs = PRERENDER_DEADLINE_MS): RenderFirstScreen {
  let renderer: Promise<typeof import("../../web/first-screen")> | undefined;
  // The same answers and the same cookies make the same picture: a later visit to an unchanged screen
  // costs reading the answers (the lists' bodies are kept per version, ADR 0029) and a lookup.
  const kept = new Map<string, FirstScreen>();

  /**
   * The API's answer to GET `url` as this request's browser would get it, or null unless a 200: what tells
   * it apart (a list's ETag, else the JSON text) and its JSON text, read only when a picture is made.
   */
  async function read(req: Request, url: string): Promise<Answer | null> {
    const headers = new Headers({ cookie: req.headers.get("cookie") ?? "" });
    const host = req.headers.get("host");
    if (host) headers.set("host", host);
    const res = await answer(new Request(new URL(url, req.url), { headers }));
    if (res.status !== 200) return null;
    const etag = res.headers.get("etag");
    if (etag) return { url, tag: etag, text: () => res.text() };
    const text = await res.text();
    return { url, tag: text, text: async () => text };
  }

  async function render(req: Request, path: string, cookie: string): Promise<FirstScreen | null> {
    const meAnswer = await read(req, ME_URL);
    const meText = meAnswer ? await meAnswer.text() : null;
    const me = meText === null ? null : (JSON.parse(meText) as MeResponse);
    if (!me?.authenticated || me.totpSetupRequired) return null;
    const [needed, extra] = await Promise.all([
      Promise.all((SCREEN_DATA[path] ?? []).map((url) => read(req, url))),
      Promise.all((PICTURE_DATA[path] ?? []).map((url) => read(req, url))),
    ]);
    if (needed.some((a) => a === null)) return null;
    const answers = [...needed, ...extra].filter((a): a is Answer => a !== null);
    // What the picture is made of: the screen, the answers, and the cookies but the session's (preferences).
    const made = [path, cookie.replace(SESSION_VALUE, ""), meText, ...answers.flatMap((a) => [a.url, a.tag])];
    const key = Bun.hash(made.join("\0")).toString(36);
    const hit = kept.get(key);
    if (hit) {
      kept.delete(key);
      kept.set(key, hit);
      return hit;
    }
    const data = await Promise.all(answers.map(async (a) => [a.url, JSON.parse(await a.text())] as const));
    renderer ??= import("../../web/first-screen");
    const { renderFirstScreen } = await renderer;
    const html = await renderFirstScreen({
      path,
      me,
      answers: Object.fromEntries(data),
      cookie,
    });
    if (html === null) return null;
    const screen: FirstScreen = { html, theme: cookieValue(cookie, "theme") === "light" ? "light" : "dark" };
    kept.set(key, screen);
    if (kept.size > PICTURES_KEPT) kept.delete(kept.keys().next().value as string);
    return screen;
  }

  return async (req, path) => {
    const cookie = req.headers.get("cookie") ?? "";
    // Only a signed-in browser's page is worth reading data for; anyone else costs a pattern test.
    if (req.method !== "GET" || !Object.hasOwn(PICTURE_DATA, path) || !SESSION_IN_COOKIE.test(cookie)) return null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), deadlineMs);
    });
    try {
      return await Promise.race([render(req, path, cookie).catch(() => null), late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * The page with the picture before `#root` and `<html>` in the picture's theme; the page as it was when it
 * has no `#root` to put it before. The picture is hidden from assistive technology (the app is the console)
 * and inert inside a plain cover: a click on it stops at the cover, not at what the app has underneath.
 */
export function withFirstScreen(page: string, screen: FirstScreen): string {
  const root = '<div id="root"></div>';
  if (!page.includes(root)) return page;
  const themed = screen.theme === "light" ? page.replace(/<html([^>]*) class="dark"/, "<html$1") : page;
  // A function, not a string: the picture's text is data, and `$&` in it must not be read as a pattern.
  return themed.replace(
    root,
    () => `<div id="prerender" aria-hidden="true"><div inert>${screen.html}</div></div>${root}`,
  );
}

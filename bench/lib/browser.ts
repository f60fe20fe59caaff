/**
 * Browser figures of `npm run bench`: Debian's Chromium through playwright-core, with Chromium's own network
 * emulation (DevTools `Network.emulateNetworkConditions`) for the slow link. Times are taken inside the
 * page (`performance.now()`, from the navigation's start) by a MutationObserver installed before any script.
 */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../test/browser/harness";
import type { Console } from "./console";

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A context carrying the console's session cookie (a fresh context has an empty HTTP cache). */
export async function signedInContext(browser: Browser, c: Console): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const eq = c.cookie.indexOf("=");
  await context.addCookies([
    { name: c.cookie.slice(0, eq), value: c.cookie.slice(eq + 1), url: c.base, httpOnly: true, sameSite: "Strict" },
  ]);
  return context;
}

/** 20 Mbit/s both ways and 40 ms latency, as the measurement. */
export async function slowLink(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 40,
    downloadThroughput: (20_000_000 / 8) | 0,
    uploadThroughput: (20_000_000 / 8) | 0,
  });
}

/**
 * Records, from the navigation's start, when each mark was painted: the presentation time of the frame that
 * first showed text of a cell of a row its selector matches (Element Timing's `renderTime`; the same clock as
 * First Contentful Paint). Each cell of the first matching row is tagged `elementtiming` before it is laid
 * out (a MutationObserver's callback runs before the next frame); a cell's text is reported by the cell,
 * its block. When every mark has been painted the script logs `FIRST_SEEN_DONE` to the console, so nothing
 * is polled or injected into the page while it loads (Playwright's `waitForFunction` compiles its injected
 * script in the page: ~40 ms of the main thread, in the middle of the load being measured).
 *
 * Until 2026-11-28 the figure was the start of the frame (`requestAnimationFrame`'s callback after the row
 * was inserted), which is before that frame's style, layout, paint, raster and display: 80–560 ms before
 * the row was on screen on the recorded machine. `frame` keeps that time for comparison.
 */
const FIRST_SEEN = (marks: Record<string, string>) => `
  (() => {
    const marks = ${JSON.stringify(marks)};
    const seen = (window.__firstSeen = { frame: {} });
    const tagged = new Set();
    const owners = new WeakMap(); // cell → the marks whose row it is in (two marks can share a row)
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const names = (e.element && owners.get(e.element)) || [e.identifier];
        for (const n of names) if (n in marks && !(n in seen)) seen[n] = e.renderTime || e.loadTime;
      }
      if (Object.keys(marks).every((n) => n in seen)) console.debug("FIRST_SEEN_DONE");
    }).observe({ type: "element", buffered: true });
    const tag = () => {
      for (const [name, sel] of Object.entries(marks)) {
        if (name in seen) continue;
        const row = document.querySelector(sel);
        if (!row) continue;
        if (!tagged.has(name)) {
          tagged.add(name);
          requestAnimationFrame(() => { seen.frame[name] = performance.now(); });
        }
        for (const cell of row.children) {
          if (!owners.has(cell)) owners.set(cell, new Set());
          owners.get(cell).add(name);
          if (!cell.hasAttribute("elementtiming")) cell.setAttribute("elementtiming", name);
        }
      }
    };
    new MutationObserver(tag).observe(document, { childList: true, subtree: true });
  })();`;

/** Milliseconds from navigation start to the paint of each mark of `installFirstSeen` on `url`. */
export async function firstSeen(
  page: Page,
  url: string,
  marks: readonly string[],
): Promise<Record<string, number> & { frame: Record<string, number> }> {
  const done = page.waitForEvent("console", { predicate: (m) => m.text() === "FIRST_SEEN_DONE", timeout: 30_000 });
  await page.goto(url, { waitUntil: "commit" });
  await done;
  const seen = await page.evaluate(
    () =>
      (window as unknown as { __firstSeen: Record<string, number> & { frame: Record<string, number> } }).__firstSeen,
  );
  for (const m of marks) if (typeof seen[m] !== "number") throw new Error(`${url}: no paint of ${m}`);
  return seen;
}

/** Marks: a name and the selector of a table row (`tr`) whose cells' first paint is that mark. */
export async function installFirstSeen(context: BrowserContext, marks: Record<string, string>): Promise<void> {
  await context.addInitScript(FIRST_SEEN(marks));
}

/**
 * The floor of a page's first paint here: a one-row HTML page (`<tr data-extension>`) from a Bun process of
 * its own, revalidated like the console's pages (`Cache-Control: private, no-cache`, ETag, 304). Measured
 * with the same browser, link and marks as the console, it is what the machine and the link cost before any
 * console work: the round trip, committing the navigation, the renderer's first style, layout and paint.
 */
export async function startReferencePage(): Promise<{ url: string; stop(): void }> {
  const html =
    '<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>Reference</title></head><body><table><tbody><tr data-extension="10001"><td>10001</td><td>User 1</td></tr></tbody></table></body></html>';
  const code = `
    const body = ${JSON.stringify(html)};
    const etag = '"ref-1"';
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch(req) {
      const headers = { "content-type": "text/html;charset=utf-8", "cache-control": "private, no-cache", etag };
      if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
      return new Response(body, { headers });
    } });
    console.log(server.port);`;
  const proc = Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  const port = Number(new TextDecoder().decode(value).trim());
  if (!port) throw new Error("the reference page did not start");
  return { url: `http://127.0.0.1:${port}/`, stop: () => proc.kill("SIGKILL") };
}

/** Long tasks (over 50 ms) seen by the page from its start, kept on `window.__longTasks`. */
export const LONG_TASKS = `
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(e.duration);
    }).observe({ type: "longtask", buffered: true });
  } catch {}`;

/** Bytes the page received over `ms` milliseconds (HTTP bodies and headers as sent, WebSocket frames). */
export async function bytesReceived(page: Page, ms: number): Promise<{ bytes: number; requests: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  let bytes = 0;
  let requests = 0;
  cdp.on("Network.loadingFinished", (e: { encodedDataLength: number }) => {
    bytes += e.encodedDataLength;
    requests++;
  });
  cdp.on("Network.webSocketFrameReceived", (e: { response: { payloadData: string } }) => {
    bytes += e.response.payloadData.length;
  });
  await Bun.sleep(ms);
  await cdp.detach();
  return { bytes, requests };
}

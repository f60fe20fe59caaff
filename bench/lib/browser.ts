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
 * Records, from the navigation's start, when each mark's selector first matches, taken in the next animation
 * frame: the frame that paints it (a document waiting for its render-blocking stylesheet runs no frames, so
 * a row parsed before the CSS is in counts when it can be seen).
 */
const FIRST_SEEN = (marks: Record<string, string>) => `
  (() => {
    const marks = ${JSON.stringify(marks)};
    const seen = (window.__firstSeen = {});
    const pending = new Set();
    const check = () => {
      for (const [name, sel] of Object.entries(marks)) {
        if (pending.has(name) || !document.querySelector(sel)) continue;
        pending.add(name);
        requestAnimationFrame(() => { seen[name] = performance.now(); });
      }
    };
    new MutationObserver(check).observe(document, { childList: true, subtree: true });
  })();`;

/** Milliseconds from navigation start to each mark of `installFirstSeen` on `url`, once all are seen. */
export async function firstSeen(page: Page, url: string, marks: readonly string[]): Promise<Record<string, number>> {
  await page.goto(url, { waitUntil: "commit" });
  await page.waitForFunction(
    (names) =>
      names.every((n) => (window as unknown as { __firstSeen: Record<string, number> }).__firstSeen?.[n] !== undefined),
    marks,
    { timeout: 30_000 },
  );
  return page.evaluate(() => (window as unknown as { __firstSeen: Record<string, number> }).__firstSeen);
}

export async function installFirstSeen(context: BrowserContext, marks: Record<string, string>): Promise<void> {
  await context.addInitScript(FIRST_SEEN(marks));
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

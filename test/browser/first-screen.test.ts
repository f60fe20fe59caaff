// The server's picture of the first screen (ADR 0047) in Chromium against the built binary: a signed-in
// /extensions shows its rows from the page itself, covered and inert, while the app loads; the app takes
// over in the same place once it shows the list; a picture never outlives its use (another answer from the
// session check, a list that never comes).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page, Route } from "playwright-core";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  for (let i = 0; i < 40; i++) {
    await h.apiJson("POST", "/api/extensions", { extension: String(3000 + i), name: `Picture desk ${i}` });
  }
}, 60_000);

afterAll(() => h?.stop());

const picture = (page: Page) => page.locator("#prerender");
const pictureRow = (page: Page, n: string) => page.locator(`#prerender [data-extension="${n}"]`);
const appRow = (page: Page, n: string) => page.locator(`#root [data-testid="extension-row"][data-extension="${n}"]`);

/** Holds the browser's requests for `path` until the returned function is called. */
async function hold(page: Page, path: string): Promise<() => void> {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(
    (url) => url.pathname === path,
    async (route: Route) => {
      await gate;
      await route.continue().catch(() => {});
    },
  );
  return release;
}

describe("the first screen's picture", () => {
  test(
    "shows the rows before the app has them, inert and out of the accessibility tree; the app takes over in place",
    async () => {
      let release: () => void = () => {};
      const page = await h.signedInPage("/extensions", {
        before: async (p) => {
          release = await hold(p, "/api/extensions");
        },
      });
      await pictureRow(page, "3000").waitFor();
      expect(await pictureRow(page, "3000").isVisible()).toBe(true);
      expect(await appRow(page, "3000").count()).toBe(0);
      // Nothing of it is offered to assistive technology, and a click on it does nothing.
      expect(await page.getByRole("row").count()).toBe(0);
      const before = (await pictureRow(page, "3001").boundingBox()) as { x: number; y: number };
      await page.mouse.click(before.x + 40, before.y + 10);
      await page.getByRole("button", { name: "Add Extension" }).first().waitFor({ state: "attached" });
      expect(await page.getByRole("dialog").count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe("/extensions");

      release();
      await appRow(page, "3001").waitFor();
      await picture(page).waitFor({ state: "detached" });
      const after = (await appRow(page, "3001").boundingBox()) as { x: number; y: number };
      expect(Math.abs(after.x - before.x)).toBeLessThanOrEqual(2);
      expect(Math.abs(after.y - before.y)).toBeLessThanOrEqual(2);
      // The console works: a row's name, and no id twice in the document.
      expect(await page.getByRole("row").count()).toBeGreaterThan(10);
      const repeated = await page.evaluate(() => {
        const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);
        return ids.filter((id, i) => ids.indexOf(id) !== i);
      });
      expect(repeated).toEqual([]);
      await page.context().close();
    },
    TEST_TIMEOUT,
  );

  test(
    "is painted in the saved light theme, and the app keeps it",
    async () => {
      let release: () => void = () => {};
      const page = await h.signedInPage("/extensions", {
        before: async (p) => {
          await p.context().addCookies([{ name: "theme", value: "light", url: h.baseUrl }]);
          release = await hold(p, "/api/extensions");
        },
      });
      await pictureRow(page, "3000").waitFor();
      expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(false);
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await background();
      release();
      await picture(page).waitFor({ state: "detached" });
      expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(false);
      expect(await page.evaluate(() => localStorage.getItem("theme") ?? "unset")).toBe("unset");
      expect(await background()).toBe(light);
      await page.context().close();
    },
    TEST_TIMEOUT,
  );

  test(
    "goes at once when the session check says signed out: the sign-in page shows",
    async () => {
      const page = await h.signedInPage("/extensions", {
        before: async (p) => {
          await p.route(
            (url) => url.pathname === "/api/auth/me",
            (route) => route.fulfill({ json: { authenticated: false, setupRequired: false } }),
          );
          await p.route(
            (url) => url.pathname === "/api/extensions",
            (route) => route.fulfill({ status: 401, json: { error: "Sign in required" } }),
          );
        },
      });
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      expect(await picture(page).count()).toBe(0);
      await page.context().close();
    },
    TEST_TIMEOUT,
  );

  test(
    "goes by itself when the list never comes: the screen's own loading state shows",
    async () => {
      const page = await h.signedInPage("/extensions", {
        before: async (p) => {
          await hold(p, "/api/extensions");
        },
      });
      await pictureRow(page, "3000").waitFor();
      await picture(page).waitFor({ state: "detached", timeout: 12_000 });
      expect(await appRow(page, "3000").count()).toBe(0);
      expect(await page.locator("#root main").isVisible()).toBe(true);
      await page.context().close();
    },
    TEST_TIMEOUT,
  );

  test(
    "holds the rows the window shows below where the list began, and so does the app's first render",
    async () => {
      // More than the table mounts whole (120), so both the picture and the app mount a window of rows.
      await h.importExtensions(
        Array.from({ length: 200 }, (_, i) => ({ extension: String(3100 + i), name: `Far ${i}` })),
      );
      const page = await h.signedInPage("/extensions", { before: async () => {} });
      await appRow(page, "3000").waitFor();
      // The app keeps where the list began on the page for the next load: its highest place (the web dialer's
      // notice above it may come a moment after the rows).
      const top = await page.evaluate(() =>
        Math.round((document.querySelector("#root tbody") as Element).getBoundingClientRect().top + scrollY),
      );
      const cookies = await page.context().cookies();
      const kept = Number(cookies.find((c) => c.name === "extensions_top")?.value);
      // The window's size too, written after the first frame (not at start: ADR 0047).
      const size = await page.evaluate(() => `${innerWidth}x${innerHeight}`);
      expect(cookies.find((c) => c.name === "viewport")?.value).toBe(size);
      expect(kept).toBeGreaterThan(100);
      expect(kept).toBeLessThanOrEqual(top);

      // The next load: the picture's rows go from there to the window's bottom, with at most one beyond it.
      const release = await hold(page, "/api/extensions");
      await page.addInitScript(() => {
        new MutationObserver(() => {
          const w = window as unknown as { firstAppRows?: number };
          const n = document.querySelectorAll('#root [data-testid="extension-row"]').length;
          if (n && w.firstAppRows === undefined) w.firstAppRows = n;
        }).observe(document, { childList: true, subtree: true });
      });
      await page.goto(`${h.baseUrl}/extensions`);
      await pictureRow(page, "3000").waitFor();
      const { rows, height } = await page.evaluate(() => ({
        rows: [...document.querySelectorAll("#prerender tr[data-extension]")].map((r) => {
          const box = r.getBoundingClientRect();
          return { top: box.top, bottom: box.bottom };
        }),
        height: innerHeight,
      }));
      const shown = rows.filter((r) => r.top < height).length;
      expect(Math.max(...rows.map((r) => r.bottom))).toBeGreaterThanOrEqual(height);
      // One row more by design, and one more for each row's height the list moved down after it was kept.
      expect(rows.length - shown).toBeLessThanOrEqual(1 + Math.ceil((top - kept) / 53));
      // The app's first render mounts those rows and its overscan (8), not a window's worth from the page's top.
      release();
      await picture(page).waitFor({ state: "detached" });
      const first = await page.evaluate(() => (window as unknown as { firstAppRows?: number }).firstAppRows ?? 0);
      expect(first).toBeGreaterThanOrEqual(shown);
      expect(first).toBeLessThanOrEqual(shown + 8 + Math.ceil((top - kept) / 53));
      await page.context().close();
    },
    TEST_TIMEOUT,
  );

  test(
    "the list does not move after the swap when the web dialer's status comes after the rows",
    async () => {
      const page = await h.signedInPage("/extensions", {
        before: async (p) => {
          // The list's top each time it changes, and whether the picture was still there.
          await p.addInitScript(() => {
            const w = window as unknown as { tops: { top: number; picture: boolean }[] };
            w.tops = [];
            new MutationObserver(() => {
              const body = document.querySelector("#root tbody");
              if (!body) return;
              const top = Math.round(body.getBoundingClientRect().top);
              const picture = document.getElementById("prerender") !== null;
              const last = w.tops[w.tops.length - 1];
              if (!last || last.top !== top || last.picture !== picture) w.tops.push({ top, picture });
            }).observe(document, { childList: true, subtree: true });
          });
          await p.route(
            (url) => url.pathname === "/api/dialer/status",
            async (route) => {
              await new Promise((r) => setTimeout(r, 600));
              await route.continue().catch(() => {});
            },
          );
        },
      });
      await appRow(page, "3000").waitFor();
      await page.getByText("Web dialer not configured — set it up in").waitFor();
      await picture(page).waitFor({ state: "detached" });
      await page.waitForTimeout(300);
      const tops = await page.evaluate(() => (window as unknown as { tops: { top: number; picture: boolean }[] }).tops);
      const shown = tops.filter((t) => !t.picture).map((t) => t.top);
      expect(shown.length).toBeGreaterThan(0);
      expect(new Set(shown).size).toBe(1);
      await page.context().close();
    },
    TEST_TIMEOUT,
  );
});

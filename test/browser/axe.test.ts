// Accessibility of every screen: axe-core (the library axe DevTools and Lighthouse use) on each
// sidebar screen, in the dark and the light theme, at desktop width, against the built binary with data on
// every screen. No serious or critical finding may remain. At 375 px no screen scrolls sideways.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { NAV_ITEMS } from "../../src/web/lib/nav";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness } from "./harness";

const TIMEOUT = 120_000;

/** The screen has rendered its content: its heading is there and nothing is loading. */
async function settled(page: Page) {
  await page.getByRole("heading", { level: 1 }).first().waitFor();
  await page.waitForLoadState("networkidle").catch(() => {});
  await page
    .waitForFunction(() => !document.querySelector('[aria-busy="true"], .animate-pulse'), null, { timeout: 10_000 })
    .catch(() => {});
  // A list fading back in after a refetch (opacity 0.6 → 1) is scanned once it is there, not half-way: axe
  // blends a fading text's colour with its background. Spinners never finish and are left out.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.createAdminViaApi();
  // Something on every screen: lists render their rows, not only their empty states.
  for (const [extension, name] of [
    ["1001", "Alice"],
    ["1002", "Bob"],
    ["1003", "Carol"],
  ]) {
    await h.apiJson("POST", "/api/extensions", { extension, name });
  }
  const trunk = await h.apiJson<{ id: number }>("POST", "/api/trunks", {
    name: "carrier",
    type: "sip",
    host: "sip.example.net",
  });
  await h.apiJson("POST", "/api/inbound-routes", {
    description: "Main line",
    didNumber: "15551230000",
    destinationType: "extension",
    destination: "1001",
  });
  await h.apiJson("POST", "/api/outbound-routes", {
    name: "Domestic",
    trunkId: trunk.id,
    dialPatterns: ["NXXNXXXXXX"],
  });
  await h.apiJson("POST", "/api/ptt-groups", { name: "Warehouse", extension: "7001", members: ["1001", "1002"] });
  await h.apiJson("POST", "/api/ring-groups", { name: "Front desk", number: "600", members: ["1001", "5551234#"] });
  await h.apiJson("POST", "/api/queues", { name: "Support", number: "400", agents: ["1001", "1002"], maxWait: 120 });
  const ivr = await h.apiJson<{ id: number }>("POST", "/api/ivrs", {
    name: "Main menu",
    options: [
      { digits: "1", destination: { kind: "queue", target: "400" } },
      { digits: "2", destination: { kind: "ring-group", target: "600" } },
    ],
    timeoutDestination: { kind: "extension", target: "1001" },
  });
  await h.apiJson("POST", "/api/announcements", {
    name: "Welcome",
    allowSkip: true,
    after: { kind: "ivr", target: String(ivr.id) },
  });
  const hours = await h.apiJson<{ id: number }>("POST", "/api/time-groups", {
    name: "Office hours",
    weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
    holidays: [{ month: "dec", day: 24, toDay: 26 }],
  });
  await h.apiJson("POST", "/api/time-conditions", {
    name: "Office",
    timeGroup: hours.id,
    timeZone: "Europe/Berlin",
    match: { kind: "ivr", target: String(ivr.id) },
    noMatch: { kind: "voicemail", target: "1001" },
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

/**
 * One signed-in page per theme goes through every screen by its sidebar link, as a person would: a page
 * per screen (a context, a sign-in and a cold load each) cost ~3.5 s a screen here, the scan itself ~0.5.
 */
async function openScreen(page: Page, url: string) {
  if (new URL(page.url()).pathname !== url) {
    // The address changes at the click; the screen (its heading and document title) once its chunk and
    // data are in. Until then the previous screen is still shown: scanning it would pass for this one.
    const before = await page.title();
    await page.locator(`nav a[href="${url}"]`).first().click();
    await page.waitForFunction((title) => document.title !== title, before);
  }
  await settled(page);
}

for (const theme of ["dark", "light"] as const) {
  describe(`axe-core, ${theme} theme`, () => {
    let page: Page;
    beforeAll(async () => {
      page = await h.signedInPage("/", {
        before: (p) => p.context().addInitScript(`localStorage.setItem("theme", ${JSON.stringify(theme)})`),
      });
      await settled(page);
      // The theme the scan is about is the one applied.
      expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(theme === "dark");
    }, 60_000);
    afterAll(async () => {
      await page?.context().close();
    });

    for (const item of NAV_ITEMS) {
      test(
        `${item.title} (${item.url}) has no serious or critical finding and sound landmarks`,
        async () => {
          await openScreen(page, item.url);
          expect({ screen: item.url, theme, findings: await seriousFindings(page) }).toEqual({
            screen: item.url,
            theme,
            findings: [],
          });
        },
        TIMEOUT,
      );
    }

    // A scan once found a primary button mid-hover at 4.41:1 (the mouse rested on it): a hovered
    // button is a state a person sees, and must keep the contrast of the resting one.
    test(
      "a hovered primary and destructive button keep their contrast",
      async () => {
        await openScreen(page, "/extensions");
        const scanHovered = async (name: string) => {
          const button = page.getByRole("button", { name, exact: true });
          await page.mouse.move(0, 0);
          const resting = await button.evaluate((el) => getComputedStyle(el).backgroundColor);
          await button.hover();
          await button.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)));
          const hovered = await button.evaluate((el) => getComputedStyle(el).backgroundColor);
          // The hover is there to be scanned: the button changes colour under the mouse.
          expect({ name, changed: hovered !== resting }).toEqual({ name, changed: true });
          return { name, theme, findings: await seriousFindings(page) };
        };
        expect(await scanHovered("Add Extension")).toEqual({ name: "Add Extension", theme, findings: [] });
        await page.getByRole("button", { name: "Delete extension 1003" }).click();
        // Enabled once the dialog knows nothing uses the extension (a trial click waits for that).
        await page.getByRole("dialog").getByRole("button", { name: "Delete", exact: true }).click({ trial: true });
        expect(await scanHovered("Delete")).toEqual({ name: "Delete", theme, findings: [] });
        await page.keyboard.press("Escape");
        await page.getByRole("dialog").waitFor({ state: "detached" });
      },
      TIMEOUT,
    );
  });
}

describe("375 px wide", () => {
  test(
    "no screen scrolls sideways",
    async () => {
      const page = await h.signedInPage("/", { viewport: { width: 375, height: 740 } });
      const wider: Array<{ screen: string; width: number }> = [];
      for (const item of NAV_ITEMS) {
        await page.goto(new URL(item.url, page.url()).href);
        await settled(page);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        if (width > 375) wider.push({ screen: item.url, width });
      }
      expect(wider).toEqual([]);
      await page.context().close();
    },
    TIMEOUT,
  );
});

describe("keyboard and locale", () => {
  test(
    "the first Tab stop skips the navigation to the screen",
    async () => {
      const page = await h.signedInPage("/extensions");
      await settled(page);
      await page.keyboard.press("Tab");
      const skip = page.getByRole("link", { name: "Skip to content" });
      expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
      // Visible when focused (it is hidden until then).
      expect((await skip.boundingBox())?.width ?? 0).toBeGreaterThan(20);
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
      // The next Tab lands in the screen, not in the sidebar.
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest("main")))).toBe(true);
      await page.context().close();
    },
    TIMEOUT,
  );

  test(
    "dates follow the browser's locale",
    async () => {
      // The audit trail has rows by now (the data above was created through the API).
      const context = await h.browser.newContext({ locale: "de-DE", viewport: { width: 1280, height: 800 } });
      await h.signInViaApi(context);
      const page = await context.newPage();
      await page.goto(new URL("/audit", h.baseUrl).href);
      await settled(page);
      const table = page.getByRole("table").first();
      await table.waitFor();
      // German dates: 24.11.2026, 17:43 (never Nov 24, 2026 or 11/24/2026).
      expect(await table.textContent()).toMatch(/\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}/);
      await context.close();
    },
    TIMEOUT,
  );
});

// The web app in chunks (ADR 0030) through chromium against the built binary: a screen's chunk
// comes when it is needed or when a link to it is under the pointer, and a screen's first request goes out
// alongside the session check, without disturbing the signed-out, first-run pages.
// Tests run in order and share one server: the first one runs before any administrator exists.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page, Request } from "playwright-core";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toastItems, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
}, 60_000);

afterAll(() => h?.stop());

const h1 = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true });
const sidebarLink = (page: Page, name: string) =>
  page.locator('[data-slot="sidebar"]').getByRole("link", { name, exact: true });
const pathOf = (url: string) => new URL(url).pathname;
const isChunk = (r: Request) => /^\/chunk-[a-z0-9]+\.js$/.test(pathOf(r.url()));

const inFlight = new WeakMap<Page, Set<Request>>();

/** Every request of the page, in the order the browser made them, as `METHOD /path`. */
function recordRequests(page: Page): string[] {
  const seen: string[] = [];
  const open = new Set<Request>();
  inFlight.set(page, open);
  page.on("request", (r) => {
    seen.push(`${r.method()} ${pathOf(r.url())}`);
    open.add(r);
  });
  page.on("requestfinished", (r) => open.delete(r));
  page.on("requestfailed", (r) => open.delete(r));
  return seen;
}

/**
 * Until no request of the page has been open for 300 ms (what it started has finished, including the
 * chunks a chunk imports). Playwright's own "networkidle" is reached once per page load, not again later.
 */
async function settled(page: Page) {
  const open = inFlight.get(page) as Set<Request>;
  let quietSince = Date.now();
  const deadline = Date.now() + 10_000;
  while (Date.now() - quietSince < 300) {
    if (Date.now() > deadline) throw new Error(`requests still open: ${[...open].map((r) => r.url()).join(", ")}`);
    if (open.size) quietSince = Date.now();
    await Bun.sleep(20);
  }
}

/** The chunks requested so far. */
const chunksIn = (requests: string[]) => new Set(requests.filter((r) => /^GET \/chunk-[a-z0-9]+\.js$/.test(r)));

/** Neither a toast nor a second page: the sign-in (or set-up) page stays, with the URL asked for. */
async function staysOn(page: Page, heading: string, path: string) {
  await toasts(page).waitFor({ state: "attached" }); // the toaster's chunk is in: a toast would show
  await settled(page);
  expect(await h1(page, heading).isVisible()).toBe(true);
  expect(await toastItems(page).count()).toBe(0);
  expect(pathOf(page.url())).toBe(path);
}

describe("signed out", () => {
  test(
    "first run on /extensions: the set-up page, and the screen's refused prefetch shows nothing",
    async () => {
      const page = await h.newPage();
      const requests = recordRequests(page);
      await page.goto(`${h.baseUrl}/extensions`);
      await h1(page, "Create administrator").waitFor();
      await staysOn(page, "Create administrator", "/extensions");
      expect(requests).toContain("GET /api/extensions"); // asked before /me answered, refused (401)
      expect(requests.filter((r) => r === "GET /api/auth/me")).toHaveLength(1); // no loop
    },
    TEST_TIMEOUT,
  );

  test(
    "signed out on /trunks: the sign-in page without a toast, and signing in shows the screen",
    async () => {
      await h.createAdminViaApi();
      await h.apiJson("POST", "/api/trunks", { name: "Carrier A", type: "sip", host: "sip.example.net" });
      const page = await h.newPage();
      const requests = recordRequests(page);
      await page.goto(`${h.baseUrl}/trunks`);
      await h1(page, "Sign in").waitFor();
      await staysOn(page, "Sign in", "/trunks");
      expect(requests).toContain("GET /api/trunks");
      expect(requests.filter((r) => r === "GET /api/auth/me")).toHaveLength(1);

      await h.signInViaUi(page);
      await h1(page, "Trunks").waitFor();
      await page.getByText("Carrier A").first().waitFor(); // the refused prefetch left nothing behind
      expect(await toastItems(page).count()).toBe(0);
    },
    TEST_TIMEOUT,
  );
});

describe("signed in", () => {
  test(
    "on /extensions, GET /api/extensions starts before GET /api/auth/me has answered",
    async () => {
      const events: string[] = [];
      const page = await h.signedInPage("/extensions", {
        before: async (p) => {
          p.on("request", (r) => {
            if (["/api/extensions", "/api/auth/me"].includes(pathOf(r.url()))) events.push(`start ${pathOf(r.url())}`);
          });
          p.on("response", (r) => {
            if (pathOf(r.url()) === "/api/auth/me") events.push("answer /api/auth/me");
          });
          // The session check is slow: the screen's request must not wait for it.
          await p.route("**/api/auth/me", async (route) => {
            await new Promise((resolve) => setTimeout(resolve, 400));
            await route.continue();
          });
        },
      });
      await h1(page, "Extensions").waitFor();
      expect(events.indexOf("start /api/extensions")).toBeGreaterThanOrEqual(0);
      expect(events.indexOf("start /api/extensions")).toBeLessThan(events.indexOf("answer /api/auth/me"));
    },
    TEST_TIMEOUT,
  );

  test(
    "Extensions shows without its forms' chunk; Add Extension pressed before it arrives opens when it lands",
    async () => {
      // The forms come in one chunk on demand (ADR 0046): the one holding the Add Extension form's text.
      const MARKER = "Create a SIP extension for a phone or softphone.";
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let formsRequested = false;
      const page = await h.signedInPage("/extensions", {
        before: (p) =>
          p.route(/\/chunk-[a-z0-9]+\.js$/, async (route) => {
            // Uncompressed, so the body can be read and handed on as it is.
            const headers = { ...route.request().headers(), "accept-encoding": "identity" };
            const res = await route.fetch({ headers });
            const body = await res.body();
            if (body.includes(MARKER)) {
              formsRequested = true;
              await released;
            }
            await route.fulfill({ status: res.status(), headers: res.headers(), body });
          }),
      });
      await h1(page, "Extensions").waitFor();
      const add = page.getByRole("button", { name: "Add Extension", exact: true });
      await add.waitFor();
      const deadline = Date.now() + 10_000;
      while (!formsRequested && Date.now() < deadline) await Bun.sleep(20); // the idle preload asks for it
      expect(formsRequested).toBe(true);

      await add.click(); // the form is not there yet
      const dialog = page.getByRole("dialog", { name: "Add Extension" });
      expect(await dialog.count()).toBe(0);
      release();
      await dialog.waitFor(); // opens as soon as the chunk lands, without a second click
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      expect(await add.evaluate((el) => el === document.activeElement)).toBe(true);
    },
    TEST_TIMEOUT,
  );

  test(
    "a screen's chunk is loaded when the screen is opened, not at start",
    async () => {
      let requests: string[] = [];
      const page = await h.signedInPage("/sangoma-talk", {
        before: async (p) => {
          requests = recordRequests(p);
        },
      });
      await h1(page, "Softphone Provisioning").waitFor();
      await settled(page);
      const atStart = chunksIn(requests);

      // A click without the pointer passing over the link first (no preload on intent).
      await sidebarLink(page, "Audit").evaluate((a) => (a as HTMLAnchorElement).click());
      await h1(page, "Audit").waitFor();
      const loaded = [...chunksIn(requests)].filter((c) => !atStart.has(c));
      expect(loaded.length).toBeGreaterThan(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "hovering a sidebar link loads that screen's chunk and starts its query before the click",
    async () => {
      let requests: string[] = [];
      const page = await h.signedInPage("/sangoma-talk", {
        before: async (p) => {
          requests = recordRequests(p);
        },
      });
      await h1(page, "Softphone Provisioning").waitFor();
      await settled(page);
      const atStart = chunksIn(requests);
      expect(requests).not.toContain("GET /api/calls/active");

      // A screen of another group (the screens' chunks are per group: ADR 0030).
      const chunk = page.waitForRequest((r) => isChunk(r) && !atStart.has(`GET ${pathOf(r.url())}`));
      const data = page.waitForRequest((r) => pathOf(r.url()) === "/api/calls/active");
      await sidebarLink(page, "Active Calls").hover();
      await Promise.all([chunk, data]);
      await settled(page);
      expect(pathOf(page.url())).toBe("/sangoma-talk"); // not clicked yet
      const afterHover = requests.length;

      await sidebarLink(page, "Active Calls").click();
      await h1(page, "Active Calls").waitFor();
      // The click needed nothing the hover had not already fetched.
      expect(requests.slice(afterHover).filter((r) => /\/chunk-/.test(r))).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

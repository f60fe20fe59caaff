// The signed-in console shell, driven through chromium against the built binary.
// Tests run in order and share one server: the first one creates the administrator.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ADMIN, type Harness, startHarness, TEST_TIMEOUT } from "./harness";

const SCREENS: { link: string; path: string; heading: string }[] = [
  { link: "Dashboard", path: "/", heading: "Dashboard" },
  { link: "VPS Management", path: "/vps", heading: "VPS Management" },
  { link: "Extensions", path: "/extensions", heading: "Extensions" },
  { link: "Trunks", path: "/trunks", heading: "Trunks" },
  { link: "Inbound Routes", path: "/inbound-routes", heading: "Inbound Routes" },
  { link: "Outbound Routes", path: "/outbound-routes", heading: "Outbound Routes" },
  { link: "Ring Groups", path: "/ring-groups", heading: "Ring Groups" },
  { link: "Queues", path: "/queues", heading: "Queues" },
  { link: "IVRs", path: "/ivrs", heading: "IVRs" },
  { link: "Announcements", path: "/announcements", heading: "Announcements" },
  { link: "Time Conditions", path: "/time-conditions", heading: "Time Conditions" },
  { link: "Call Routing", path: "/call-routing", heading: "Call Routing" },
  { link: "System Recordings", path: "/recordings", heading: "System Recordings" },
  { link: "PTT Groups", path: "/ptt-groups", heading: "Push-to-Talk Groups" },
  { link: "Softphone", path: "/sangoma-talk", heading: "Softphone Provisioning" },
  { link: "Configuration Wizard", path: "/wizard", heading: "Configuration Wizard" },
  { link: "Config Generator", path: "/config-generator", heading: "Configuration Generator" },
  { link: "Deployment", path: "/deployment", heading: "Deployment" },
  { link: "Sync from PBX", path: "/sync", heading: "Sync Configuration" },
  { link: "API Settings", path: "/settings", heading: "API Settings" },
  { link: "SIP Provider", path: "/telnyx", heading: "SIP Provider" },
  { link: "Active Calls", path: "/calls", heading: "Active Calls" },
  { link: "Call History", path: "/call-history", heading: "Call History" },
  { link: "PBX Security", path: "/pbx-security", heading: "PBX Security" },
  { link: "AI Assistants", path: "/ai-assistants", heading: "AI Assistants" },
  { link: "Call Transcripts", path: "/call-transcripts", heading: "Call Transcripts" },
  { link: "Routing Rules", path: "/ai-routing", heading: "AI Routing Rules" },
];

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterEach(() => h?.closePages());

afterAll(async () => {
  await h?.stop();
});

const h1 = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true });
const sidebar = (page: Page) => page.locator('[data-slot="sidebar"]');
const sidebarLink = (page: Page, name: string) => sidebar(page).getByRole("link", { name, exact: true });
const pathOf = (page: Page) => new URL(page.url()).pathname;

async function sidebarWidth(page: Page): Promise<number> {
  return page.locator('[data-slot="sidebar-container"]').evaluate((el) => el.getBoundingClientRect().width);
}

/** Waits until the sidebar's width transition has settled on `px`. */
async function waitForSidebarWidth(page: Page, px: number) {
  await page.waitForFunction(
    (w) => document.querySelector('[data-slot="sidebar-container"]')?.getBoundingClientRect().width === w,
    px,
  );
}

describe("first run and signing in", () => {
  test(
    "the first visitor creates the administrator through the form",
    async () => {
      const page = await h.newPage();
      await page.goto(`${h.baseUrl}/`);
      await h1(page, "Create administrator").waitFor();

      await page.getByLabel("Username").fill(ADMIN.username);
      await page.getByLabel("Password", { exact: true }).fill("too-short");
      await page.getByLabel("Confirm password").fill("too-short");
      await page.getByRole("button", { name: "Create administrator" }).click();

      const password = page.getByLabel("Password", { exact: true });
      const message = page.getByText("Password must be at least 12 characters");
      await message.waitFor();
      expect(await password.getAttribute("aria-invalid")).toBe("true");
      const describedBy = await password.getAttribute("aria-describedby");
      expect(describedBy).toBeTruthy();
      expect(await message.getAttribute("id")).toBe(describedBy);

      const socket = page.waitForEvent("websocket", (ws) => ws.url().endsWith("/ws?type=sync"));
      await password.fill(ADMIN.password);
      await page.getByLabel("Confirm password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Create administrator" }).click();

      await h1(page, "Dashboard").waitFor();
      await page.getByText("Monitor your VPS and FreePBX system at a glance").waitFor();
      await socket;
      // The footer shows the server label and address from /api/info.
      await page.getByTestId("server-info").getByText("127.0.0.1").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "signing out returns to the sign-in page and keeps the URL",
    async () => {
      const page = await h.signedInPage("/trunks");
      await h1(page, "Trunks").waitFor();
      await page.getByRole("button", { name: "Sign out" }).click();
      await h1(page, "Sign in").waitFor();
      expect(pathOf(page)).toBe("/trunks");
      // The session really ended: a reload still shows the sign-in page.
      await page.reload();
      await h1(page, "Sign in").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "a wrong password shows an error on the form",
    async () => {
      const page = await h.newPage();
      await page.goto(`${h.baseUrl}/`);
      await h.signInViaUi(page, { username: ADMIN.username, password: "not the right password" });
      await page.getByRole("alert").getByText("Wrong username or password").waitFor();
      expect(await h1(page, "Sign in").isVisible()).toBe(true);
    },
    TEST_TIMEOUT,
  );

  test(
    "too many failures show the server's retry message",
    async () => {
      const page = await h.newPage();
      await page.goto(`${h.baseUrl}/`);
      const who = { username: "intruder", password: "guessing-wrong-again" };
      for (let i = 0; i < 5; i++) {
        const answered = page.waitForResponse("**/api/auth/login");
        await h.signInViaUi(page, who);
        expect((await answered).status()).toBe(401);
      }
      await h.signInViaUi(page, who);
      await page
        .getByRole("alert")
        .getByText(/Too many failed sign-ins; try again in \d+ s/)
        .waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "server field errors appear under the matching inputs",
    async () => {
      const page = await h.newPage();
      await page.route("**/api/auth/login", (route) =>
        route.fulfill({
          status: 400,
          contentType: "application/json",
          body: JSON.stringify({
            error: { message: "Invalid request: Username is taken", fields: { username: "Username is taken" } },
          }),
        }),
      );
      await page.goto(`${h.baseUrl}/`);
      await h.signInViaUi(page, { username: "someone", password: "whatever-password" });
      const message = page.getByText("Username is taken", { exact: true });
      await message.waitFor();
      expect(await page.getByLabel("Username").getAttribute("aria-describedby")).toBe(await message.getAttribute("id"));
    },
    TEST_TIMEOUT,
  );

  test(
    "signing in lands on the screen that was asked for",
    async () => {
      const page = await h.newPage();
      await page.goto(`${h.baseUrl}/ptt-groups`);
      await h.signInViaUi(page);
      await h1(page, "Push-to-Talk Groups").waitFor();
      expect(pathOf(page)).toBe("/ptt-groups");
      expect(await page.getByTestId("signed-in-user").textContent()).toBe(ADMIN.username);
    },
    TEST_TIMEOUT,
  );
});

describe("shell", () => {
  test(
    "every sidebar link reaches its screen and is highlighted",
    async () => {
      const page = await h.signedInPage("/");
      await h1(page, "Dashboard").waitFor();
      for (const screen of SCREENS) {
        const link = sidebarLink(page, screen.link);
        await link.click();
        await h1(page, screen.heading).waitFor();
        expect(pathOf(page)).toBe(screen.path);
        expect(await link.getAttribute("data-active")).toBe("true");
        expect(await link.getAttribute("aria-current")).toBe("page");
        const menu = sidebar(page).locator('[data-sidebar="content"]');
        expect(await menu.locator('[data-active="true"]').count()).toBe(1);
        expect(await menu.locator('[aria-current="page"]').count()).toBe(1);
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "an unknown path shows Page Not Found inside the shell",
    async () => {
      const page = await h.signedInPage("/no-such-screen");
      await h1(page, "Page Not Found").waitFor();
      await page.getByText("Did you forget to add the page to the router?").waitFor();
      expect(await sidebarLink(page, "Dashboard").isVisible()).toBe(true);
      expect(await sidebar(page).locator('[data-active="true"]').count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "the theme toggle persists across a reload",
    async () => {
      const page = await h.signedInPage("/");
      await h1(page, "Dashboard").waitFor();
      const htmlIsDark = () => page.evaluate(() => document.documentElement.classList.contains("dark"));
      const stored = () => page.evaluate(() => localStorage.getItem("theme"));
      expect(await htmlIsDark()).toBe(true); // dark by default

      await page.getByRole("button", { name: "Toggle theme" }).click();
      expect(await htmlIsDark()).toBe(false);
      expect(await stored()).toBe("light");
      await page.reload();
      await h1(page, "Dashboard").waitFor();
      expect(await htmlIsDark()).toBe(false);

      await page.getByRole("button", { name: "Toggle theme" }).click();
      expect(await stored()).toBe("dark");
      await page.reload();
      await h1(page, "Dashboard").waitFor();
      expect(await htmlIsDark()).toBe(true);
    },
    TEST_TIMEOUT,
  );

  test(
    "Ctrl+B collapses the sidebar to icons and the sidebar_state cookie keeps it across a reload",
    async () => {
      const page = await h.signedInPage("/");
      await h1(page, "Dashboard").waitFor();
      const cookie = async () =>
        (await page.context().cookies(h.baseUrl)).find((c) => c.name === "sidebar_state")?.value;
      expect(await sidebarWidth(page)).toBe(256); // 16rem

      await page.keyboard.press("Control+b");
      await waitForSidebarWidth(page, 48); // 3rem
      expect(await cookie()).toBe("false");
      const saved = (await page.context().cookies(h.baseUrl)).find((c) => c.name === "sidebar_state");
      expect(saved?.path).toBe("/");
      expect(Math.round((saved?.expires ?? 0) - Date.now() / 1000)).toBeGreaterThan(604_800 - 60);

      await page.reload();
      await h1(page, "Dashboard").waitFor();
      expect(await sidebarWidth(page)).toBe(48);
      expect(await sidebar(page).getAttribute("data-state")).toBe("collapsed");

      // Collapsed, the items show their names as tooltips (no delay in the sidebar).
      await sidebarLink(page, "Trunks").hover();
      await page.getByRole("tooltip", { name: "Trunks" }).waitFor({ timeout: 2000 });

      await page.keyboard.press("Control+b");
      await waitForSidebarWidth(page, 256);
      expect(await cookie()).toBe("true");
    },
    TEST_TIMEOUT,
  );

  test(
    "at 500px the sidebar is a sheet opened by the toggle and closed by following a link",
    async () => {
      const page = await h.signedInPage("/", { viewport: { width: 500, height: 800 } });
      await h1(page, "Dashboard").waitFor();
      expect(await page.getByRole("link", { name: "Trunks", exact: true }).count()).toBe(0);
      expect(await page.getByRole("dialog").count()).toBe(0);

      await page.getByRole("button", { name: "Toggle Sidebar" }).click();
      const sheet = page.getByRole("dialog");
      await sheet.waitFor();
      await page.waitForFunction(() => {
        const box = document.querySelector('[role="dialog"]')?.getBoundingClientRect();
        return box !== undefined && box.x === 0;
      });
      const box = await sheet.boundingBox();
      expect(box?.width).toBe(288); // 18rem

      await sheet.getByRole("link", { name: "Trunks", exact: true }).click();
      await h1(page, "Trunks").waitFor();
      await sheet.waitFor({ state: "detached" });
      expect(pathOf(page)).toBe("/trunks");
    },
    TEST_TIMEOUT,
  );

  test(
    "a 401 from any other API call shows the sign-in page again",
    async () => {
      const page = await h.newPage();
      await h.signInViaApi(page.context());
      // The session expires between GET /api/auth/me and the sidebar's GET /api/info.
      let infoCalls = 0;
      await page.route("**/api/info", (route) => {
        infoCalls += 1;
        return route.fulfill({
          status: 401,
          contentType: "application/json",
          body: '{"error":{"message":"Sign in required"}}',
        });
      });
      await page.goto(`${h.baseUrl}/deployment`);
      await h1(page, "Sign in").waitFor();
      await page.getByRole("region", { name: "Notifications (F8)" }).getByText("Session expired").waitFor();
      expect(pathOf(page)).toBe("/deployment");
      await page.waitForTimeout(500);
      expect(await h1(page, "Sign in").isVisible()).toBe(true); // and it stays there
      expect(infoCalls).toBe(1);
    },
    TEST_TIMEOUT,
  );

  test(
    "a failed sign-out shows one destructive toast that F8 focuses",
    async () => {
      const page = await h.signedInPage("/");
      await h1(page, "Dashboard").waitFor();
      await page.route("**/api/auth/logout", (route) =>
        route.fulfill({ status: 500, contentType: "application/json", body: '{"error":{"message":"boom"}}' }),
      );
      const signOut = page.getByRole("button", { name: "Sign out" });
      await signOut.click();
      const region = page.getByRole("region", { name: "Notifications (F8)" });
      const toast = region.getByRole("listitem");
      await toast.getByText("Sign out failed").waitFor();
      await toast.getByText('500: {"error":{"message":"boom"}}').waitFor();

      await signOut.click(); // a second failure replaces the first: at most one toast
      await page.waitForTimeout(300);
      expect(await region.getByText("Sign out failed").count()).toBe(1);
      expect(await h1(page, "Dashboard").isVisible()).toBe(true); // still signed in

      await page.keyboard.press("F8");
      await page.waitForFunction(() => document.activeElement?.closest('[aria-label="Notifications (F8)"]') != null);
    },
    TEST_TIMEOUT,
  );
});

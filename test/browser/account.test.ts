// The Account card on API Settings (/settings) through chromium against the built binary: the
// sessions list (live through the sync socket), signing out another browser or all others, and the
// password change. Tests run in order and share one server.
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ADMIN, harnessPerFile, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";

const c = harnessPerFile({ viewport: { width: 1280, height: 1000 } });

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";

/** Signs in another "browser" through the API; returns its cookie. */
async function otherBrowser(userAgent = FIREFOX, password = ADMIN.password): Promise<string> {
  const res = await fetch(`${c.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": userAgent },
    body: JSON.stringify({ username: ADMIN.username, password }),
  });
  expect(res.status).toBe(200);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

const statusWith = async (cookie: string) => (await fetch(`${c.baseUrl}/api/info`, { headers: { cookie } })).status;

async function accountCard(page: Page) {
  await page.getByRole("heading", { level: 1, name: "API Settings" }).waitFor();
  const card = page.getByRole("region", { name: "Account", exact: true });
  await card.getByText("This browser").waitFor();
  return card;
}

const rows = (page: Page) => page.getByRole("list", { name: "Sessions list" }).getByRole("listitem");

describe("Account card", () => {
  test(
    "lists the sessions, this browser marked; a new sign-in elsewhere appears live; Sign out ends it",
    async () => {
      const page = await c.signedInPage("/settings");
      const card = await accountCard(page);
      // Signed in elsewhere after the page loaded: the sync socket's sessions-updated refreshes the list.
      const firefox = await otherBrowser();
      const row = rows(page).filter({ hasText: "Firefox on Linux" });
      await row.waitFor();
      await row.getByText(/127\.0\.0\.1 · signed in/).waitFor();
      page.once("dialog", (d) => void d.accept());
      await row.getByRole("button", { name: "Sign out Firefox on Linux (127.0.0.1)" }).click();
      await toastItems(page).filter({ hasText: "Session signed out" }).waitFor();
      await row.waitFor({ state: "detached" });
      expect(await statusWith(firefox)).toBe(401);
      expect(await statusWith(firefox)).toBe(401);
      await card.getByText("This browser").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "Sign out everywhere else leaves only this browser",
    async () => {
      const a = await otherBrowser("Mozilla/5.0 (Windows NT 10.0) Chrome/140.0 Safari/537.36");
      const b = await otherBrowser("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Safari/604.1");
      const page = await c.signedInPage("/settings");
      const card = await accountCard(page);
      await rows(page).filter({ hasText: "Chrome on Windows" }).waitFor();
      await rows(page).filter({ hasText: "Safari on iOS" }).waitFor();
      page.once("dialog", (d) => void d.accept());
      await card.getByRole("button", { name: "Sign out everywhere else" }).click();
      await toastItems(page)
        .filter({ hasText: /other sessions? (was|were) signed out/ })
        .waitFor();
      await page.waitForFunction(
        () => document.querySelectorAll('[aria-label="Sessions list"] li').length === 1,
        undefined,
        { timeout: 5000 },
      );
      expect(await statusWith(a)).toBe(401);
      expect(await statusWith(b)).toBe(401);
      expect(await card.getByRole("button", { name: "Sign out everywhere else" }).isDisabled()).toBe(true);
    },
    TEST_TIMEOUT,
  );

  test(
    "Change Password: checks the repeat in the browser and the current password on the server, then signs out the others",
    async () => {
      const NEW = "a brand new passphrase 42";
      const other = await otherBrowser();
      const page = await c.signedInPage("/settings");
      const card = await accountCard(page);
      const form = card.getByRole("form", { name: "Change password" });
      const fill = async (current: string, next: string, repeat: string) => {
        await form.getByLabel("Current password").fill(current);
        await form.getByLabel("New password", { exact: true }).fill(next);
        await form.getByLabel("Repeat new password").fill(repeat);
        await form.getByRole("button", { name: "Change Password" }).click();
      };

      await fill(ADMIN.password, NEW, "something else entirely");
      await form.getByText("Passwords do not match").waitFor();

      await fill("not the password at all", NEW, NEW);
      await form.getByText("The current password is wrong").waitFor();
      await toastItems(page).filter({ hasText: "Failed to change the password" }).waitFor();
      expect(await statusWith(other)).toBe(200);

      await fill(ADMIN.password, NEW, NEW);
      await toastItems(page).filter({ hasText: "Password changed" }).waitFor();
      expect(await form.getByLabel("Current password").inputValue()).toBe("");
      expect(await statusWith(other)).toBe(401);
      await page.waitForFunction(
        () => document.querySelectorAll('[aria-label="Sessions list"] li').length === 1,
        undefined,
        { timeout: 5000 },
      );
      // This browser is still signed in; put the harness's password back for the other tests.
      await fill(NEW, ADMIN.password, ADMIN.password);
      await page.waitForFunction(
        () => (document.querySelector('input[autocomplete="current-password"]') as HTMLInputElement).value === "",
        undefined,
        { timeout: 5000 },
      );
      await otherBrowser(FIREFOX, ADMIN.password);
    },
    TEST_TIMEOUT,
  );
});

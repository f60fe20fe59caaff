// The harness's shared administrator context (harness.ts, `adminPage`): each test must find it as a new
// context would be, or tests would pass or fail by what an earlier test left behind.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const heading = (name: string) => ({ level: 1 as const, name, exact: true });

describe("the shared administrator context", () => {
  test(
    "a test leaves storage, a cookie, a permission and a signed-out session behind",
    async () => {
      const page = await h.signedInPage("/extensions");
      await page.getByRole("heading", heading("Extensions")).waitFor();
      await page.evaluate(() => {
        localStorage.setItem("left-behind", "1");
        sessionStorage.setItem("left-behind", "1");
      });
      await page.context().addCookies([{ name: "left_behind", value: "1", url: h.baseUrl }]);
      await page.context().grantPermissions(["clipboard-read"], { origin: h.baseUrl });
      // Ends the page's session, as signing out does.
      expect(
        await page.evaluate(
          async () =>
            (
              await fetch("/api/auth/logout", {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: "{}",
              })
            ).status,
        ),
      ).toBeLessThan(300);
    },
    TEST_TIMEOUT,
  );

  test(
    "the next test finds none of it, and is signed in",
    async () => {
      const page = await h.signedInPage("/extensions");
      await page.getByRole("heading", heading("Extensions")).waitFor();
      expect(
        await page.evaluate(() => [localStorage.getItem("left-behind"), sessionStorage.getItem("left-behind")]),
      ).toEqual([null, null]);
      const cookies = (await page.context().cookies(h.baseUrl)).map((c) => c.name);
      expect(cookies).not.toContain("left_behind");
      const clipboard = await page.evaluate(
        async () => (await navigator.permissions.query({ name: "clipboard-read" as PermissionName })).state,
      );
      expect(clipboard).not.toBe("granted");
      expect(await page.evaluate(async () => (await (await fetch("/api/auth/me")).json()).authenticated)).toBe(true);
    },
    TEST_TIMEOUT,
  );
});

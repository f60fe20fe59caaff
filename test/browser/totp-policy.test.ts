// Two-factor sign-in required for everyone, through chromium against the built binary: the administrator
// cannot require it before turning on their own; once they have, the switch on the Users screen's Security
// card turns it on; a second user who signs in sees only the enrolment screen, sets it up (the code is
// computed here from the secret the page shows), sees the recovery codes once, then the console.
import { describe, expect, test } from "bun:test";
import { harnessPerFile, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";
import { enrolInSection } from "./totp-ui";

const c = harnessPerFile({ viewport: { width: 1280, height: 1000 } });

const ENROLLEE = { username: "enrollee", password: "enrollee password 1" };

describe("two-factor sign-in required for everyone", () => {
  test(
    "the administrator requires it on the Users screen; another user enrols before reaching the console",
    async () => {
      // Added while the administrator's API session needs no code.
      expect((await c.api("POST", "/api/users", { ...ENROLLEE, role: "operator" })).status).toBe(201);

      const admin = await c.signedInPage("/users");
      const security = admin.getByRole("region", { name: "Security" });
      const requirement = security.getByRole("switch", { name: "Require two-factor sign-in for everyone" });
      await requirement.waitFor();
      expect(await requirement.getAttribute("aria-checked")).toBe("false");
      // Not before the administrator's own two-factor sign-in is on.
      await requirement.click();
      await toastItems(admin).filter({ hasText: "Turn on your own two-factor sign-in" }).waitFor();
      expect(await requirement.getAttribute("aria-checked")).toBe("false");

      // The administrator's own, on the Account card.
      await admin.getByRole("link", { name: "API Settings" }).click();
      const own = admin.getByRole("region", { name: "Account", exact: true }).getByRole("region", {
        name: "Two-factor sign-in",
      });
      await enrolInSection(own);
      await own.getByRole("button", { name: "Done" }).click();
      await own.getByRole("button", { name: "Turn Off" }).waitFor();

      await admin.getByRole("link", { name: "Users" }).click();
      await requirement.click();
      await toastItems(admin).filter({ hasText: "Two-factor sign-in is required for everyone" }).waitFor();
      await admin.waitForFunction(
        (el) => el?.getAttribute("aria-checked") === "true",
        await requirement.elementHandle(),
      );

      // The second user: the password signs in, to the enrolment screen and nothing else.
      const page = await c.newPage();
      await page.goto(`${c.baseUrl}/extensions`);
      await c.signInViaUi(page, ENROLLEE);
      await page.getByRole("heading", { name: "Set up two-factor sign-in" }).waitFor();
      expect(await page.getByRole("link", { name: "Extensions" }).count()).toBe(0);
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      const section = page.getByRole("region", { name: "Two-factor sign-in" });
      await enrolInSection(section);
      // Still the enrolment screen while the codes are shown; closing them opens the console asked for.
      expect(await page.getByRole("link", { name: "Extensions" }).count()).toBe(0);
      await section.getByRole("button", { name: "Done" }).click();
      await page.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
      await page.getByRole("button", { name: "Add Extension" }).waitFor();
      expect(await page.getByTestId("signed-in-user").textContent()).toBe(ENROLLEE.username);
      expect(await page.getByRole("heading", { name: "Set up two-factor sign-in" }).count()).toBe(0);
    },
    TEST_TIMEOUT * 2,
  );
});

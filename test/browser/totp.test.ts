// Two-factor sign-in through chromium against the built binary: set it up on the Account card (the
// code is computed here from the secret the page shows), see the recovery codes once, then sign in
// with the password and the Code field the sign-in page adds.
import { describe, expect, test } from "bun:test";
import { totp } from "../../src/server/accounts/totp";
import { harnessPerFile, TEST_TIMEOUT } from "./harness";
import { awayFromStepEnd, enrolInSection } from "./totp-ui";

const c = harnessPerFile({ viewport: { width: 1280, height: 1000 } });

describe("two-factor sign-in", () => {
  test(
    "set up on the Account card, then sign in with the code",
    async () => {
      const page = await c.signedInPage("/settings");
      const section = page.getByRole("region", { name: "Account", exact: true }).getByRole("region", {
        name: "Two-factor sign-in",
      });
      const { secret } = await enrolInSection(section);
      await section.getByRole("button", { name: "Done" }).click();
      await section.getByText("On", { exact: true }).waitFor();
      await section.getByRole("button", { name: "Turn Off" }).waitFor();

      // Sign in from a new browser: the password alone asks for the code.
      const fresh = await c.newPage();
      await fresh.goto(c.baseUrl);
      await c.signInViaUi(fresh);
      const code = fresh.getByLabel("Code");
      await code.waitFor();
      await fresh.getByText("Enter the 6-digit code from your authenticator app").waitFor();
      // The next step's code (one step of skew is accepted; the enable used up the current one).
      await awayFromStepEnd();
      await code.fill(totp(secret, Date.now() + 30_000));
      await fresh.getByRole("button", { name: "Sign in" }).click();
      await fresh.getByRole("heading", { name: "Sign in" }).waitFor({ state: "detached" });
      const me = await fresh.evaluate(async () => (await fetch("/api/auth/me")).json());
      expect(me.authenticated).toBe(true);
    },
    TEST_TIMEOUT * 2,
  );
});

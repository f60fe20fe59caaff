/** Two-factor enrolment through the UI, shared by the browser tests that need it. */
import { expect } from "bun:test";
import type { Locator } from "playwright-core";
import { totp } from "../../src/server/accounts/totp";

/** Waits while the clock is in the last seconds of a 30-second step, so a code does not expire on the way. */
export async function awayFromStepEnd() {
  while (Date.now() % 30_000 > 26_000) await Bun.sleep(250);
}

/**
 * In a "Two-factor sign-in" section: Set Up, read the secret under the QR code, Turn On with a current code.
 * Answers the secret and the recovery code items (shown once; "Done" is left to the caller).
 */
export async function enrolInSection(section: Locator): Promise<{ secret: string; codes: Locator }> {
  await section.getByRole("button", { name: "Set Up" }).click();
  await section.getByRole("img", { name: "QR code of the two-factor secret" }).waitFor();
  const secret = (await section.getByTestId("totp-secret").textContent()) ?? "";
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await awayFromStepEnd();
  await section.getByLabel("Code").fill(totp(secret, Date.now()));
  await section.getByRole("button", { name: "Turn On" }).click();
  const codes = section.getByRole("region", { name: "Recovery codes" }).getByRole("listitem");
  await codes.first().waitFor();
  expect(await codes.count()).toBe(10);
  return { secret, codes };
}

/**
 * The review dialog every deploy button opens (ADR 0025), for browser tests: wait for the plan, choose
 * conflicts' resolutions, Apply.
 */
import type { Locator, Page } from "playwright-core";
import { waitEnabled } from "./harness";

export const reviewDialog = (page: Page): Locator => page.getByRole("dialog", { name: /^Review: deploy/ });
export const applyButton = (page: Page): Locator => reviewDialog(page).getByRole("button", { name: /^Apply/ });

/** Waits for the plan in the open review dialog, adopts the named conflicts, applies; the dialog closes. */
export async function applyReview(page: Page, opts: { adopt?: string[]; timeout?: number } = {}): Promise<void> {
  const dialog = reviewDialog(page);
  await dialog.getByRole("list", { name: "Plan counts" }).waitFor({ timeout: opts.timeout ?? 20_000 });
  for (const label of opts.adopt ?? [])
    await dialog
      .getByRole("group", { name: `Resolve ${label}` })
      .getByRole("button", { name: "Adopt" })
      .click();
  await waitEnabled(applyButton(page));
  await applyButton(page).click();
  await dialog.waitFor({ state: "hidden", timeout: opts.timeout ?? 20_000 });
}

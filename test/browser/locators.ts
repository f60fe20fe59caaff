/** Locators and small UI steps several browser tests share. */
import type { Locator, Page } from "playwright-core";

/**
 * The toast region, found by attribute, not role: while a modal dialog is open Radix marks
 * everything outside it aria-hidden, the toast region included.
 */
export const toasts = (page: Page) => page.locator('[aria-label="Notifications (F8)"]');

/** The toasts themselves, by CSS (so also while a modal dialog hides the region from roles). */
export const toastItems = (page: Page) => page.locator('[role="region"][aria-label="Notifications (F8)"] li');

/** The toasts as the accessibility tree sees them (none while a modal dialog is open). */
export const toastListItems = (page: Page) =>
  page.getByRole("region", { name: "Notifications (F8)" }).getByRole("listitem");

/** Picks `option` in the Radix select labelled `label` inside `scope`. */
export async function chooseOption(page: Page, scope: Locator, label: string, option: string) {
  await scope.getByLabel(label, { exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

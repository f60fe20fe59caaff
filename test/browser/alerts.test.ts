// The Alerts screen's rules, firing alerts and history through chromium against the built binary: a rule made in
// the dialog (its fields follow the kind; a bad value is refused under its field), the engine firing it on the
// real host's disk within a pass and the alert appearing without a reload (on the screen and on the Dashboard),
// an edit that ends it (resolved in the history with how long it lasted), axe, the keyboard and a delete.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { AlertRule } from "../../src/shared/alerts";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1400, height: 1000 } });
});
afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
});

async function alertsPage(): Promise<Page> {
  const page = await h.signedInPage("/alerts");
  await page.getByRole("heading", { level: 1, name: "Alerts" }).waitFor();
  return page;
}
const rulesTable = (page: Page) => page.getByRole("table", { name: "Alert rules" });
const firingTable = (page: Page) => page.getByRole("table", { name: "Alerts firing now" });
const historyTable = (page: Page) => page.getByRole("table", { name: "Alert history" });

test(
  "a rule made in the dialog fires on the host's disk, live on the screen and the Dashboard",
  async () => {
    const page = await alertsPage();
    await page.getByText("Nothing is firing.", { exact: true }).waitFor();
    await page.getByText(/^No rules yet\./).waitFor();

    await page.getByRole("button", { name: "Add Rule" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Alert Rule" });
    // The fields follow the kind: an extension and seconds, then a percent and seconds.
    await dialog.getByLabel("Extension", { exact: true }).waitFor();
    await chooseOption(page, dialog, "Watches", "Disk usage");
    await dialog.getByLabel("Extension", { exact: true }).waitFor({ state: "detached" });
    expect(await dialog.getByLabel("Percent", { exact: true }).inputValue()).toBe("90");
    await dialog.getByLabel("Name", { exact: true }).fill("Disk filling up");
    await dialog.getByLabel("Percent", { exact: true }).fill("101");
    await dialog.getByRole("button", { name: "Create Rule" }).click();
    await dialog.getByText("Percent must be at most 100", { exact: true }).waitFor();
    expect(await h.apiJson<AlertRule[]>("GET", "/api/alerts/rules")).toEqual([]);
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });

    // Any used disk is over 1 %: the next pass fires it.
    await dialog.getByLabel("Percent", { exact: true }).fill("1");
    await dialog.getByLabel("For at least (seconds)", { exact: true }).fill("0");
    await dialog.getByRole("button", { name: "Create Rule" }).click();
    await dialog.waitFor({ state: "hidden" });
    const row = rulesTable(page).locator('tr[data-rule="Disk filling up"]');
    await row.getByText("at 1 % or more, at once").waitFor();

    const alert = firingTable(page).locator('tr[data-alert="disk"]');
    await alert.getByText(/^The disk is [\d.]+% full \(the rule's limit is 1%\)$/).waitFor({ timeout: 15_000 });
    await alert.getByText("Firing", { exact: true }).waitFor();
    await page.getByTestId("firing-count").filter({ hasText: "1" }).waitFor();
    await row.getByText("1 firing", { exact: true }).waitFor();
    await historyTable(page).locator('tr[data-alert="disk"][data-alert-state="firing"]').waitFor();
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });

    await page.getByRole("link", { name: "Dashboard", exact: true }).click();
    const notice = page.getByTestId("firing-alerts-notice");
    await notice.getByText("1 alert is firing.").waitFor();
    await notice.getByRole("link", { name: "Open Alerts" }).click();
    await page.getByRole("heading", { level: 1, name: "Alerts" }).waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "an edit ends the alert (resolved in the history); the keyboard reaches Delete, which asks first",
  async () => {
    const page = await alertsPage();
    const row = rulesTable(page).locator('tr[data-rule="Disk filling up"]');
    await row.getByRole("button", { name: "Edit rule Disk filling up" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Alert Rule" });
    expect(await dialog.getByLabel("Percent", { exact: true }).inputValue()).toBe("1");
    await dialog.getByLabel("Percent", { exact: true }).fill("100");
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await dialog.waitFor({ state: "hidden" });

    await page.getByText("Nothing is firing.", { exact: true }).waitFor({ timeout: 15_000 });
    const resolved = historyTable(page).locator('tr[data-alert="disk"][data-alert-state="resolved"]');
    await resolved.getByText("Resolved", { exact: true }).waitFor();
    await chooseOption(page, page.getByRole("region", { name: "History" }), "Show", "Resolved");
    await historyTable(page).locator('tr[data-alert-state="resolved"]').first().waitFor();
    expect(await historyTable(page).locator('tr[data-alert-state="firing"]').count()).toBe(0);

    page.once("dialog", (d) => void d.accept());
    const remove = row.getByRole("button", { name: "Delete rule Disk filling up" });
    await remove.focus();
    await page.keyboard.press("Enter");
    await page.getByText(/^No rules yet\./).waitFor();
    expect(await h.apiJson<AlertRule[]>("GET", "/api/alerts/rules")).toEqual([]);
    // The history keeps the alert under the deleted rule's name.
    await historyTable(page)
      .getByText(/Disk filling up/)
      .first()
      .waitFor();
  },
  TEST_TIMEOUT,
);

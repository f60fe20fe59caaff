// The Extensions table (ADR 0041) through chromium against the built binary: sorting,
// the filter, the column choice, select all matching with a bulk voicemail edit, a bulk delete with one
// blocked, keyboard navigation, and 5,000 rows mounted virtually. Tests run in order on one server.
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Extension } from "../../src/shared/inventory";
import { harnessPerFile, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";

const h = harnessPerFile();

const listExtensions = () => h.apiJson<Extension[]>("GET", "/api/extensions");

const SEED = [
  { extension: "1001", name: "Zoe Sales", email: "zoe@example.com" },
  { extension: "1002", name: "adam Sales", email: "adam@example.com" },
  { extension: "1010", name: "Mia Support", email: null },
  { extension: "900", name: "Bob Support", email: "bob@example.com" },
  { extension: "1100", name: "Carl Sales", email: "carl@example.com" },
];

async function tablePage(): Promise<Page> {
  const page = await h.signedInPage("/extensions");
  // The app's table, not the server's picture of it (ADR 0047), which has the same rows until the app
  // takes over: on a slow run the swap came after a row was seen and counted as 78 changes of a still page.
  await page.locator("#prerender").waitFor({ state: "detached" });
  await page.getByRole("table", { name: "Extensions" }).waitFor();
  return page;
}

const rows = (page: Page) => page.getByTestId("extension-row");
const rowFor = (page: Page, number: string) =>
  page.locator(`[data-testid="extension-row"][data-extension="${number}"]`);
const order = (page: Page) => rows(page).evaluateAll((els) => els.map((el) => el.getAttribute("data-extension")));
const header = (page: Page, name: string) => page.getByRole("columnheader", { name, exact: true });
const focusedRow = (page: Page) =>
  page.evaluate(() => document.activeElement?.closest("[data-testid='extension-row']")?.getAttribute("data-extension"));

describe("extensions table", () => {
  test(
    "sorts by any column from its header, with aria-sort",
    async () => {
      for (const e of SEED) await h.apiJson("POST", "/api/extensions", e);
      const page = await tablePage();
      await rowFor(page, "1100").waitFor();
      expect(await order(page)).toEqual(["900", "1001", "1002", "1010", "1100"]);
      expect(await header(page, "Extension").getAttribute("aria-sort")).toBe("ascending");
      expect(await header(page, "Name").getAttribute("aria-sort")).toBe("none");

      await header(page, "Name").getByRole("button").click();
      expect(await header(page, "Name").getAttribute("aria-sort")).toBe("ascending");
      expect(await header(page, "Extension").getAttribute("aria-sort")).toBe("none");
      // Case does not decide the order ("adam" before "Bob").
      expect(await order(page)).toEqual(["1002", "900", "1100", "1010", "1001"]);
      await header(page, "Name").getByRole("button").click();
      expect(await header(page, "Name").getAttribute("aria-sort")).toBe("descending");
      expect(await order(page)).toEqual(["1001", "1010", "1100", "900", "1002"]);

      await header(page, "Email").getByRole("button").click();
      expect((await order(page)).slice(1)).toEqual(["1002", "900", "1100", "1001"]);
      await header(page, "Extension").getByRole("button").click();
      expect(await order(page)).toEqual(["900", "1001", "1002", "1010", "1100"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "a shown table is still: nothing in the page changes while nobody acts (no render loop)",
    async () => {
      const page = await tablePage();
      await rowFor(page, "1100").waitFor();
      // TanStack Table re-rendered forever once when it was given a new array per render (ADR 0045).
      const changes = await page.evaluate(
        () =>
          new Promise<number>((done) => {
            let n = 0;
            const watch = new MutationObserver((list) => {
              n += list.length;
            });
            watch.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
            setTimeout(() => {
              watch.disconnect();
              done(n);
            }, 1500);
          }),
      );
      expect(changes).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "the filter keeps the rows that match number, name or email",
    async () => {
      const page = await tablePage();
      await rowFor(page, "1100").waitFor();
      const filter = page.getByRole("searchbox", { name: "Filter extensions" });
      await filter.fill("SUPPORT");
      await page.getByTestId("extension-count").getByText("2 of 5").waitFor();
      expect(await order(page)).toEqual(["900", "1010"]);
      await filter.fill("adam@");
      await page.getByTestId("extension-count").getByText("1 of 5").waitFor();
      expect(await order(page)).toEqual(["1002"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "the column choice hides a column and is remembered after a reload",
    async () => {
      const page = await tablePage();
      await rowFor(page, "1001").waitFor();
      await header(page, "Email").waitFor();
      await page.getByRole("button", { name: "Columns" }).click();
      const item = page.getByRole("menuitemcheckbox", { name: "Email", exact: true });
      await item.click();
      // The menu stays open for the next choice; closed, the table has no Email column.
      expect(await item.getAttribute("aria-checked")).toBe("false");
      await page.keyboard.press("Escape");
      await item.waitFor({ state: "detached" });
      await header(page, "Name").waitFor();
      expect(await header(page, "Email").count()).toBe(0);
      expect(await rowFor(page, "1001").getByText("zoe@example.com").count()).toBe(0);

      await page.reload();
      await rowFor(page, "1001").waitFor();
      expect(await header(page, "Email").count()).toBe(0);
      await header(page, "Name").waitFor();

      await page.getByRole("button", { name: "Columns" }).click();
      const email = page.getByRole("menuitemcheckbox", { name: "Email", exact: true });
      expect(await email.getAttribute("aria-checked")).toBe("false");
      await email.click();
      expect(await email.getAttribute("aria-checked")).toBe("true");
      await page.keyboard.press("Escape");
      await header(page, "Email").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "select all matching the filter, then set voicemail on all of them at once",
    async () => {
      const page = await tablePage();
      await rowFor(page, "1100").waitFor();
      await page.getByRole("searchbox", { name: "Filter extensions" }).fill("sales");
      await page.getByTestId("extension-count").getByText("3 of 5").waitFor();
      await page.getByRole("checkbox", { name: "Select all 3 matching" }).check();
      await page.getByTestId("selected-count").getByText("3 selected").waitFor();
      for (const ext of ["1001", "1002", "1100"]) {
        expect(await rowFor(page, ext).getAttribute("aria-selected")).toBe("true");
      }

      await page.getByRole("button", { name: "Edit selected" }).click();
      const dialog = page.getByRole("dialog", { name: "Edit 3 extensions" });
      await dialog.getByRole("radio", { name: "On" }).check();
      await dialog.getByRole("button", { name: "Apply to 3 extensions" }).click();
      await toastItems(page).getByText("3 extensions updated", { exact: true }).waitFor();
      await dialog.waitFor({ state: "detached" });
      for (const ext of ["1001", "1002", "1100"]) await rowFor(page, ext).getByTestId("voicemail-on").waitFor();

      const stored = await listExtensions();
      expect(stored.filter((e) => e.voicemail).map((e) => e.extension)).toEqual(["1001", "1002", "1100"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "a bulk delete names the count and the one a PTT group keeps, then deletes the others",
    async () => {
      await h.apiJson("POST", "/api/ptt-groups", { name: "Floor", extension: "1900", members: ["1002"], duplex: true });
      const page = await tablePage();
      await rowFor(page, "1100").waitFor();
      for (const ext of ["1002", "1010", "1100"]) {
        await rowFor(page, ext)
          .getByRole("checkbox", { name: `Select extension ${ext}` })
          .check();
      }
      await page.getByTestId("selected-count").getByText("3 selected").waitFor();
      await page.getByRole("button", { name: "Delete selected" }).click();
      const dialog = page.getByRole("dialog", { name: "Delete 3 extensions?" });
      await dialog.getByText("2 extensions will be deleted.", { exact: false }).waitFor();
      await dialog
        .getByTestId("bulk-delete-blocked")
        .getByText("Extension 1002 is a member of PTT group(s): Floor. Remove it there first.")
        .waitFor();
      await dialog.getByRole("button", { name: "Delete 2 extensions" }).click();
      await toastItems(page).getByText("2 extensions deleted", { exact: true }).waitFor();
      await rowFor(page, "1100").waitFor({ state: "detached" });
      await rowFor(page, "1010").waitFor({ state: "detached" });
      // The kept one stays selected; the deleted ones leave the selection.
      await page.getByTestId("selected-count").getByText("1 selected").waitFor();
      expect((await listExtensions()).map((e) => e.extension)).toEqual(["900", "1001", "1002"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "arrow keys move between rows, Space selects, Enter opens the row's edit and focus comes back",
    async () => {
      const page = await tablePage();
      await rowFor(page, "1002").waitFor();
      // A click in a row makes it the keyboard's row.
      await rowFor(page, "900").locator("td").nth(2).click();
      expect(await focusedRow(page)).toBe("900");
      await page.keyboard.press("ArrowDown");
      expect(await focusedRow(page)).toBe("1001");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      expect(await focusedRow(page)).toBe("1002");
      await page.keyboard.press("ArrowUp");
      expect(await focusedRow(page)).toBe("1001");
      await page.keyboard.press("Space");
      expect(await rowFor(page, "1001").getAttribute("aria-selected")).toBe("true");
      await page.keyboard.press("Space");
      expect(await rowFor(page, "1001").getAttribute("aria-selected")).toBe("false");
      await page.keyboard.press("Home");
      expect(await focusedRow(page)).toBe("900");
      await page.keyboard.press("End");
      expect(await focusedRow(page)).toBe("1002");

      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Edit Extension" });
      await dialog.waitFor();
      expect(await dialog.getByLabel("Extension", { exact: true }).inputValue()).toBe("1002");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-extension") === "1002");
    },
    TEST_TIMEOUT,
  );
});

describe("5,000 extensions", () => {
  test("mount only the rows near the viewport; the last is reachable by keyboard", async () => {
    const TOTAL = 5000;
    await h.importExtensions(
      Array.from({ length: TOTAL }, (_, i) => ({ extension: String(30_000 + i), name: `Scale ${i}` })),
    );
    const page = await tablePage();
    const total = (await listExtensions()).length;
    await page
      .getByTestId("extension-count")
      .getByText(`${total.toLocaleString("en-US")} extensions`)
      .waitFor({ timeout: 15_000 });
    expect(await page.locator("tbody tr").count()).toBeLessThan(200);
    expect(await page.getByRole("table", { name: "Extensions" }).getAttribute("aria-rowcount")).toBe(String(total + 1));

    await rowFor(page, "900").focus();
    await page.keyboard.press("End");
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-extension") === "34999");
    expect(await page.locator("tbody tr").count()).toBeLessThan(200);
    expect(await rowFor(page, "900").count()).toBe(0);
  }, 120_000);
});

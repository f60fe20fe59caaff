// CSV in and out in FreePBX's Bulk Handler format, through chromium against the built
// binary (ADR 0038): choose a file → the preview's verdicts (nothing saved) → "Import N rows" → the toast
// with the counts, and the rows on the screen; a file with an invalid row cannot be imported; big files
// mount only the rows in view; Export CSV downloads what the import reads back.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import type { Extension, InboundRoute } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.apiJson("POST", "/api/extensions", { extension: "1001", name: "Existing Person" });
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listExtensions = () => h.apiJson<Extension[]>("GET", "/api/extensions");

async function openImport(path: string, heading: string, title: string): Promise<{ page: Page; dialog: Locator }> {
  const page = await h.signedInPage(path);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await page.getByRole("button", { name: "Import CSV" }).click();
  const dialog = page.getByRole("dialog", { name: title });
  await dialog.waitFor();
  return { page, dialog };
}

const choose = (dialog: Locator, name: string, text: string) =>
  dialog.getByLabel("CSV file").setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(text) });

const count = (dialog: Locator, verdict: string) => dialog.getByTestId(`count-${verdict}`);
const row = (dialog: Locator, line: number) =>
  dialog
    .getByRole("table", { name: "Import preview" })
    .getByRole("row")
    .filter({ has: dialog.page().getByRole("cell", { name: String(line), exact: true }) });

describe("extensions", () => {
  test(
    "a file with an invalid row: the preview says why, Import stays disabled, nothing is saved",
    async () => {
      const { dialog } = await openImport("/extensions", "Extensions", "Import extensions");
      await choose(
        dialog,
        "broken.csv",
        "extension,name,tech\n1001,Renamed,pjsip\n1002,New One,pjsip\n10x3,Bad,pjsip\n",
      );
      await count(dialog, "invalid").getByText("Invalid: 1").waitFor();
      expect(await count(dialog, "new").textContent()).toBe("New: 1");
      expect(await count(dialog, "changed").textContent()).toBe("Changed: 1");
      await row(dialog, 4).getByText("Extension must contain digits only").waitFor();
      await row(dialog, 2).getByText("Changes name").waitFor();
      expect(await dialog.getByRole("button", { name: "Import 2 rows" }).isDisabled()).toBe(true);
      await dialog.getByText("Fix the 1 invalid row in the file and choose it again").waitFor();
      expect((await listExtensions()).map((e) => [e.extension, e.name])).toEqual([["1001", "Existing Person"]]);
    },
    TEST_TIMEOUT,
  );

  test(
    "upload → preview verdicts (nothing saved) → Import 3 rows → toast with the counts → rows on the screen",
    async () => {
      const { page, dialog } = await openImport("/extensions", "Extensions", "Import extensions");
      const text = [
        "extension,name,description,tech,secret,voicemail,findmefollow_enabled",
        "1001,Existing Renamed,,pjsip,REGEN,novm,",
        '1002,"Imported, Bob",,pjsip,,default,yes',
        "1003,Imported Carol,,pjsip,,novm,",
      ].join("\r\n");
      await choose(dialog, "extensions.csv", text);
      await count(dialog, "new").getByText("New: 2").waitFor();
      expect(await count(dialog, "changed").textContent()).toBe("Changed: 1");
      expect(await count(dialog, "invalid").textContent()).toBe("Invalid: 0");
      await dialog.getByText(/column the console does not model is ignored .*findmefollow_enabled/).waitFor();
      await row(dialog, 3).getByText("new", { exact: true }).waitFor();
      // The preview saved nothing.
      expect((await listExtensions()).length).toBe(1);

      const sent = page.waitForRequest((r) => r.url().endsWith("/api/extensions/import") && r.method() === "POST");
      await dialog.getByRole("button", { name: "Import 3 rows" }).click();
      expect((await sent).headers()["content-type"]).toBe("text/csv");
      await toasts(page).getByText("Imported extensions", { exact: true }).waitFor();
      await toasts(page).getByText("2 new, 1 changed, 0 unchanged").waitFor();
      await dialog.waitFor({ state: "detached" });
      await page.getByText("Imported, Bob").first().waitFor();
      await page.getByText("Existing Renamed").first().waitFor();
      expect((await listExtensions()).map((e) => [e.extension, e.name, e.voicemail])).toEqual([
        ["1001", "Existing Renamed", false],
        ["1002", "Imported, Bob", true],
        ["1003", "Imported Carol", false],
      ]);
    },
    TEST_TIMEOUT,
  );

  test(
    "Export CSV downloads Bulk Handler's columns; importing it back changes nothing",
    async () => {
      const page = await h.signedInPage("/extensions");
      await page.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Export CSV" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("extensions.csv");
      const text = readFileSync((await download.path()) as string, "utf8");
      expect(text.split("\r\n")[0]).toStartWith("extension,name,description,tech,secret,");
      await page.getByRole("button", { name: "Import CSV" }).click();
      const dialog = page.getByRole("dialog", { name: "Import extensions" });
      await choose(dialog, "extensions.csv", text);
      await count(dialog, "unchanged").getByText("Unchanged: 3").waitFor();
      expect(await dialog.getByRole("button", { name: "Nothing to import" }).isDisabled()).toBe(true);
    },
    TEST_TIMEOUT,
  );

  test(
    "a big file: every verdict counted, only the rows in view mounted",
    async () => {
      const lines = ["extension,name"];
      for (let i = 0; i < 3000; i++) lines.push(`${30000 + i},Bulk ${i}`);
      const { dialog } = await openImport("/extensions", "Extensions", "Import extensions");
      await choose(dialog, "big.csv", lines.join("\n"));
      await count(dialog, "new").getByText("New: 3000").waitFor();
      const mounted = await dialog.locator("tbody tr[data-verdict]").count();
      expect(mounted).toBeGreaterThan(5);
      expect(mounted).toBeLessThan(100);
      expect(await dialog.getByRole("table", { name: "Import preview" }).getAttribute("aria-rowcount")).toBe("3001");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      expect((await listExtensions()).length).toBe(3);
    },
    TEST_TIMEOUT,
  );
});

describe("inbound routes", () => {
  test(
    "a FreePBX DIDs export imports: verdicts, Import, toast, the routes' cards",
    async () => {
      const file = readFileSync(join(import.meta.dir, "../fixtures/freepbx/bulk-dids.csv"), "utf8");
      const { page, dialog } = await openImport("/inbound-routes", "Inbound Routes", "Import inbound routes");
      await choose(dialog, "dids.csv", file);
      await count(dialog, "new").getByText("New: 3").waitFor();
      // FreePBX's own columns (privacy manager, music, the fax module's…) are named as ignored.
      await dialog.getByText(/17 columns the console does not model are ignored .*privacyman.* and 5 more/).waitFor();
      expect((await h.apiJson<InboundRoute[]>("GET", "/api/inbound-routes")).length).toBe(0);
      await dialog.getByRole("button", { name: "Import 3 rows" }).click();
      await toasts(page).getByText("Imported inbound routes", { exact: true }).waitFor();
      await dialog.waitFor({ state: "detached" });
      const cards = page.getByRole("list", { name: "Inbound routes" });
      await cards.getByText("Main line").waitFor();
      await cards.getByText("After hours").waitFor();
      expect((await h.apiJson<InboundRoute[]>("GET", "/api/inbound-routes")).length).toBe(3);
    },
    TEST_TIMEOUT,
  );
});

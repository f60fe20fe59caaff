// Configuration as code on the Deployment screen (ADR 0075), through chromium against the built binary: Export
// YAML downloads the console's document (no secret in it); the same document edited and chosen again opens the
// review with the field-level change, and Apply changes exactly that; a refused document lists each problem at
// its path and writes nothing.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import type { Extension } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toasts } from "./locators";

let h: Harness;
const SECRET = "Browser-Secret-27182-x";

beforeAll(async () => {
  h = await startHarness();
  await h.apiJson("POST", "/api/extensions", { extension: "1001", name: "Alice", secret: SECRET });
  await h.apiJson("POST", "/api/extensions", { extension: "1002", name: "Bob" });
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const names = async () => (await h.apiJson<Extension[]>("GET", "/api/extensions")).map((e) => e.name);

async function deployment(): Promise<Page> {
  const page = await h.signedInPage("/deployment");
  await page.getByText("Configuration as Code", { exact: true }).waitFor();
  return page;
}

const choose = (page: Page, name: string, text: string) =>
  page.getByLabel("Plan a document").setInputFiles({ name, mimeType: "application/yaml", buffer: Buffer.from(text) });

describe("configuration as code", () => {
  test(
    "Export YAML → edit → plan: the review shows the change field by field; Apply changes exactly that",
    async () => {
      const page = await deployment();
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Export YAML" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("pbx-config.yaml");
      const yaml = readFileSync((await download.path()) as string, "utf8");
      expect(yaml).toContain("ref: extensions/1001");
      expect(yaml).not.toContain(SECRET);

      await choose(page, "pbx-config.yaml", yaml.replace("name: Bob", "name: Robert"));
      const dialog = page.getByTestId("document-review-dialog");
      await dialog.getByRole("heading", { name: "Review: apply pbx-config.yaml" }).waitFor();
      expect(await dialog.getByTestId("count-update").textContent()).toBe("1 to update");
      expect(await dialog.getByTestId("count-unchanged").textContent()).toBe("1 unchanged");
      const item = dialog.getByRole("listitem", { name: "Extension 1002 - Robert" });
      expect(await item.getByTestId("field-change").textContent()).toBe("nameBobRobert");
      expect(await names()).toEqual(["Alice", "Bob"]);

      await dialog.getByRole("button", { name: "Apply (1 change)" }).click();
      await toasts(page).getByText("1 updated").waitFor();
      expect(await names()).toEqual(["Alice", "Robert"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "a refused document: each problem at its path, no review, nothing written",
    async () => {
      const page = await deployment();
      await choose(
        page,
        "broken.yaml",
        "version: 1\nextensions:\n  - extension: '1003'\n    name: Carol\n    secret: short\noutboundRoutes:\n  - name: Out\n    trunk: nowhere\n    dialPatterns: ['9.']\n",
      );
      const problems = page.getByTestId("document-problems");
      await problems.getByText("The document cannot be applied (2 problems):").waitFor();
      await problems.getByText("extensions[0].secret", { exact: true }).waitFor();
      await problems.getByText("outboundRoutes[0].trunk", { exact: true }).waitFor();
      await problems.getByText(/No trunk named nowhere/).waitFor();
      expect(await page.getByTestId("document-review-dialog").count()).toBe(0);
      expect(await names()).toEqual(["Alice", "Robert"]);
    },
    TEST_TIMEOUT,
  );
});

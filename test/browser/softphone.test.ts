// The softphone page (/sangoma-talk) through chromium against the built binary. Tests run in order on
// one server: the PTT list starts empty, then extensions and groups are added through the API.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import type { Page } from "playwright-core";
import { PNG } from "pngjs";
import type { ProvisioningConfig } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterEach(() => h?.closePages());
afterAll(() => h?.stop());

async function softphonePage(): Promise<Page> {
  const page = await h.signedInPage("/sangoma-talk");
  await page.getByRole("heading", { level: 1, name: "Sangoma Talk Configuration" }).waitFor();
  return page;
}

const tab = (page: Page, name: string) => page.getByRole("tab", { name, exact: true });
const panel = (page: Page) => page.getByRole("tabpanel");

function decodeQr(dataUrl: string): string {
  expect(dataUrl.startsWith("data:image/png;base64,")).toBe(true);
  const png = PNG.sync.read(Buffer.from(dataUrl.slice("data:image/png;base64,".length), "base64"));
  const code = jsQR(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  );
  if (!code) throw new Error("no QR code found in the image");
  return code.data;
}

function provisioningPayload(link: string): ProvisioningConfig {
  expect(link.startsWith("pbxconsole://provision?config=")).toBe(true);
  const encoded = decodeURIComponent(link.slice("pbxconsole://provision?config=".length));
  return JSON.parse(Buffer.from(encoded, "base64").toString("utf8"));
}

async function chooseExtension(page: Page, label: string) {
  const select = page.getByRole("combobox", { name: "Extension" });
  await select.locator("option", { hasText: label }).waitFor({ state: "attached" });
  await select.selectOption({ label });
}

describe("softphone page", () => {
  test(
    "the badge shows; Generate without an extension says No Extension Selected; Provision asks for one first",
    async () => {
      const page = await softphonePage();
      await page.getByText("Mobile soft client", { exact: true }).waitFor();
      expect(await tab(page, "Configure").getAttribute("aria-selected")).toBe("true");

      await page.getByRole("button", { name: "Generate QR Code" }).click();
      const t = toastItems(page);
      await t.getByText("No Extension Selected", { exact: true }).waitFor();
      await t.getByText("Please select an extension to configure", { exact: true }).waitFor();
      expect(await t.getAttribute("class")).toContain("destructive");
      expect(await tab(page, "Configure").getAttribute("aria-selected")).toBe("true");

      await tab(page, "Provision").click();
      await panel(page)
        .getByText(/Generate a configuration .* first/)
        .waitFor();
      expect(await panel(page).getByRole("img").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "with no groups the PTT tab says so",
    async () => {
      const page = await softphonePage();
      await tab(page, "PTT/Paging").click();
      await panel(page).getByText("No PTT groups configured", { exact: true }).waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "the PTT tab lists groups with mode and member count",
    async () => {
      await h.apiJson("POST", "/api/extensions", { extension: "3001", name: "Alice" });
      await h.apiJson("POST", "/api/extensions", { extension: "3002", name: "Bob" });
      await h.apiJson("POST", "/api/extensions", { extension: "900", name: "Reception" });
      await h.apiJson("POST", "/api/ptt-groups", {
        name: "Warehouse",
        extension: "3900",
        members: ["3001", "3002"],
        duplex: true,
      });
      await h.apiJson("POST", "/api/ptt-groups", { name: "Yard", extension: "3901", members: ["3001"] });
      const page = await softphonePage();
      await tab(page, "PTT/Paging").click();
      const rows = panel(page).getByRole("listitem");
      await rows.nth(1).waitFor();
      const warehouse = rows.filter({ hasText: "Warehouse" });
      await warehouse.getByText("Duplex", { exact: true }).waitFor();
      await warehouse.getByText(/3900 · 2 members/).waitFor();
      const yard = rows.filter({ hasText: "Yard" });
      await yard.getByText("Simplex", { exact: true }).waitFor();
      await yard.getByText(/3901 · 1 member$/).waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "choosing an extension fills the SIP fields; Generate shows a QR code that decodes to its link",
    async () => {
      const page = await softphonePage();
      const select = page.getByRole("combobox", { name: "Extension" });
      await select.locator("option", { hasText: "3002 - Bob" }).waitFor({ state: "attached" });
      const options = await select.locator("option:not([disabled])").allTextContents();
      expect(options).toEqual(["900 - Reception", "3001 - Alice", "3002 - Bob"]);
      await chooseExtension(page, "3001 - Alice");

      const field = (label: string) => page.getByRole("textbox", { name: label, exact: true });
      await page.waitForFunction(
        (el) => (el as HTMLInputElement | null)?.value === "5060",
        await field("Port").elementHandle(),
      );
      expect(await field("SIP Server").inputValue()).toBe("127.0.0.1");
      expect(await field("Transport").inputValue()).toBe("UDP");
      expect(await field("SIP Server").getAttribute("readonly")).not.toBeNull();

      await page.getByRole("button", { name: "Generate QR Code" }).click();
      const t = toastItems(page);
      await t.getByText("Configuration Generated", { exact: true }).waitFor();
      await t.getByText(/scan the QR code/i).waitFor();
      await page.waitForFunction(
        () => document.querySelector('[role="tab"][aria-selected="true"]')?.textContent === "Provision",
      );

      const img = panel(page).getByRole("img", { name: /QR code for extension 3001/ });
      await img.waitFor();
      const link = decodeQr((await img.getAttribute("src")) ?? "");
      const payload = provisioningPayload(link);
      expect(payload.username).toBe("3001");
      expect(payload.display_name).toBe("Alice");
      expect(payload.sip_port).toBe(5060);
      expect(payload.ptt_enabled).toBe(true);
      expect(payload.ptt_groups.map((g) => [g.name, g.number, g.mode])).toEqual([
        ["Warehouse", "3900", "duplex"],
        ["Yard", "3901", "simplex"],
      ]);
      expect(await panel(page).getByRole("textbox", { name: "Provisioning link" }).inputValue()).toBe(link);
      await panel(page).getByText("Open Sangoma Talk → Settings → Scan QR Code").waitFor();

      // The link stays while another extension is chosen, until Generate is pressed again.
      await tab(page, "Configure").click();
      await chooseExtension(page, "3002 - Bob");
      await tab(page, "Provision").click();
      expect(await panel(page).getByRole("textbox", { name: "Provisioning link" }).inputValue()).toBe(link);
      await tab(page, "Configure").click();
      await page.getByRole("button", { name: "Generate QR Code" }).click();
      const bobImg = page.getByRole("tabpanel").getByRole("img", { name: /QR code for extension 3002/ });
      await bobImg.waitFor();
      const bob = provisioningPayload(decodeQr((await bobImg.getAttribute("src")) ?? ""));
      expect(bob.username).toBe("3002");
      expect(bob.ptt_groups.map((g) => g.name)).toEqual(["Warehouse"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "copy puts the JSON config with the password on the clipboard and shows Copied for 2 s",
    async () => {
      const page = await softphonePage();
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.baseUrl });
      await chooseExtension(page, "3001 - Alice");
      const copy = page.getByRole("button", { name: "Copy Configuration" });
      await copy.click();
      await toastItems(page).getByText("Configuration Copied", { exact: true }).waitFor();
      await toastItems(page)
        .getByText(/manually/)
        .waitFor();
      const copied = page.getByRole("button", { name: "Copied" });
      await copied.waitFor();

      const text = await page.evaluate(() => navigator.clipboard.readText());
      const config = JSON.parse(text) as ProvisioningConfig;
      expect(config.username).toBe("3001");
      expect(config.display_name).toBe("Alice");
      expect(config.password.length).toBeGreaterThanOrEqual(12);
      expect(config.ptt_groups.length).toBe(2);

      await copy.waitFor({ timeout: 4000 }); // the indicator turns back after 2 s
      expect(await copied.count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "a failed provisioning call shows a destructive toast and leaves Provision empty",
    async () => {
      const page = await softphonePage();
      await chooseExtension(page, "900 - Reception");
      await page.route("**/api/extensions/*/provisioning", (route) =>
        route.fulfill({ status: 500, contentType: "application/json", body: '{"error":{"message":"boom"}}' }),
      );
      await page.getByRole("button", { name: "Generate QR Code" }).click();
      await toastItems(page).getByText("Failed to generate configuration", { exact: true }).waitFor();
      await toastItems(page).getByText("boom", { exact: true }).waitFor();
      await tab(page, "Provision").click();
      await panel(page)
        .getByText(/Generate a configuration .* first/)
        .waitFor();
    },
    TEST_TIMEOUT,
  );
});

// The softphone provisioning page (/sangoma-talk) through chromium against the built binary. Tests run in order on
// one server: the PTT list starts empty, then extensions and groups are added through the API.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import type { Page } from "playwright-core";
import { PNG } from "pngjs";
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
  await page.getByRole("heading", { level: 1, name: "Softphone Provisioning" }).waitFor();
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

/** A link's path: the one-time link to the Linphone account file on this console. */
const LINK_RE = /^http:\/\/127\.0\.0\.1:\d+\/api\/provisioning\/[A-Za-z0-9_-]{43}\.xml$/;

/** The SIP details shown for manual entry: the read-only fields of the Configure tab. */
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function chooseExtension(page: Page, label: string) {
  const select = page.getByRole("combobox", { name: "Extension" });
  await select.locator("option", { hasText: label }).waitFor({ state: "attached" });
  await select.selectOption({ label });
}

describe("softphone page", () => {
  test(
    "the badge shows; Create without an extension says No Extension Selected; Provision asks for one first",
    async () => {
      const page = await softphonePage();
      await page.getByText("Mobile soft client", { exact: true }).waitFor();
      expect(await tab(page, "Configure").getAttribute("aria-selected")).toBe("true");
      // No app the console cannot provision is named.
      expect(await page.getByText(/Sangoma Talk/).count()).toBe(0);

      await page.getByRole("button", { name: "Create Provisioning Link" }).click();
      const t = toastItems(page);
      await t.getByText("No Extension Selected", { exact: true }).waitFor();
      await t.getByText("Please select an extension to configure", { exact: true }).waitFor();
      expect(await t.getAttribute("class")).toContain("destructive");
      expect(await tab(page, "Configure").getAttribute("aria-selected")).toBe("true");

      await tab(page, "Provision").click();
      await panel(page)
        .getByText(/Create a provisioning link .* first/)
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
    "choosing an extension shows the SIP details with the loopback warning; the QR code decodes to the one-time link shown beside it, with the http and loopback warnings",
    async () => {
      const page = await softphonePage();
      const select = page.getByRole("combobox", { name: "Extension" });
      await select.locator("option", { hasText: "3002 - Bob" }).waitFor({ state: "attached" });
      const options = await select.locator("option:not([disabled])").allTextContents();
      expect(options).toEqual(["900 - Reception", "3001 - Alice", "3002 - Bob"]);
      await chooseExtension(page, "3001 - Alice");

      await page.waitForFunction(
        (el) => (el as HTMLInputElement | null)?.value === "5060",
        await field(page, "Port").elementHandle(),
      );
      expect(await field(page, "SIP Server").inputValue()).toBe("127.0.0.1");
      expect(await field(page, "Transport").inputValue()).toBe("UDP");
      expect(await field(page, "Username").inputValue()).toBe("3001");
      expect(await field(page, "SIP Server").getAttribute("readonly")).not.toBeNull();
      // The password is hidden until revealed, and is the extension's secret.
      const details = await h.apiJson<{ config: { password: string } }>(
        "GET",
        `/api/extensions/${(await h.apiJson<{ id: number; extension: string }[]>("GET", "/api/extensions")).find((e) => e.extension === "3001")?.id}/provisioning`,
      );
      expect(await field(page, "Password").getAttribute("type")).toBe("password");
      await page.getByRole("button", { name: "Show password" }).click();
      expect(await field(page, "Password").getAttribute("type")).toBe("text");
      expect(await field(page, "Password").inputValue()).toBe(details.config.password);
      // 127.0.0.1 is no address a phone can dial: said on the page.
      await panel(page)
        .getByRole("alert")
        .getByText(/127\.0\.0\.1 is this machine's loopback address/)
        .waitFor();

      await page.getByRole("button", { name: "Create Provisioning Link" }).click();
      const t = toastItems(page);
      await t.getByText("Provisioning link created", { exact: true }).waitFor();
      await page.waitForFunction(
        () => document.querySelector('[role="tab"][aria-selected="true"]')?.textContent === "Provision",
      );

      const img = panel(page).getByRole("img", { name: /QR code for extension 3001/ });
      await img.waitFor();
      const link = decodeQr((await img.getAttribute("src")) ?? "");
      expect(link).toMatch(LINK_RE);
      // The link shown as text is the one the code carries.
      expect(await panel(page).getByTestId("provisioning-link").textContent()).toBe(link);
      await panel(page)
        .getByText(/Linphone/)
        .first()
        .waitFor();
      await panel(page)
        .getByText(/Fetch remote configuration/)
        .waitFor();
      // Plain http on loopback, and a loopback SIP host: all three said.
      const warnings = (await panel(page).getByRole("alert").textContent()) ?? "";
      expect(warnings).toContain("plain http");
      expect(warnings).toContain("no phone can open it");
      expect(warnings).toContain("loopback");

      // The link is the account file, once.
      const first = await fetch(link);
      expect(first.status).toBe(200);
      const xml = await first.text();
      expect(xml).toContain('<config xmlns="http://www.linphone.org/xsds/lpconfig.xsd"');
      expect(xml).toContain(`<entry name="passwd" overwrite="true">${details.config.password}</entry>`);
      expect((await fetch(link)).status).toBe(404);

      // The link stays while another extension is chosen, until a new one is created.
      await tab(page, "Configure").click();
      await chooseExtension(page, "3002 - Bob");
      await tab(page, "Provision").click();
      expect(await panel(page).getByTestId("provisioning-link").textContent()).toBe(link);
      await tab(page, "Configure").click();
      await page.getByRole("button", { name: "Create Provisioning Link" }).click();
      const bobImg = page.getByRole("tabpanel").getByRole("img", { name: /QR code for extension 3002/ });
      await bobImg.waitFor();
      const bobLink = decodeQr((await bobImg.getAttribute("src")) ?? "");
      expect(bobLink).toMatch(LINK_RE);
      expect(bobLink).not.toBe(link);
      const bobXml = await (await fetch(bobLink)).text();
      expect(bobXml).toContain('<entry name="username" overwrite="true">3002</entry>');
    },
    TEST_TIMEOUT,
  );

  test(
    "with a public SIP host set, the SIP details use it and the host warning goes",
    async () => {
      await h.apiJson("PUT", "/api/settings/sip", { publicHost: "pbx.example.com", port: 5080 });
      try {
        const page = await softphonePage();
        await chooseExtension(page, "3001 - Alice");
        await page.waitForFunction(
          (el) => (el as HTMLInputElement | null)?.value === "pbx.example.com",
          await field(page, "SIP Server").elementHandle(),
        );
        expect(await field(page, "Port").inputValue()).toBe("5080");
        expect(await panel(page).getByRole("alert").count()).toBe(0);
      } finally {
        await h.apiJson("PUT", "/api/settings/sip", { publicHost: "", port: 5060 });
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "copy puts the SIP details with the password on the clipboard and shows Copied for 2 s",
    async () => {
      const page = await softphonePage();
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.baseUrl });
      await chooseExtension(page, "3001 - Alice");
      const copy = page.getByRole("button", { name: "Copy SIP Details" });
      await copy.click();
      await toastItems(page).getByText("SIP details copied", { exact: true }).waitFor();
      const copied = page.getByRole("button", { name: "Copied" });
      await copied.waitFor();

      const text = await page.evaluate(() => navigator.clipboard.readText());
      expect(text).toContain("SIP server: 127.0.0.1");
      expect(text).toContain("Username: 3001");
      expect(text).toMatch(/Password: \S{12,}/);

      await copy.waitFor({ timeout: 4000 }); // the indicator turns back after 2 s
      expect(await copied.count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "a failed link request shows a destructive toast and leaves Provision empty",
    async () => {
      const page = await softphonePage();
      await chooseExtension(page, "900 - Reception");
      await page.route("**/api/extensions/*/provisioning-link", (route) =>
        route.fulfill({ status: 500, contentType: "application/json", body: '{"error":{"message":"boom"}}' }),
      );
      await page.getByRole("button", { name: "Create Provisioning Link" }).click();
      await toastItems(page).getByText("Failed to create the provisioning link", { exact: true }).waitFor();
      await toastItems(page).getByText("boom", { exact: true }).waitFor();
      await tab(page, "Provision").click();
      await panel(page)
        .getByText(/Create a provisioning link .* first/)
        .waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "the web dialer not configured is a quiet hint, not a failure",
    async () => {
      const page = await softphonePage();
      await page.getByText("Web dialer not configured — set it up in").waitFor();
      expect(await page.getByRole("link", { name: "API Settings" }).last().getAttribute("href")).toBe("/settings");
      expect(await toastItems(page).count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "API Settings: the public SIP host warns while a private address is typed and saves",
    async () => {
      const page = await h.signedInPage("/settings");
      const card = page.getByRole("region", { name: "Public SIP host" });
      const host = card.getByLabel("Host", { exact: true });
      await host.waitFor();
      await card.getByText(/now 127\.0\.0\.1/).waitFor();
      await card
        .getByRole("alert")
        .getByText(/loopback/)
        .waitFor();
      await host.fill("192.168.1.20");
      await card
        .getByRole("alert")
        .getByText(/192\.168\.1\.20 is a private address/)
        .waitFor();
      await host.fill("sip.example.com");
      await card.getByRole("alert").waitFor({ state: "detached" });
      await card.getByRole("button", { name: "Save SIP Host" }).click();
      await toastItems(page).getByText("Public SIP host saved", { exact: true }).waitFor();
      const saved = await h.apiJson<{ publicHost: string; warning: string | null }>("GET", "/api/settings/sip");
      expect(saved).toMatchObject({ publicHost: "sip.example.com", warning: null });
      await h.apiJson("PUT", "/api/settings/sip", { publicHost: "", port: 5060 });
    },
    TEST_TIMEOUT,
  );
});

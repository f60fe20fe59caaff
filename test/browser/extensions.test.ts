// The Extensions screen (/extensions) through chromium against the built binary. Tests run in order on one
// server: the list starts empty and the 5,000-extension test comes last.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import type { Page } from "playwright-core";
import { PNG } from "pngjs";
import type { Extension, ProvisioningConfig } from "../../src/shared/inventory";
import { columnsFor } from "../../src/web/features/extensions/virtual-grid";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";

describe("grid columns", () => {
  test("columns follow the container width, between 1 and the maximum", () => {
    expect(columnsFor(0, 260, 16, 4)).toBe(1);
    expect(columnsFor(468, 260, 16, 4)).toBe(1);
    expect(columnsFor(536, 260, 16, 4)).toBe(2);
    expect(columnsFor(960, 260, 16, 4)).toBe(3);
    expect(columnsFor(4000, 260, 16, 4)).toBe(4);
  });
});

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

// Pages left open would keep refetching the list on every sync event (5,000 of them in the last test).
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listExtensions = () => h.apiJson<Extension[]>("GET", "/api/extensions");

/** The signed-in Extensions screen; `before` runs before navigation (e.g. to hold or fake requests). */
async function extensionsPage(
  o: { viewport?: { width: number; height: number }; before?: (page: Page) => Promise<unknown> } = {},
): Promise<Page> {
  const page = await h.signedInPage("/extensions", o);
  await page.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
  return page;
}

const cardFor = (page: Page, number: string) =>
  page.locator(`[data-testid="extension-card"][data-extension="${number}"]`);

/** The error text under a field, found through the input's aria-describedby. */
async function errorUnder(page: Page, label: string): Promise<string> {
  const input = page.getByRole("dialog").getByLabel(label, { exact: true });
  await page.waitForFunction((el) => el?.getAttribute("aria-invalid") === "true", await input.elementHandle());
  const id = await input.getAttribute("aria-describedby");
  return (await page.locator(`[id="${id}"]`).textContent()) ?? "";
}

/** Decodes a data:image/png QR code and returns the text it holds. */
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

/** pbxconsole://provision?config=<base64 JSON> → the JSON. */
function provisioningPayload(link: string): ProvisioningConfig {
  expect(link.startsWith("pbxconsole://provision?config=")).toBe(true);
  const encoded = decodeURIComponent(link.slice("pbxconsole://provision?config=".length));
  return JSON.parse(Buffer.from(encoded, "base64").toString("utf8"));
}

async function fillDialog(page: Page, v: { extension: string; name: string; email?: string; secret?: string }) {
  const dialog = page.getByRole("dialog", { name: "Add Extension" });
  await dialog.getByLabel("Extension", { exact: true }).fill(v.extension);
  await dialog.getByLabel("Name", { exact: true }).fill(v.name);
  await dialog.getByLabel("Email", { exact: true }).fill(v.email ?? "");
  await dialog.getByLabel("Secret", { exact: true }).fill(v.secret ?? "");
  return dialog;
}

describe("extensions screen", () => {
  test(
    "three skeleton cards while loading, then the empty state",
    async () => {
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const page = await extensionsPage({
        before: (p) =>
          p.route("**/api/extensions", async (route) => {
            await gate;
            await route.continue();
          }),
      });
      await page.getByTestId("extension-skeleton").nth(2).waitFor();
      expect(await page.getByTestId("extension-skeleton").count()).toBe(3);
      release();
      await page.getByText("No extensions yet", { exact: true }).waitFor();
      await page.getByText("Create your first extension to get started", { exact: true }).waitFor();
      expect(await page.getByTestId("extension-skeleton").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "Add Extension creates a card and says 'Extension created'; the dialer push follows quietly",
    async () => {
      const page = await extensionsPage();
      await page.getByText("No extensions yet").waitFor();
      const posted: unknown[] = [];
      const pushed: string[] = [];
      page.on("request", (req) => {
        const path = new URL(req.url()).pathname;
        if (req.method() === "POST" && path === "/api/extensions") posted.push(req.postDataJSON());
        if (req.method() === "POST" && path === "/api/dialer/push-all") pushed.push(path);
      });
      const logged: string[] = [];
      page.on("console", (msg) => logged.push(msg.text()));

      await page.getByRole("button", { name: "Add Extension" }).click();
      const dialog = await fillDialog(page, { extension: "1001", name: "Alice Johnson", email: "alice@example.com" });
      expect(await dialog.getByLabel("Secret", { exact: true }).getAttribute("placeholder")).toMatch(/blank/i);
      await dialog.getByRole("switch", { name: "Voicemail" }).click();
      await dialog.getByRole("button", { name: "Create Extension" }).click();

      await toastItems(page).getByText("Extension created", { exact: true }).waitFor();
      await dialog.waitFor({ state: "detached" });
      const card = cardFor(page, "1001");
      await card.getByText("Alice Johnson").waitFor();
      await card.getByText("alice@example.com").waitFor();
      await card.getByText("Voicemail Enabled").waitFor();
      // No manager interface (AMI) here: the live badge says Unknown, never a stored "available".
      await card.getByTestId("extension-live").getByText("Unknown", { exact: true }).waitFor();
      expect(posted).toEqual([
        { extension: "1001", name: "Alice Johnson", email: "alice@example.com", voicemail: true, secret: null },
      ]);
      // The background push fails (not configured yet): only logged, no failure toast.
      for (let i = 0; i < 50 && !logged.some((l) => l.includes("Web Dialer")); i++) await page.waitForTimeout(50);
      expect(pushed.length).toBe(1);
      expect(logged.some((l) => l.includes("Web Dialer"))).toBe(true);
      expect(
        await toastItems(page)
          .getByText(/Failed to sync/)
          .count(),
      ).toBe(0);
      const stored = await listExtensions();
      expect(stored.map((e) => [e.extension, e.voicemail, e.hasSecret])).toEqual([["1001", true, true]]);
    },
    TEST_TIMEOUT,
  );

  test(
    "cards are sorted numerically and show the live status badge (Unknown without AMI)",
    async () => {
      await h.apiJson("POST", "/api/extensions", { extension: "900", name: "Bob Smith", status: "offline" });
      await h.apiJson("POST", "/api/extensions", { extension: "10000", name: "Carol White" });
      const page = await extensionsPage();
      await cardFor(page, "10000").waitFor();
      const order = await page
        .getByTestId("extension-card")
        .evaluateAll((els) => els.map((el) => el.getAttribute("data-extension")));
      expect(order).toEqual(["900", "1001", "10000"]);
      for (const ext of ["900", "1001"]) {
        await cardFor(page, ext).getByTestId("extension-live").getByText("Unknown", { exact: true }).waitFor();
      }
      // The stored status is not a registration: it is not shown as one.
      expect(await cardFor(page, "900").getByText("offline").count()).toBe(0);
      expect(await cardFor(page, "1001").getByText("available").count()).toBe(0);
      expect(await cardFor(page, "900").getByText("Voicemail Enabled").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "bad input shows the error under the field and creates nothing",
    async () => {
      const page = await extensionsPage();
      await cardFor(page, "1001").waitFor();
      let posts = 0;
      page.on("request", (req) => {
        if (req.method() === "POST" && new URL(req.url()).pathname === "/api/extensions") posts++;
      });
      await page.getByRole("button", { name: "Add Extension" }).click();
      const dialog = await fillDialog(page, { extension: "12ab", name: "Dan", email: "not-an-email" });
      await dialog.getByRole("button", { name: "Create Extension" }).click();
      expect(await errorUnder(page, "Extension")).toBe("Extension must contain digits only");
      expect(await errorUnder(page, "Email")).toBe("Enter a valid email address");

      await dialog.getByLabel("Extension", { exact: true }).fill("1002");
      await dialog.getByLabel("Email", { exact: true }).fill("");
      await dialog.getByLabel("Secret", { exact: true }).fill("short");
      await dialog.getByRole("button", { name: "Create Extension" }).click();
      expect(await errorUnder(page, "Secret")).toMatch(/at least 12 characters/);
      expect(posts).toBe(0);
      expect((await listExtensions()).length).toBe(3);
    },
    TEST_TIMEOUT,
  );

  test(
    "a duplicate number shows the server's message under Extension",
    async () => {
      const page = await extensionsPage();
      await cardFor(page, "1001").waitFor();
      await page.getByRole("button", { name: "Add Extension" }).click();
      const dialog = await fillDialog(page, { extension: "1001", name: "Someone Else" });
      await dialog.getByRole("button", { name: "Create Extension" }).click();
      expect(await errorUnder(page, "Extension")).toBe("Extension 1001 already exists");
      await toastItems(page).getByText("Failed to create extension.", { exact: true }).waitFor();
      expect(await dialog.isVisible()).toBe(true);
      expect((await listExtensions()).length).toBe(3);
    },
    TEST_TIMEOUT,
  );

  test(
    "delete removes the card; a refused delete says why",
    async () => {
      await h.apiJson("POST", "/api/ptt-groups", { name: "Floor", extension: "1900", members: ["1001"], duplex: true });
      const page = await extensionsPage();
      await cardFor(page, "10000").waitFor();

      await page.getByRole("button", { name: "Delete extension 10000" }).click();
      await toastItems(page).getByText("Extension deleted", { exact: true }).waitFor();
      await cardFor(page, "10000").waitFor({ state: "detached" });

      await page.getByRole("button", { name: "Delete extension 1001" }).click();
      await toastItems(page).getByText("Failed to delete extension.", { exact: true }).waitFor();
      await toastItems(page)
        .getByText("Extension 1001 is a member of PTT group(s): Floor. Remove it there first.")
        .waitFor();
      expect(await cardFor(page, "1001").isVisible()).toBe(true);
      expect((await listExtensions()).map((e) => e.extension)).toEqual(["900", "1001"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "the QR dialog shows a code that decodes to the extension's provisioning link",
    async () => {
      const page = await extensionsPage();
      await page.getByRole("button", { name: "QR code for extension 1001" }).click();
      const dialog = page.getByRole("dialog", { name: "Sangoma Talk QR Code" });
      const img = dialog.getByRole("img", { name: /QR code for extension 1001/ });
      await img.waitFor();
      await dialog.getByText("Alice Johnson").waitFor();
      await dialog.getByText("127.0.0.1").waitFor();
      await dialog.getByText(/Scan QR Code/).waitFor();

      const payload = provisioningPayload(decodeQr((await img.getAttribute("src")) ?? ""));
      expect(payload.username).toBe("1001");
      expect(payload.display_name).toBe("Alice Johnson");
      expect(payload.password.length).toBeGreaterThanOrEqual(12);
      expect(payload.ptt_groups).toEqual([expect.objectContaining({ name: "Floor", number: "1900", mode: "duplex" })]);
    },
    TEST_TIMEOUT,
  );

  test(
    "the QR dialog shows a spinner until the code arrives and a toast when it fails",
    async () => {
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const page = await extensionsPage({
        before: (p) =>
          p.route("**/api/extensions/*/qr-code", async (route) => {
            await gate;
            await route.fulfill({ status: 500, contentType: "application/json", body: '{"error":{"message":"boom"}}' });
          }),
      });
      await page.getByRole("button", { name: "QR code for extension 900" }).click();
      const dialog = page.getByRole("dialog", { name: "Sangoma Talk QR Code" });
      await dialog.getByRole("status").getByText("Generating QR code…").waitFor();
      release();
      await toastItems(page).getByText("Failed to generate QR code.", { exact: true }).waitFor();
      await dialog.getByText("The QR code could not be generated.").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "the push button reports that the web dialer sync failed",
    async () => {
      const page = await extensionsPage();
      const answered = page.waitForResponse("**/api/dialer/push-all");
      await page.getByRole("button", { name: "Push to Web Dialer" }).click();
      expect((await answered).status()).toBe(400);
      const t = toastItems(page);
      await t.getByText("Failed to sync extensions to Web Dialer", { exact: true }).waitFor();
      await t.getByText(/not configured/).waitFor();
      expect(await t.getAttribute("class")).toContain("destructive");
    },
    TEST_TIMEOUT,
  );

  test(
    "a push that succeeds says how many configs went out",
    async () => {
      const page = await extensionsPage({
        before: (p) =>
          p.route("**/api/dialer/push-all", (route) =>
            route.fulfill({ status: 200, contentType: "application/json", body: '{"count":2}' }),
          ),
      });
      await page.getByRole("button", { name: "Push to Web Dialer" }).click();
      await toastItems(page).getByText("Synced to Web Dialer", { exact: true }).waitFor();
      await toastItems(page)
        .getByText(/^2 extension configs pushed .* for web dialer$/)
        .waitFor();
    },
    TEST_TIMEOUT,
  );
});

describe("5,000 extensions", () => {
  const TOTAL = 5000;
  const BASE = 20000;

  test("the grid stays small in the DOM, filters to one and scrolls to the last", async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < TOTAL) {
          const i = next++;
          await h.apiJson("POST", "/api/extensions", { extension: String(BASE + i), name: `Scale User ${i}` });
        }
      }),
    );
    const total = (await listExtensions()).length;
    expect(total).toBe(TOTAL + 2);
    const totalText = total.toLocaleString("en-US");

    const page = await extensionsPage();
    const counter = page.getByTestId("extension-count");
    await counter.getByText(`${totalText} extensions`).waitFor({ timeout: 15_000 });
    const cards = page.getByTestId("extension-card");
    await cardFor(page, "900").waitFor();
    expect(await cards.count()).toBeLessThan(100);
    // The grid is as tall as all the rows, so the page scrolls as if every card were there.
    const height = await page.getByTestId("virtual-grid").evaluate((el) => el.getBoundingClientRect().height);
    expect(height).toBeGreaterThan((total / 4) * 150);

    const filter = page.getByRole("searchbox", { name: "Filter extensions" });
    await filter.fill("scale USER 4321");
    await counter.getByText(`1 of ${totalText}`).waitFor();
    await cardFor(page, String(BASE + 4321)).waitFor();
    expect(await cards.count()).toBe(1);
    await filter.fill(String(BASE + 1234));
    await counter.getByText(`1 of ${totalText}`).waitFor();
    await cardFor(page, String(BASE + 1234))
      .getByText("Scale User 1234")
      .waitFor();

    await filter.fill("");
    await counter.getByText(`${totalText} extensions`).waitFor();
    // The keyboard goes from the filter straight into the first card.
    await filter.focus();
    await page.keyboard.press("Tab");
    expect(
      await page.evaluate(
        () => document.activeElement?.closest('[data-testid="extension-card"]')?.getAttribute("data-extension") ?? null,
      ),
    ).toBe("900");
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const last = cardFor(page, String(BASE + TOTAL - 1));
    await last.waitFor();
    const box = await last.boundingBox();
    expect(box).not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(800);
    expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect(await cardFor(page, "900").count()).toBe(0);
    expect(await cards.count()).toBeLessThan(100);

    // Its QR button works from the bottom of the list too.
    await last.getByRole("button", { name: `QR code for extension ${BASE + TOTAL - 1}` }).click();
    const img = page.getByRole("dialog").getByRole("img", { name: /QR code/ });
    await img.waitFor();
    expect(provisioningPayload(decodeQr((await img.getAttribute("src")) ?? "")).display_name).toBe(
      `Scale User ${TOTAL - 1}`,
    );
  }, 120_000);

  test(
    "at 500 px wide the cards stack in one column and the DOM stays small",
    async () => {
      const page = await extensionsPage({ viewport: { width: 500, height: 900 } });
      await cardFor(page, "900").waitFor({ timeout: 15_000 });
      const cards = page.getByTestId("extension-card");
      const xs = await cards.evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().left)));
      expect(new Set(xs).size).toBe(1);
      expect(xs.length).toBeLessThan(30);
      const width = await cardFor(page, "900").evaluate((el) => el.getBoundingClientRect().width);
      expect(width).toBeLessThanOrEqual(500);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(500);
    },
    TEST_TIMEOUT,
  );
});

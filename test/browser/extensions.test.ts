// The Extensions screen (/extensions) through chromium against the built binary. Tests run in order on one
// server: the list starts empty and the 5,000-extension test comes last.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import type { Page } from "playwright-core";
import { PNG } from "pngjs";
import type { Extension } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";

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

/** An extension's row in the Extensions table. */
const cardFor = (page: Page, number: string) =>
  page.locator(`[data-testid="extension-row"][data-extension="${number}"]`);

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

/** The one-time provisioning link (ADR 0039) → its Linphone account file's entries (entry name → text). */
async function accountOf(link: string): Promise<Record<string, string>> {
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/provisioning\/[A-Za-z0-9_-]{43}\.xml$/);
  const res = await fetch(link);
  expect(res.status).toBe(200);
  const xml = await res.text();
  const entries: Record<string, string> = {};
  for (const m of xml.matchAll(/<entry name="([^"]+)" overwrite="true">([^<]*)<\/entry>/g)) {
    entries[m[1] as string] = (m[2] as string)
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  }
  return entries;
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
      // The app's own empty state: the server's picture of the screen (ADR 0047) showed it all along.
      const app = page.locator("#root");
      await app.getByText("No extensions yet", { exact: true }).waitFor();
      await app.getByText("Create your first extension to get started", { exact: true }).waitFor();
      expect(await page.getByTestId("extension-skeleton").count()).toBe(0);
      expect(await page.locator("#prerender").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "Add Extension creates a card and says 'Extension created'; with no web dialer set up nothing is pushed or reported",
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
      await card.getByTestId("voicemail-on").waitFor();
      // No manager interface (AMI) here: the live badge says Unknown, never a stored "available".
      await card.getByTestId("extension-live").getByText("Unknown", { exact: true }).waitFor();
      expect(posted).toEqual([
        {
          extension: "1001",
          name: "Alice Johnson",
          email: "alice@example.com",
          voicemail: true,
          secret: null,
          // FreePBX's own recording defaults, as its Extensions page gives a new extension.
          recordingInExternal: "dontcare",
          recordingOutExternal: "dontcare",
          recordingInInternal: "dontcare",
          recordingOutInternal: "dontcare",
          recordingOnDemand: "disabled",
        },
      ]);
      // The web dialer was never set up: a quiet state. The status is asked (once a minute at most), no push is
      // sent, nothing is logged and no failure is shown; the page says where to set it up instead.
      await page.getByText("Web dialer not configured — set it up in").waitFor();
      expect(pushed).toEqual([]);
      expect(logged.filter((l) => l.includes("Web Dialer"))).toEqual([]);
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
        .getByTestId("extension-row")
        .evaluateAll((els) => els.map((el) => el.getAttribute("data-extension")));
      expect(order).toEqual(["900", "1001", "10000"]);
      for (const ext of ["900", "1001"]) {
        await cardFor(page, ext).getByTestId("extension-live").getByText("Unknown", { exact: true }).waitFor();
      }
      // The stored status is not a registration: it is not shown as one.
      expect(await cardFor(page, "900").getByText("offline").count()).toBe(0);
      expect(await cardFor(page, "1001").getByText("available").count()).toBe(0);
      expect(await cardFor(page, "900").getByTestId("voicemail-on").count()).toBe(0);
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
    "delete (confirmed) removes the card; a blocked delete says why and cannot be confirmed",
    async () => {
      await h.apiJson("POST", "/api/ptt-groups", { name: "Floor", extension: "1900", members: ["1001"], duplex: true });
      const page = await extensionsPage();
      await cardFor(page, "10000").waitFor();

      await page.getByRole("button", { name: "Delete extension 10000" }).click();
      await page
        .getByRole("dialog", { name: "Delete extension 10000?" })
        .getByRole("button", { name: "Delete", exact: true })
        .click();
      await toastItems(page).getByText("Extension deleted", { exact: true }).waitFor();
      await cardFor(page, "10000").waitFor({ state: "detached" });

      await page.getByRole("button", { name: "Delete extension 1001" }).click();
      const blocked = page.getByRole("dialog", { name: "Delete extension 1001?" });
      await blocked.getByText("Extension 1001 is a member of PTT group(s): Floor. Remove it there first.").waitFor();
      expect(await blocked.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
      await blocked.getByRole("button", { name: "Cancel" }).click();
      expect(await cardFor(page, "1001").isVisible()).toBe(true);
      expect((await listExtensions()).map((e) => e.extension)).toEqual(["900", "1001"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "the QR dialog shows a one-time link, as text and as a code that decodes to it; New link replaces it",
    async () => {
      const page = await extensionsPage();
      await page.getByRole("button", { name: "QR code for extension 1001" }).click();
      const dialog = page.getByRole("dialog", { name: "Provision a softphone" });
      const img = dialog.getByRole("img", { name: /QR code for extension 1001/ });
      await img.waitFor();
      await dialog
        .getByText(/Alice Johnson/)
        .first()
        .waitFor();
      await dialog.getByText(/Fetch remote configuration/).waitFor();
      expect(await dialog.getByText(/Sangoma/).count()).toBe(0);
      // 127.0.0.1 over http: the page says a phone elsewhere cannot use it.
      await dialog
        .getByRole("alert")
        .getByText(/loopback/)
        .waitFor();

      const link = decodeQr((await img.getAttribute("src")) ?? "");
      expect(await dialog.getByTestId("provisioning-link").textContent()).toBe(link);
      const account = await accountOf(link);
      expect(account.username).toBe("1001");
      expect(account.reg_identity).toBe('"Alice Johnson" <sip:1001@127.0.0.1>');
      expect((account.passwd ?? "").length).toBeGreaterThanOrEqual(12);
      // Used once: a second read is a bare 404.
      expect((await fetch(link)).status).toBe(404);

      await dialog.getByRole("button", { name: "New link" }).click();
      await page.waitForFunction((old) => {
        const text = document.querySelector('[data-testid="provisioning-link"]')?.textContent;
        return Boolean(text) && text !== old;
      }, link);
      const second = (await dialog.getByTestId("provisioning-link").textContent()) ?? "";
      expect(decodeQr((await img.getAttribute("src")) ?? "")).toBe(second);
      expect((await accountOf(second)).username).toBe("1001");
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
          p.route("**/api/extensions/*/provisioning-link", async (route) => {
            await gate;
            await route.fulfill({ status: 500, contentType: "application/json", body: '{"error":{"message":"boom"}}' });
          }),
      });
      await page.getByRole("button", { name: "QR code for extension 900" }).click();
      const dialog = page.getByRole("dialog", { name: "Provision a softphone" });
      await dialog.getByRole("status").getByText("Creating provisioning link…").waitFor();
      release();
      await toastItems(page).getByText("Failed to create the provisioning link.", { exact: true }).waitFor();
      await dialog.getByText("The provisioning link could not be created.").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "without a web dialer there is a hint instead of the push button; a configured one that fails says so",
    async () => {
      const quiet = await extensionsPage();
      await quiet.getByText("Web dialer not configured — set it up in").waitFor();
      expect(await quiet.getByRole("button", { name: "Push to Web Dialer" }).count()).toBe(0);
      await quiet.close();

      // The push's failure is held until the create's toast has been seen: one toast shows at a time
      // (TOAST_LIMIT), so an immediate failure could replace it before the test looks.
      let createSeen = () => {};
      const seen = new Promise<void>((r) => {
        createSeen = r;
      });
      const page = await extensionsPage({
        before: async (p) => {
          await p.route("**/api/dialer/status", (route) =>
            route.fulfill({ status: 200, contentType: "application/json", body: '{"configured":true}' }),
          );
          await p.route("**/api/dialer/push-all", async (route) => {
            await seen;
            await route.fulfill({
              status: 502,
              contentType: "application/json",
              body: '{"error":{"message":"The web dialer push failed: connection refused"}}',
            });
          });
        },
      });
      try {
        const t = toastItems(page);
        // The background push after a create reports a configured dialer's failure.
        await page.getByRole("button", { name: "Add Extension" }).click();
        const dialog = await fillDialog(page, { extension: "1099", name: "Dialer Check" });
        const backgroundPush = page.waitForRequest("**/api/dialer/push-all");
        await dialog.getByRole("button", { name: "Create Extension" }).click();
        await t.getByText("Extension created", { exact: true }).waitFor();
        createSeen();
        await backgroundPush;
        await t.getByText("Failed to sync extensions to Web Dialer", { exact: true }).waitFor();
        await t.getByText(/connection refused/).waitFor();
        expect(await t.filter({ hasText: "Failed to sync" }).getAttribute("class")).toContain("destructive");

        // So does the push button.
        const answered = page.waitForResponse("**/api/dialer/push-all");
        await page.getByRole("button", { name: "Push to Web Dialer" }).click();
        expect((await answered).status()).toBe(502);
      } finally {
        createSeen();
        // The next tests count the extensions: this one goes whatever happened above.
        const made = (await listExtensions()).find((e) => e.extension === "1099");
        if (made) await h.apiJson("DELETE", `/api/extensions/${made.id}`);
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "a push that succeeds says how many configs went out",
    async () => {
      const page = await extensionsPage({
        before: async (p) => {
          await p.route("**/api/dialer/status", (route) =>
            route.fulfill({ status: 200, contentType: "application/json", body: '{"configured":true}' }),
          );
          await p.route("**/api/dialer/push-all", (route) =>
            route.fulfill({ status: 200, contentType: "application/json", body: '{"count":2}' }),
          );
        },
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

  test("the table stays small in the DOM, filters to one and scrolls to the last", async () => {
    await h.importExtensions(
      Array.from({ length: TOTAL }, (_, i) => ({ extension: String(BASE + i), name: `Scale User ${i}` })),
    );
    const total = (await listExtensions()).length;
    expect(total).toBe(TOTAL + 2);
    const totalText = total.toLocaleString("en-US");

    const page = await extensionsPage();
    const counter = page.getByTestId("extension-count");
    await counter.getByText(`${totalText} extensions`).waitFor({ timeout: 15_000 });
    const cards = page.getByTestId("extension-row");
    await cardFor(page, "900").waitFor();
    expect(await cards.count()).toBeLessThan(100);
    // The table is as tall as all the rows, so the page scrolls as if every row were there.
    const height = await page
      .getByRole("table", { name: "Extensions" })
      .evaluate((el) => el.getBoundingClientRect().height);
    expect(height).toBeGreaterThan(total * 40);

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
    // The keyboard goes from the filter, past the table's controls and headers, into the first row.
    await filter.focus();
    const focusedRow = () =>
      page.evaluate(
        () => document.activeElement?.closest('[data-testid="extension-row"]')?.getAttribute("data-extension") ?? null,
      );
    for (let i = 0; i < 12 && (await focusedRow()) === null; i++) await page.keyboard.press("Tab");
    expect(await focusedRow()).toBe("900");
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const last = cardFor(page, String(BASE + TOTAL - 1));
    await last.waitFor();
    // Rows are measured as they mount (the table's height settles by a few px): to the bottom once more.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
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
    expect((await accountOf(decodeQr((await img.getAttribute("src")) ?? ""))).reg_identity).toStartWith(
      `"Scale User ${TOTAL - 1}" <sip:`,
    );
  }, 120_000);

  test(
    "at 375 px wide the table scrolls in its own box, the page does not, and the DOM stays small",
    async () => {
      const page = await extensionsPage({ viewport: { width: 375, height: 800 } });
      await cardFor(page, "900").waitFor({ timeout: 15_000 });
      const rows = page.getByTestId("extension-row");
      const xs = await rows.evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().left)));
      expect(new Set(xs).size).toBe(1);
      expect(xs.length).toBeLessThan(60);
      const box = page.getByTestId("extensions-table-box");
      expect(await box.evaluate((el) => el.getBoundingClientRect().right)).toBeLessThanOrEqual(375);
      expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    },
    TEST_TIMEOUT,
  );
});

// Through chromium against the built binary: the create dialogs edit too (prefilled,
// "Edit …" / "Save Changes"), the save shows at once and rolls back with the server's message when it is
// refused, a blank secret keeps the stored one, and focus comes back to the Edit button.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Extension, Trunk } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const SECRET = "Provider-Secret-123456";

/** The label of the focused element (the Edit button once a dialog closes). */
const focusedLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? null);

/**
 * Holds the PATCH requests to `pattern` until `release()` (then they go to the server as sent), so the
 * test sees the optimistic list before the answer.
 */
async function holdPatches(page: Page, pattern: string) {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(pattern, async (route) => {
    if (route.request().method() === "PATCH") await gate;
    await route.continue();
  });
  return release;
}

test(
  "a trunk's host is edited in the Add Trunk dialog, prefilled; a blank secret keeps the stored one",
  async () => {
    const trunk = await h.apiJson<Trunk>("POST", "/api/trunks", {
      name: "Telnyx",
      type: "sip",
      host: "sip.telnyx.com",
      port: 5060,
      username: "acct-1",
      secret: SECRET,
      registrationEnabled: true,
    });
    const page = await h.signedInPage("/trunks");
    const card = page.getByRole("list", { name: "Trunks" }).getByRole("listitem").filter({ hasText: "Telnyx" });
    await card.getByRole("button", { name: "Edit trunk Telnyx" }).click();

    const dialog = page.getByRole("dialog", { name: "Edit Trunk" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("Telnyx");
    expect(await dialog.getByLabel("Host", { exact: true }).inputValue()).toBe("sip.telnyx.com");
    expect(await dialog.getByLabel("Username", { exact: true }).inputValue()).toBe("acct-1");
    expect(await dialog.getByLabel("Secret", { exact: true }).inputValue()).toBe("");
    expect(await dialog.getByRole("switch", { name: "Registration" }).getAttribute("aria-checked")).toBe("true");

    // Item 7: the deploy's refusal of non-SIP trunks is said in the form, with the deploy's own words.
    const notice = dialog.getByTestId("trunk-type-notice");
    expect(await notice.count()).toBe(0);
    await chooseOption(page, dialog, "Type", "IAX");
    expect(await notice.textContent()).toContain(
      "Only SIP (PJSIP) trunks are deployed; IAX trunks are set up in FreePBX",
    );
    await chooseOption(page, dialog, "Type", "SIP");
    await notice.waitFor({ state: "detached" });

    await dialog.getByLabel("Host", { exact: true }).fill("sip2.telnyx.com");
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await dialog.waitFor({ state: "detached" });
    await card.getByText("sip2.telnyx.com:5060").waitFor();
    await toasts(page).getByText("Trunk saved").waitFor();
    expect(await focusedLabel(page)).toBe("Edit trunk Telnyx");

    const [saved] = await h.apiJson<Trunk[]>("GET", "/api/trunks");
    expect(saved).toMatchObject({ id: trunk.id, host: "sip2.telnyx.com", username: "acct-1", hasSecret: true });
  },
  TEST_TIMEOUT,
);

test(
  "a refused save shows at once, then rolls back with the server's message; Cancel returns focus to Edit",
  async () => {
    await h.apiJson("POST", "/api/trunks", { name: "Backup", type: "sip", host: "sip.example.net" });
    const page = await h.signedInPage("/trunks");
    const release = await holdPatches(page, "**/api/trunks/*");
    const list = page.getByRole("list", { name: "Trunks" });
    await list.getByRole("button", { name: "Edit trunk Backup" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Trunk" });
    await dialog.getByLabel("Name", { exact: true }).fill("Telnyx");
    await dialog.getByRole("button", { name: "Save Changes" }).click();

    // Optimistic: the list behind the dialog already has two "Telnyx" cards (CSS locators see through aria-hidden).
    const cardsNamed = (name: string) => page.locator('ul[aria-label="Trunks"] > li').filter({ hasText: name });
    await cardsNamed("Telnyx").nth(1).waitFor();
    expect(await cardsNamed("Backup").count()).toBe(0);

    release();
    // The server refuses (the name is taken): the list is put back and the toast gives the server's reason.
    await toasts(page).getByText("A trunk named Telnyx already exists").waitFor();
    await cardsNamed("Backup").waitFor();
    expect(await cardsNamed("Telnyx").count()).toBe(1);
    // The dialog stays open with what was typed and the message under the field.
    expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("Telnyx");
    await dialog.getByText("Name already in use").waitFor();

    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await focusedLabel(page)).toBe("Edit trunk Backup");
    const names = (await h.apiJson<Trunk[]>("GET", "/api/trunks")).map((t) => t.name);
    expect(names).toEqual(["Backup", "Telnyx"]);
  },
  TEST_TIMEOUT,
);

test(
  "an extension's name is edited from its row: prefilled, saved, shown, the secret kept",
  async () => {
    const ext = await h.apiJson<Extension>("POST", "/api/extensions", {
      extension: "1001",
      name: "Front desk",
      email: "desk@example.com",
      secret: SECRET,
    });
    const page = await h.signedInPage("/extensions");
    const row = page.locator('[data-testid="extension-row"][data-extension="1001"]');
    await row.getByText("Front desk").waitFor();
    await row.getByRole("button", { name: "Edit extension 1001" }).click();

    const dialog = page.getByRole("dialog", { name: "Edit Extension" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("Extension", { exact: true }).inputValue()).toBe("1001");
    expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("Front desk");
    expect(await dialog.getByLabel("Email", { exact: true }).inputValue()).toBe("desk@example.com");
    expect(await dialog.getByLabel("Secret", { exact: true }).inputValue()).toBe("");

    // The shared schema refuses in the form what the deploy would refuse.
    await dialog.getByLabel("Name", { exact: true }).fill("");
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await dialog.getByText("Name is required").waitFor();

    await dialog.getByLabel("Name", { exact: true }).fill("Reception");
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await dialog.waitFor({ state: "detached" });
    await row.getByText("Reception").waitFor();
    expect(await focusedLabel(page)).toBe("Edit extension 1001");

    const [saved] = await h.apiJson<Extension[]>("GET", "/api/extensions");
    expect(saved).toMatchObject({ id: ext.id, extension: "1001", name: "Reception", hasSecret: true });
    const prov = await h.apiJson<{ config?: { password?: string }; password?: string }>(
      "GET",
      `/api/extensions/${ext.id}/provisioning`,
    );
    expect(JSON.stringify(prov)).toContain(SECRET);
  },
  TEST_TIMEOUT,
);

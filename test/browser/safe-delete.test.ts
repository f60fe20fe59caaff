// Safe deletes through chromium against the built binary (ADR 0037): every delete asks
// first, naming what depends on the object; a blocked delete says what to change and cannot be confirmed;
// after a delete focus is on the screen's heading (never <body>) and the toast's Undo brings the card back.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Extension, Trunk } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

async function screen(path: string, heading: string): Promise<Page> {
  const page = await h.signedInPage(path);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  return page;
}
const trunkCards = (page: Page) => page.getByRole("list", { name: "Trunks" }).getByRole("listitem");
/** What has focus: its tag and text (BODY when focus was lost). */
const focused = (page: Page) =>
  page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent ?? "" }));

test(
  "a trunk: confirm, the card goes, focus is on the heading, and Undo brings back the same trunk",
  async () => {
    const spare = await h.apiJson<Trunk>("POST", "/api/trunks", {
      name: "Spare",
      type: "sip",
      host: "sip.spare.example",
    });
    const page = await screen("/trunks", "Trunks");
    const card = trunkCards(page).filter({ hasText: "Spare" });
    await card.getByRole("button", { name: "Delete trunk Spare" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete trunk Spare?" });
    await dialog.getByText("Nothing else in the console uses it.").waitFor();
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await card.waitFor({ state: "detached" });
    expect(await focused(page)).toEqual({ tag: "H1", text: "Trunks" });
    expect((await h.apiJson<Trunk[]>("GET", "/api/trunks")).some((t) => t.id === spare.id)).toBe(false);

    await toasts(page).getByText("Trunk deleted", { exact: true }).waitFor();
    await toasts(page).getByRole("button", { name: "Undo" }).click();
    await toasts(page).getByText("Delete undone", { exact: true }).waitFor();
    await card.waitFor();
    expect((await h.apiJson<Trunk[]>("GET", "/api/trunks")).find((t) => t.id === spare.id)).toMatchObject({
      name: "Spare",
      host: "sip.spare.example",
    });
  },
  TEST_TIMEOUT,
);

test(
  "a trunk an outbound route uses: the dialog lists the route, says what to change, and Delete is disabled",
  async () => {
    const carrier = await h.apiJson<Trunk>("POST", "/api/trunks", {
      name: "Carrier",
      type: "sip",
      host: "sip.c.example",
    });
    await h.apiJson("POST", "/api/outbound-routes", {
      name: "UK mobiles",
      dialPatterns: ["07XXXXXXXXX"],
      trunkId: carrier.id,
    });
    const page = await screen("/trunks", "Trunks");
    const button = trunkCards(page)
      .filter({ hasText: "Carrier" })
      .getByRole("button", { name: "Delete trunk Carrier" });
    await button.click();
    const dialog = page.getByRole("dialog", { name: "Delete trunk Carrier?" });
    const usedBy = dialog.getByRole("list", { name: "Used by" }).getByRole("listitem");
    await usedBy.first().waitFor();
    expect(await usedBy.allTextContents()).toEqual(["Outbound route UK mobiles"]);
    expect(await dialog.getByRole("alert").textContent()).toBe(
      "Trunk Carrier is used by outbound route(s): UK mobiles. Delete or change them first.",
    );
    expect(await dialog.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    // Cancelled: focus goes back to the button that asked.
    expect(await button.evaluate((b) => b === document.activeElement)).toBe(true);
    expect((await h.apiJson<Trunk[]>("GET", "/api/trunks")).some((t) => t.id === carrier.id)).toBe(true);
  },
  TEST_TIMEOUT,
);

test(
  "an extension a PTT group pages cannot be deleted; once free, Undo brings it back with its id and in the web dialer",
  async () => {
    const ext = await h.apiJson<Extension>("POST", "/api/extensions", { extension: "2001", name: "Dock door" });
    const group = await h.apiJson<{ id: number }>("POST", "/api/ptt-groups", {
      name: "Yard",
      extension: "8100",
      members: ["2001"],
    });
    // A configured web dialer: each push-all sends the extensions as they are then (spec: after a create or
    // delete); the undo must send them again, or the dialer keeps missing the extension that is back.
    const pushes: string[][] = [];
    const page = await h.signedInPage("/extensions", {
      before: async (p) => {
        await p.route("**/api/dialer/status", (route) =>
          route.fulfill({ status: 200, contentType: "application/json", body: '{"configured":true}' }),
        );
        await p.route("**/api/dialer/push-all", async (route) => {
          const now = await h.apiJson<Extension[]>("GET", "/api/extensions");
          pushes.push(now.map((e) => e.extension).filter((n) => n === "2001"));
          await route.fulfill({ status: 200, contentType: "application/json", body: `{"count":${now.length}}` });
        });
      },
    });
    await page.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
    await page.getByRole("button", { name: "Delete extension 2001" }).click();
    let dialog = page.getByRole("dialog", { name: "Delete extension 2001?" });
    await dialog.getByRole("list", { name: "Used by" }).getByText("Yard").waitFor();
    expect(await dialog.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });

    await h.api("DELETE", `/api/ptt-groups/${group.id}`);
    await page.getByRole("button", { name: "Delete extension 2001" }).click();
    dialog = page.getByRole("dialog", { name: "Delete extension 2001?" });
    await dialog.getByText("Nothing else in the console uses it.").waitFor();
    const deletePush = page.waitForResponse("**/api/dialer/push-all");
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Delete extension 2001" }).waitFor({ state: "detached" });
    expect((await focused(page)).tag).not.toBe("BODY");
    await deletePush;
    expect(pushes).toEqual([[]]); // the delete's push: 2001 gone
    const undoPush = page.waitForResponse("**/api/dialer/push-all");
    await toasts(page).getByRole("button", { name: "Undo" }).click();
    await page.getByRole("button", { name: "Delete extension 2001" }).waitFor();
    const back = (await h.apiJson<Extension[]>("GET", "/api/extensions")).find((e) => e.extension === "2001");
    expect(back).toMatchObject({ id: ext.id, name: "Dock door", hasSecret: true });
    await undoPush;
    expect(pushes).toEqual([[], ["2001"]]); // the undo's push: 2001 back
  },
  TEST_TIMEOUT,
);

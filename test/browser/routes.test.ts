// The Inbound Routes (/inbound-routes) and Outbound Routes (/outbound-routes) screens through chromium
// against the built binary. Tests run in order on one server.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { InboundRoute, OutboundRoute, Trunk } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;
let carrier: Trunk;

beforeAll(async () => {
  h = await startHarness();
  carrier = await h.apiJson<Trunk>("POST", "/api/trunks", {
    name: "Carrier One",
    type: "sip",
    host: "sip.one.example",
  });
});

afterEach(() => h?.closePages());
afterAll(() => h?.stop());

async function screen(path: string, heading: string): Promise<Page> {
  const page = await h.signedInPage(path);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  return page;
}

const isPost = (path: string) => (r: { url(): string; method(): string }) =>
  r.url().endsWith(path) && r.method() === "POST";

describe("inbound routes", () => {
  const listRoutes = () => h.apiJson<InboundRoute[]>("GET", "/api/inbound-routes");
  const open = () => screen("/inbound-routes", "Inbound Routes");
  const card = (page: Page, text: string) =>
    page.getByRole("list", { name: "Inbound routes" }).getByRole("listitem").filter({ hasText: text });
  async function openDialog(page: Page) {
    await page.getByRole("button", { name: "Add Inbound Route" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Inbound Route" });
    await dialog.waitFor();
    return dialog;
  }

  test(
    "no routes: the empty state",
    async () => {
      const page = await open();
      await page.getByText("No inbound routes").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "create with a DID: the card shows DID and '→ type destination'; there is no trunk field (FreePBX matches DIDs)",
    async () => {
      const page = await open();
      const dialog = await openDialog(page);
      expect(await dialog.getByLabel("Trunk", { exact: true }).count()).toBe(0);
      expect(await dialog.getByLabel("Destination type", { exact: true }).textContent()).toBe("Extension");
      await dialog.getByLabel("Description", { exact: true }).fill("Sales line");
      await dialog.getByLabel("DID number", { exact: true }).fill("442071234567");
      await chooseOption(page, dialog, "Destination type", "Queue");
      // FreePBX routes to a queue's number: a name is refused under the input, as the deploy would refuse it.
      await dialog.getByLabel("Destination", { exact: true }).fill("Sales");
      await dialog.getByRole("button", { name: "Create Route" }).click();
      await dialog.getByText("Destination must be the queue's number in FreePBX (400), not its name").waitFor();
      await dialog.getByLabel("Destination", { exact: true }).fill("400");
      const sent = page.waitForRequest(isPost("/api/inbound-routes"));
      await dialog.getByRole("button", { name: "Create Route" }).click();
      expect((await sent).postDataJSON()).toEqual({
        description: "Sales line",
        didNumber: "442071234567",
        destination: "400",
        destinationType: "queue",
        recording: "dontcare",
      });
      await toasts(page).getByText("Route created", { exact: true }).waitFor();
      await dialog.waitFor({ state: "detached" });
      const sales = card(page, "Sales line");
      await sales.getByText("DID: 442071234567").waitFor();
      await sales.getByText("→ queue 400").waitFor();
      expect(await sales.getByText("Carrier One", { exact: true }).count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "a route without a DID sends no trunkId; the dialog opens reset",
    async () => {
      const page = await open();
      const dialog = await openDialog(page);
      expect(await dialog.getByLabel("Description", { exact: true }).inputValue()).toBe("");
      await dialog.getByLabel("Description", { exact: true }).fill("Reception");
      await dialog.getByLabel("DID number", { exact: true }).fill("5551000");
      await dialog.getByLabel("Destination", { exact: true }).fill("1001");
      const sent = page.waitForRequest(isPost("/api/inbound-routes"));
      await dialog.getByRole("button", { name: "Create Route" }).click();
      const body = (await sent).postDataJSON();
      expect("trunkId" in body).toBe(false);
      expect(body).toMatchObject({ destinationType: "extension", destination: "1001" });
      const reception = card(page, "Reception");
      await reception.getByText("→ extension 1001").waitFor();
      expect("trunkId" in ((await listRoutes()).find((r) => r.description === "Reception") ?? {})).toBe(false);
    },
    TEST_TIMEOUT,
  );

  test(
    "bad input shows errors under the fields (ours and the server's) and creates nothing",
    async () => {
      const before = (await listRoutes()).length;
      const page = await open();
      const dialog = await openDialog(page);
      await dialog.getByRole("button", { name: "Create Route" }).click();
      for (const [label, message] of [
        ["Description", "Description is required"],
        ["Destination", "Destination is required"],
      ] as const) {
        const error = dialog.getByText(message, { exact: true });
        await error.waitFor();
        expect(await dialog.getByLabel(label, { exact: true }).getAttribute("aria-describedby")).toBe(
          await error.getAttribute("id"),
        );
      }
      // An extension destination must be a number: the form knows the rule the deploy applies (one validator).
      await dialog.getByLabel("Description", { exact: true }).fill("Broken");
      await dialog.getByLabel("DID number", { exact: true }).fill("5552000");
      await dialog.getByLabel("Destination", { exact: true }).fill("front desk");
      await dialog.getByRole("button", { name: "Create Route" }).click();
      const error = dialog.getByText("Destination must be an extension number (1001)", { exact: true });
      await error.waitFor();
      expect(await dialog.getByLabel("Destination", { exact: true }).getAttribute("aria-describedby")).toBe(
        await error.getAttribute("id"),
      );
      // The server's own field error (a DID already routed) lands under its field too.
      await dialog.getByLabel("Destination", { exact: true }).fill("1001");
      await dialog.getByLabel("DID number", { exact: true }).fill("442071234567");
      await dialog.getByRole("button", { name: "Create Route" }).click();
      await dialog.getByText("Already routed", { exact: true }).waitFor();
      await toasts(page).getByText("Failed to create inbound route.", { exact: true }).waitFor();
      expect((await listRoutes()).length).toBe(before);
    },
    TEST_TIMEOUT,
  );

  test(
    "delete (confirmed) removes the card with a toast",
    async () => {
      const page = await open();
      await page.getByRole("button", { name: "Delete inbound route Reception" }).click();
      await page
        .getByRole("dialog", { name: "Delete inbound route Reception?" })
        .getByRole("button", { name: "Delete", exact: true })
        .click();
      await toasts(page).getByText("Route deleted", { exact: true }).waitFor();
      await card(page, "Reception").waitFor({ state: "detached" });
      expect((await listRoutes()).some((r) => r.description === "Reception")).toBe(false);
    },
    TEST_TIMEOUT,
  );
});

describe("outbound routes", () => {
  const listRoutes = () => h.apiJson<OutboundRoute[]>("GET", "/api/outbound-routes");
  const open = () => screen("/outbound-routes", "Outbound Routes");
  const card = (page: Page, text: string) =>
    page.getByRole("list", { name: "Outbound routes" }).getByRole("listitem").filter({ hasText: text });
  async function openDialog(page: Page) {
    await page.getByRole("button", { name: "Add Outbound Route" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Outbound Route" });
    await dialog.waitFor();
    return dialog;
  }
  /** The patterns shown in the dialog, read from their remove buttons. */
  async function patternsIn(dialog: Locator) {
    const buttons = await dialog.getByRole("button", { name: /^Remove pattern / }).all();
    return Promise.all(
      buttons.map(async (b) => ((await b.getAttribute("aria-label")) ?? "").slice("Remove pattern ".length)),
    );
  }
  /** Waits until the dialog shows exactly these patterns, in this order. */
  async function expectPatterns(dialog: Locator, expected: readonly string[]) {
    const last = expected.at(-1);
    if (last === undefined) await dialog.getByText("No patterns yet. Add at least one.").waitFor();
    else await dialog.getByRole("button", { name: `Remove pattern ${last}`, exact: true }).waitFor();
    expect(await patternsIn(dialog)).toEqual([...expected]);
  }
  const patternInput = (dialog: Locator) => dialog.getByRole("textbox", { name: "Dial patterns" });

  // The templates of docs/product/entities-and-validation.md#route-templates, written out rather than
  // imported so the test checks the product rule, not the module.
  const UK = ["0[123456789]XXXXXXXXX", "07XXXXXXXXX", "+44XXXXXXXXXX"];
  const IL = ["0[234589]XXXXXXX", "05XXXXXXXX", "+972XXXXXXXXX"];
  const US = ["1NXXNXXXXXX", "+1NXXNXXXXXX"];

  test(
    "no routes: the empty state",
    async () => {
      const page = await open();
      await page.getByText("No outbound routes").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "each template fills name and exact patterns; only Custom shows the pattern input",
    async () => {
      const page = await open();
      const dialog = await openDialog(page);
      // Custom Route is the starting template: no patterns, the input shown, submit disabled.
      expect(await dialog.getByLabel("Template", { exact: true }).textContent()).toBe("Custom Route");
      await expectPatterns(dialog, []);
      await patternInput(dialog).waitFor();
      expect(await dialog.getByRole("button", { name: "Create Route" }).isDisabled()).toBe(true);

      for (const [template, patterns] of [
        ["UK Calling", UK],
        ["Israel Calling", IL],
        ["USA Calling", US],
        ["International Combined", [...UK, ...IL, ...US]],
        ["Custom Route", []],
      ] as const) {
        await chooseOption(page, dialog, "Template", template);
        await expectPatterns(dialog, [...patterns]);
        const name = dialog.getByLabel("Name", { exact: true });
        expect(await name.inputValue()).toBe(template === "Custom Route" ? "" : template);
        expect(await patternInput(dialog).count()).toBe(template === "Custom Route" ? 1 : 0);
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "custom patterns: added by button and by Enter (without submitting), trimmed, empty ignored, removable",
    async () => {
      const page = await open();
      let posts = 0;
      page.on("request", (r) => {
        if (isPost("/api/outbound-routes")(r)) posts += 1;
      });
      const dialog = await openDialog(page);
      const input = patternInput(dialog);
      const add = dialog.getByRole("button", { name: "Add", exact: true });

      await input.fill("   ");
      await add.click();
      await expectPatterns(dialog, []);

      await input.fill("  NXXNXXXXXX  ");
      await add.click();
      await expectPatterns(dialog, ["NXXNXXXXXX"]);
      expect(await input.inputValue()).toBe("");

      await dialog.getByLabel("Name", { exact: true }).fill("Local");
      await input.fill("00972XXXXXXXXX");
      await input.press("Enter");
      await expectPatterns(dialog, ["NXXNXXXXXX", "00972XXXXXXXXX"]);
      await input.fill("911");
      await input.press("Enter");
      await expectPatterns(dialog, ["NXXNXXXXXX", "00972XXXXXXXXX", "911"]);
      expect(await dialog.isVisible()).toBe(true);
      expect(posts).toBe(0);

      // A pattern with characters FreePBX does not know is refused under the input.
      await input.fill("12a");
      await input.press("Enter");
      await dialog.getByText("Dial patterns may only contain 0-9 * # + - . [ ] X N Z").waitFor();
      expect(await patternsIn(dialog)).toHaveLength(3);

      await dialog.getByRole("button", { name: "Remove pattern 00972XXXXXXXXX" }).click();
      await expectPatterns(dialog, ["NXXNXXXXXX", "911"]);

      // Without a trunk the form says so under the field and sends nothing.
      await dialog.getByRole("button", { name: "Create Route" }).click();
      const trunkError = dialog.getByText("Trunk is required", { exact: true });
      await trunkError.waitFor();
      expect(await dialog.getByLabel("Trunk", { exact: true }).getAttribute("aria-describedby")).toBe(
        await trunkError.getAttribute("id"),
      );
      expect(posts).toBe(0);

      await dialog.getByRole("button", { name: "Remove pattern NXXNXXXXXX" }).click();
      await dialog.getByRole("button", { name: "Remove pattern 911" }).click();
      expect(await dialog.getByRole("button", { name: "Create Route" }).isDisabled()).toBe(true);

      await input.fill("NXXXXXX");
      await add.click();
      await chooseOption(page, dialog, "Trunk", "Carrier One");
      const sent = page.waitForRequest(isPost("/api/outbound-routes"));
      await dialog.getByRole("button", { name: "Create Route" }).click();
      expect((await sent).postDataJSON()).toEqual({
        name: "Local",
        dialPatterns: ["NXXXXXX"],
        trunkId: carrier.id,
        routeOrder: 0,
        recording: "dontcare",
      });
      await toasts(page).getByText("Route created", { exact: true }).waitFor();
      await dialog.waitFor({ state: "detached" });
      await card(page, "Local").getByText("via Carrier One").waitFor();
      // Don't care decides nothing: the card shows no recording mode.
      expect(await card(page, "Local").getByTestId("recording-mode").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "call recording: FreePBX's modes with their meanings; the chosen one is sent, on the card, and kept by an edit",
    async () => {
      const page = await open();
      const dialog = await openDialog(page);
      await dialog.getByText("Force: always recorded", { exact: false }).waitFor();
      expect(await dialog.getByLabel("Call recording", { exact: true }).textContent()).toBe("Don't care");
      await dialog.getByLabel("Call recording", { exact: true }).click();
      expect(await page.getByRole("option").allTextContents()).toEqual([
        "Force",
        "Yes",
        "Don't care",
        "No",
        "Never",
        "Keep the PBX's setting",
      ]);
      await page.getByRole("option", { name: "Force", exact: true }).click();
      await chooseOption(page, dialog, "Template", "Israel Calling");
      await chooseOption(page, dialog, "Trunk", "Carrier One");
      const sent = page.waitForRequest(isPost("/api/outbound-routes"));
      await dialog.getByRole("button", { name: "Create Route" }).click();
      expect((await sent).postDataJSON()).toMatchObject({ name: "Israel Calling", recording: "force" });
      await dialog.waitFor({ state: "detached" });
      const israel = card(page, "Israel Calling");
      expect(await israel.getByTestId("recording-mode").textContent()).toBe("Recording: Force");

      // Edited to the PBX's own: the card says nothing, the API says null.
      await israel.getByRole("button", { name: "Edit outbound route Israel Calling" }).click();
      const edit = page.getByRole("dialog", { name: "Edit Outbound Route" });
      expect(await edit.getByLabel("Call recording", { exact: true }).textContent()).toBe("Force");
      await chooseOption(page, edit, "Call recording", "Keep the PBX's setting");
      await edit.getByRole("button", { name: "Save Changes" }).click();
      await edit.waitFor({ state: "detached" });
      await israel.getByTestId("recording-mode").waitFor({ state: "detached" });
      expect((await listRoutes()).find((r) => r.name === "Israel Calling")?.recording).toBeNull();
    },
    TEST_TIMEOUT,
  );

  test(
    "a template route: the card shows every pattern badge and the trunk; the dialog opens reset",
    async () => {
      const page = await open();
      const dialog = await openDialog(page);
      await chooseOption(page, dialog, "Template", "UK Calling");
      await dialog.getByRole("button", { name: "Remove pattern 07XXXXXXXXX" }).click();
      await chooseOption(page, dialog, "Trunk", "Carrier One");
      await dialog.getByRole("button", { name: "Create Route" }).click();
      await toasts(page).getByText("Route created", { exact: true }).waitFor();
      const uk = card(page, "UK Calling");
      const badges = uk.getByRole("list", { name: "Dial patterns of UK Calling" }).getByRole("listitem");
      await badges.first().waitFor();
      expect(await badges.allTextContents()).toEqual(["0[123456789]XXXXXXXXX", "+44XXXXXXXXXX"]);
      await uk.getByText("via Carrier One").waitFor();
      expect((await listRoutes()).find((r) => r.name === "UK Calling")?.dialPatterns).toEqual([
        "0[123456789]XXXXXXXXX",
        "+44XXXXXXXXXX",
      ]);

      const again = await openDialog(page);
      expect(await again.getByLabel("Template", { exact: true }).textContent()).toBe("Custom Route");
      expect(await again.getByLabel("Name", { exact: true }).inputValue()).toBe("");
      await expectPatterns(again, []);
      expect(await again.getByLabel("Trunk", { exact: true }).textContent()).toBe("Choose a trunk");

      // The server's field error (the name is taken) lands under Name; nothing is created.
      const before = (await listRoutes()).length;
      await chooseOption(page, again, "Template", "UK Calling");
      await chooseOption(page, again, "Trunk", "Carrier One");
      await again.getByRole("button", { name: "Create Route" }).click();
      await again.getByText("Name already in use", { exact: true }).waitFor();
      await toasts(page).getByText("Failed to create outbound route.", { exact: true }).waitFor();
      expect((await listRoutes()).length).toBe(before);
    },
    TEST_TIMEOUT,
  );

  test(
    "a trunk the console does not know shows 'Unknown Trunk'",
    async () => {
      const page = await h.signedInPage("/outbound-routes", {
        before: (p) =>
          p.route("**/api/trunks", (route) =>
            route.fulfill({ status: 200, contentType: "application/json", body: "[]" }),
          ),
      });
      await card(page, "Local").getByText("via Unknown Trunk").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "delete (confirmed) removes the card with a toast",
    async () => {
      const page = await open();
      await page.getByRole("button", { name: "Delete outbound route Local" }).click();
      await page
        .getByRole("dialog", { name: "Delete outbound route Local?" })
        .getByRole("button", { name: "Delete", exact: true })
        .click();
      await toasts(page).getByText("Route deleted", { exact: true }).waitFor();
      await card(page, "Local").waitFor({ state: "detached" });
      expect((await listRoutes()).some((r) => r.name === "Local")).toBe(false);
    },
    TEST_TIMEOUT,
  );
});

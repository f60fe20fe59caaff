// The Ring Groups screen (/ring-groups) through chromium against the built binary: the sidebar entry, create
// with extensions and an external number and a no-answer destination, field errors (ours and the server's),
// edit, a delete refused while an inbound route sends calls to the group, and the inbound route dialog's new
// destination kinds. Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { InboundRoute, RingGroup } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listGroups = () => h.apiJson<RingGroup[]>("GET", "/api/ring-groups");

async function ringPage(): Promise<Page> {
  const page = await h.signedInPage("/ring-groups");
  await page.getByRole("heading", { level: 1, name: "Ring Groups" }).waitFor();
  return page;
}
const card = (page: Page, name: string) =>
  page.getByRole("list", { name: "Ring groups" }).getByRole("listitem").filter({ hasText: name });

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Add Ring Group" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Ring Group" });
  await dialog.waitFor();
  return dialog;
}

test(
  "the sidebar leads to the screen; no groups: the empty state",
  async () => {
    const page = await h.signedInPage("/");
    await page.getByRole("link", { name: "Ring Groups" }).first().click();
    await page.getByRole("heading", { level: 1, name: "Ring Groups" }).waitFor();
    await page.getByText("No Ring Groups").waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "create with two extensions, an external number and a voicemail destination: the card shows them",
  async () => {
    for (const [extension, name] of [
      ["1002", "Bob"],
      ["1001", "Alice"],
    ])
      await h.apiJson("POST", "/api/extensions", { extension, name, voicemail: true });
    const page = await ringPage();
    const dialog = await openDialog(page);
    await dialog.getByRole("group", { name: "Members" }).getByRole("checkbox").first().waitFor();
    const submit = dialog.getByRole("button", { name: "Create Group" });
    expect(await submit.isDisabled()).toBe(true);

    await dialog.getByLabel("Name", { exact: true }).fill("Sales");
    await dialog.getByLabel("Number", { exact: true }).fill("600");
    await chooseOption(page, dialog, "Strategy", "Hunt");
    await dialog.getByLabel("Ring time (seconds)", { exact: true }).fill("30");
    await dialog.getByRole("checkbox", { name: "1001 - Alice" }).click();
    await dialog.getByRole("checkbox", { name: "1002 - Bob" }).click();
    await dialog.getByLabel("External number", { exact: true }).fill("5551234");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await dialog.getByRole("list", { name: "External numbers" }).getByText("5551234").waitFor();
    await chooseOption(page, dialog, "If no one answers", "Voicemail");
    await dialog.getByLabel("Destination number", { exact: true }).fill("1001");

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/ring-groups") && r.method() === "POST");
    await submit.click();
    expect((await sent).postDataJSON()).toEqual({
      name: "Sales",
      number: "600",
      strategy: "hunt",
      ringTime: 30,
      members: ["1001", "1002", "5551234#"],
      noAnswer: { kind: "voicemail", target: "1001" },
    });
    await toasts(page).getByText("Ring Group created", { exact: true }).waitFor();
    await dialog.waitFor({ state: "detached" });
    const sales = card(page, "Sales");
    await sales.getByText("600", { exact: true }).waitFor();
    await sales.getByText("Hunt", { exact: true }).waitFor();
    await sales.getByText("3 members", { exact: true }).waitFor();
    await sales.getByText("No answer → voicemail 1001").waitFor();
    const shown = sales.getByRole("list", { name: "Members of Sales" }).getByRole("listitem");
    expect(await shown.allTextContents()).toEqual(["1001", "1002", "5551234 (external)"]);
  },
  TEST_TIMEOUT,
);

test(
  "bad input shows errors under the fields (ours and the server's) and creates nothing",
  async () => {
    const before = (await listGroups()).length;
    const page = await ringPage();
    const dialog = await openDialog(page);
    await dialog.getByRole("checkbox", { name: "1001 - Alice" }).click();
    await dialog.getByLabel("Number", { exact: true }).fill("6a0");
    await dialog.getByLabel("Ring time (seconds)", { exact: true }).fill("301");
    await dialog.getByRole("button", { name: "Create Group" }).click();
    for (const [label, message] of [
      ["Name", "Name is required"],
      ["Number", "Number must contain digits only"],
      ["Ring time (seconds)", "Ring time must be 1-300 seconds"],
    ] as const) {
      const error = dialog.getByText(message, { exact: true });
      await error.waitFor();
      expect(await dialog.getByLabel(label, { exact: true }).getAttribute("aria-describedby")).toBe(
        await error.getAttribute("id"),
      );
    }
    // The number is an extension's: the server says so under the field.
    await dialog.getByLabel("Name", { exact: true }).fill("Clash");
    await dialog.getByLabel("Number", { exact: true }).fill("1002");
    await dialog.getByLabel("Ring time (seconds)", { exact: true }).fill("20");
    await dialog.getByRole("button", { name: "Create Group" }).click();
    await dialog.getByText("1002 is already an extension", { exact: true }).waitFor();
    await toasts(page).getByText("Failed to create ring group.", { exact: true }).waitFor();
    expect((await listGroups()).length).toBe(before);
  },
  TEST_TIMEOUT,
);

test(
  "edit: the dialog comes prefilled and saves the change",
  async () => {
    const page = await ringPage();
    await page.getByRole("button", { name: "Edit ring group Sales" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Ring Group" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("Number", { exact: true }).inputValue()).toBe("600");
    await dialog.getByRole("button", { name: "Remove 5551234" }).click();
    await chooseOption(page, dialog, "If no one answers", "Hang up");
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("Ring Group saved", { exact: true }).waitFor();
    await card(page, "Sales").getByText("No answer → hang up").waitFor();
    const [g] = await listGroups();
    expect(g).toMatchObject({ members: ["1001", "1002"], noAnswer: { kind: "hangup", target: "" } });
  },
  TEST_TIMEOUT,
);

test(
  "the inbound route dialog offers ring groups (and the other kinds); the group then cannot be deleted",
  async () => {
    const page = await h.signedInPage("/inbound-routes");
    await page.getByRole("button", { name: "Add Inbound Route" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Inbound Route" });
    await dialog.waitFor();
    await dialog.getByLabel("Destination type", { exact: true }).click();
    for (const kind of ["Ring group", "Page (PTT) group", "Hang up", "Time condition", "Announcement"])
      await page.getByRole("option", { name: kind, exact: true }).waitFor();
    await page.getByRole("option", { name: "Ring group", exact: true }).click();
    await dialog.getByLabel("Description", { exact: true }).fill("Main line");
    await dialog.getByLabel("DID number", { exact: true }).fill("5550100");
    await dialog.getByLabel("Destination", { exact: true }).fill("600");
    await dialog.getByRole("button", { name: "Create Route" }).click();
    await toasts(page).getByText("Route created", { exact: true }).waitFor();
    await page.getByText("→ ring group 600").waitFor();
    const routes = await h.apiJson<InboundRoute[]>("GET", "/api/inbound-routes");
    expect(routes.find((r) => r.description === "Main line")).toMatchObject({
      destinationType: "ring-group",
      destination: "600",
    });

    const groups = await ringPage();
    await groups.getByRole("button", { name: "Delete ring group Sales" }).click();
    const confirm = groups.getByRole("dialog", { name: "Delete ring group Sales?" });
    await confirm
      .getByText("Inbound route(s) Main line send calls to ring group 600. Change it first.", { exact: true })
      .waitFor();
    await confirm.getByRole("list", { name: "Used by" }).getByText("Main line").waitFor();
    expect(await confirm.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
    expect((await listGroups()).length).toBe(1);
  },
  TEST_TIMEOUT,
);

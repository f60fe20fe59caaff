// The Push-to-Talk Groups screen (/ptt-groups) through chromium against the built binary.
// Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { PttGroup } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toasts } from "./locators";

let h: Harness;

// Created out of order on purpose: the checklist sorts numerically ("999" before "1001", "1002" before "1010").
const EXTENSIONS = [
  ["1010", "Judy"],
  ["1002", "Bob"],
  ["1001", "Alice"],
  ["999", "Front desk"],
  ["1003", "Carol"],
  ["1004", "Dave"],
] as const;

beforeAll(async () => {
  h = await startHarness();
});

afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listGroups = () => h.apiJson<PttGroup[]>("GET", "/api/ptt-groups");

async function pttPage(): Promise<Page> {
  const page = await h.signedInPage("/ptt-groups");
  await page.getByRole("heading", { level: 1, name: "Push-to-Talk Groups" }).waitFor();
  return page;
}

const card = (page: Page, name: string) =>
  page.getByRole("list", { name: "PTT groups" }).getByRole("listitem").filter({ hasText: name });

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Add PTT Group" }).click();
  const dialog = page.getByRole("dialog", { name: "Add PTT Group" });
  await dialog.waitFor();
  return dialog;
}

test(
  "no groups: the empty state",
  async () => {
    const page = await pttPage();
    await page.getByText("No PTT Groups").waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "without extensions the checklist says so and the group cannot be submitted",
  async () => {
    const page = await pttPage();
    const dialog = await openDialog(page);
    await dialog.getByText("No extensions yet.").waitFor();
    expect(await dialog.getByRole("button", { name: "Create Group" }).isDisabled()).toBe(true);
  },
  TEST_TIMEOUT,
);

test(
  "create with 5 members, two-way: the card shows badges, the first 3 members and '+2 more'",
  async () => {
    for (const [extension, name] of EXTENSIONS) await h.apiJson("POST", "/api/extensions", { extension, name });
    const page = await pttPage();
    const dialog = await openDialog(page);
    const members = dialog.getByRole("group", { name: "Members" }).getByRole("checkbox");
    await members.first().waitFor();
    const labels = await dialog.locator("label[for]").filter({ hasText: / - / }).allTextContents();
    expect(labels).toEqual([
      "999 - Front desk",
      "1001 - Alice",
      "1002 - Bob",
      "1003 - Carol",
      "1004 - Dave",
      "1010 - Judy",
    ]);
    // Defaults: duplex off; no auto-answer switch (FreePBX pages always auto-answer); no member → no submit.
    expect(await dialog.getByRole("switch", { name: "Two-way (duplex)" }).getAttribute("aria-checked")).toBe("false");
    expect(await dialog.getByRole("switch", { name: "Auto-answer" }).count()).toBe(0);
    await dialog.getByText("Members' phones answer pages automatically.").waitFor();
    const submit = dialog.getByRole("button", { name: "Create Group" });
    expect(await submit.isDisabled()).toBe(true);

    await dialog.getByLabel("Name", { exact: true }).fill("Warehouse");
    await dialog.getByLabel("Extension", { exact: true }).fill("8000");
    await dialog.getByLabel("Description", { exact: true }).fill("Forklift drivers");
    await dialog.getByRole("switch", { name: "Two-way (duplex)" }).click();
    for (const label of ["1010 - Judy", "1002 - Bob", "1001 - Alice", "1003 - Carol", "1004 - Dave"]) {
      await dialog.getByRole("checkbox", { name: label }).click();
    }
    await dialog.getByRole("checkbox", { name: "1004 - Dave" }).click(); // untick …
    expect(await submit.isDisabled()).toBe(false);
    await dialog.getByRole("checkbox", { name: "999 - Front desk" }).click(); // … and tick another

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/ptt-groups") && r.method() === "POST");
    await submit.click();
    const body = (await sent).postDataJSON();
    expect(body).toMatchObject({
      name: "Warehouse",
      extension: "8000",
      description: "Forklift drivers",
      duplex: true,
    });
    expect("autoAnswer" in body).toBe(false);
    expect([...body.members].sort()).toEqual(["1001", "1002", "1003", "1010", "999"]);

    await toasts(page).getByText("PTT Group created", { exact: true }).waitFor();
    await dialog.waitFor({ state: "detached" });
    const warehouse = card(page, "Warehouse");
    await warehouse.getByText("8000", { exact: true }).waitFor();
    await warehouse.getByText("Forklift drivers", { exact: true }).waitFor();
    await warehouse.getByText("5 members", { exact: true }).waitFor();
    await warehouse.getByText("Two-way", { exact: true }).waitFor();
    const shown = warehouse.getByRole("list", { name: "Members of Warehouse" }).getByRole("listitem");
    expect(await shown.allTextContents()).toEqual(["999", "1001", "1002", "+2 more"]);

    // Opened again, the form is back to its defaults.
    const again = await openDialog(page);
    expect(await again.getByLabel("Name", { exact: true }).inputValue()).toBe("");
    expect(await again.getByRole("checkbox", { checked: true }).count()).toBe(0);
    expect(await again.getByRole("switch", { name: "Two-way (duplex)" }).getAttribute("aria-checked")).toBe("false");
  },
  TEST_TIMEOUT,
);

test(
  "one-way: no badge; one member and no '+N more'",
  async () => {
    const page = await pttPage();
    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Security");
    await dialog.getByLabel("Extension", { exact: true }).fill("8001");
    await dialog.getByRole("checkbox", { name: "1004 - Dave" }).click();
    await dialog.getByRole("button", { name: "Create Group" }).click();
    const security = card(page, "Security");
    await security.getByText("1 member", { exact: true }).waitFor();
    expect(await security.getByText("Two-way").count()).toBe(0);
    expect(await security.getByText(/more$/).count()).toBe(0);
    expect((await listGroups()).find((g) => g.name === "Security")).toMatchObject({
      duplex: false,
      members: ["1004"],
    });
  },
  TEST_TIMEOUT,
);

test(
  "bad input shows errors under the fields (ours and the server's) and creates nothing",
  async () => {
    const before = (await listGroups()).length;
    const page = await pttPage();
    const dialog = await openDialog(page);
    await dialog.getByRole("checkbox", { name: "1001 - Alice" }).click();
    await dialog.getByLabel("Extension", { exact: true }).fill("80a");
    await dialog.getByRole("button", { name: "Create Group" }).click();
    for (const [label, message] of [
      ["Name", "Name is required"],
      ["Extension", "Extension must contain digits only"],
    ] as const) {
      const error = dialog.getByText(message, { exact: true });
      await error.waitFor();
      expect(await dialog.getByLabel(label, { exact: true }).getAttribute("aria-describedby")).toBe(
        await error.getAttribute("id"),
      );
    }
    // The group's number may not be an existing extension: the server says so under the field.
    await dialog.getByLabel("Name", { exact: true }).fill("Clash");
    await dialog.getByLabel("Extension", { exact: true }).fill("1001");
    await dialog.getByRole("button", { name: "Create Group" }).click();
    await dialog.getByText("1001 is already an extension", { exact: true }).waitFor();
    await toasts(page).getByText("Failed to create PTT group.", { exact: true }).waitFor();
    expect((await listGroups()).length).toBe(before);
  },
  TEST_TIMEOUT,
);

test(
  "delete (confirmed) removes the card with a toast",
  async () => {
    const page = await pttPage();
    await page.getByRole("button", { name: "Delete PTT group Security" }).click();
    await page
      .getByRole("dialog", { name: "Delete PTT group Security?" })
      .getByRole("button", { name: "Delete", exact: true })
      .click();
    await toasts(page).getByText("PTT Group deleted", { exact: true }).waitFor();
    await card(page, "Security").waitFor({ state: "detached" });
    expect((await listGroups()).some((g) => g.name === "Security")).toBe(false);
  },
  TEST_TIMEOUT,
);

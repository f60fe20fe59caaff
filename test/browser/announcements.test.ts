// The Announcements screen (/announcements) through chromium against the built binary: the sidebar entry, create
// with skipping allowed and a destination after it, field errors (ours and the server's) with nothing stored,
// edit to send calls on to an IVR, a delete refused with the server's 409 message once an inbound route sends
// calls to it, and a delete undone from its toast. No PBX host here: the recording is typed as a number.
// Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Announcement, Ivr } from "../../src/shared/call-flow";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listAnnouncements = () => h.apiJson<Announcement[]>("GET", "/api/announcements");

async function announcementsPage(): Promise<Page> {
  const page = await h.signedInPage("/announcements");
  await page.getByRole("heading", { level: 1, name: "Announcements" }).waitFor();
  return page;
}
const card = (page: Page, name: string) =>
  page.getByRole("list", { name: "Announcements" }).getByRole("listitem").filter({ hasText: name }).first();

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Add Announcement" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Announcement" });
  await dialog.waitFor();
  return dialog;
}

test(
  "the sidebar leads to the screen; no announcements: the empty state",
  async () => {
    const page = await h.signedInPage("/");
    await page.getByRole("link", { name: "Announcements", exact: true }).first().click();
    await page.getByRole("heading", { level: 1, name: "Announcements" }).waitFor();
    await page.getByText("No Announcements", { exact: true }).waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "create with skipping allowed and an extension after it: the card shows them",
  async () => {
    await h.apiJson("POST", "/api/extensions", { extension: "1001", name: "Alice", voicemail: true });
    const page = await announcementsPage();
    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Welcome");
    // No PBX host: the recordings cannot be read, so the recording is a number (empty: none) and says why.
    await dialog.getByText(/the PBX's recordings could not be read/).waitFor();
    await dialog.getByRole("switch", { name: "Callers may skip it" }).click();
    await chooseOption(page, dialog, "After it plays", "Extension");
    await dialog.getByLabel("Destination number", { exact: true }).fill("1001");

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/announcements") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create Announcement" }).click();
    expect((await sent).postDataJSON()).toEqual({
      name: "Welcome",
      recording: null,
      allowSkip: true,
      after: { kind: "extension", target: "1001" },
    });
    await toasts(page).getByText("Announcement created", { exact: true }).waitFor();
    await dialog.waitFor({ state: "detached" });
    const welcome = card(page, "Welcome");
    await welcome.getByText("Recording: None").waitFor();
    await welcome.getByText("Callers may skip it", { exact: true }).waitFor();
    await welcome.getByText("Then → Extension 1001 · Alice").waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "bad input shows errors under the fields (ours and the server's) and creates nothing",
  async () => {
    const before = await listAnnouncements();
    const page = await announcementsPage();
    const dialog = await openDialog(page);
    await dialog.getByLabel("Recording", { exact: true }).fill("2.5");
    await chooseOption(page, dialog, "After it plays", "Ring group");
    await dialog.getByRole("button", { name: "Create Announcement" }).click();
    for (const [label, message] of [
      ["Name", "Name is required"],
      ["Recording", "Recording must be a system recording"],
      ["Destination number", "Destination is required"],
    ] as const) {
      const error = dialog.getByText(message, { exact: true });
      await error.waitFor();
      expect(await dialog.getByLabel(label, { exact: true }).getAttribute("aria-invalid")).toBe("true");
    }
    // Ring group 699 is not the console's: the server says so under the field.
    await dialog.getByLabel("Name", { exact: true }).fill("Promo");
    await dialog.getByLabel("Recording", { exact: true }).fill("");
    await dialog.getByLabel("Destination number", { exact: true }).fill("699");
    await dialog.getByRole("button", { name: "Create Announcement" }).click();
    await dialog.getByText("Ring group 699 does not exist", { exact: true }).waitFor();
    await toasts(page).getByText("Failed to create announcement.", { exact: true }).waitFor();
    expect(await listAnnouncements()).toEqual(before);
  },
  TEST_TIMEOUT,
);

test(
  "edit: the dialog comes prefilled; the call goes on to an IVR, offered by its number and name",
  async () => {
    const ivr = await h.apiJson<Ivr>("POST", "/api/ivrs", {
      name: "Main menu",
      options: [{ digits: "1", destination: { kind: "extension", target: "1001" } }],
    });
    const page = await announcementsPage();
    await page.getByRole("button", { name: "Edit announcement Welcome" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Announcement" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("Welcome");
    expect(await dialog.getByRole("switch", { name: "Callers may skip it" }).getAttribute("aria-checked")).toBe("true");
    await dialog.getByRole("switch", { name: "Callers may skip it" }).click();
    await chooseOption(page, dialog, "After it plays", "IVR");
    // The console's IVRs are offered by the number a destination names them with.
    await dialog.locator(`datalist option[value='${ivr.id}']`).waitFor({ state: "attached" });
    await dialog.getByLabel("Destination number", { exact: true }).fill(String(ivr.id));
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("Announcement saved", { exact: true }).waitFor();
    const welcome = card(page, "Welcome");
    await welcome.getByText(`Then → IVR ${ivr.id} · Main menu`).waitFor();
    await welcome.getByText("Plays to the end", { exact: true }).waitFor();
    const [stored] = await listAnnouncements();
    expect(stored).toMatchObject({ allowSkip: false, after: { kind: "ivr", target: String(ivr.id) } });
  },
  TEST_TIMEOUT,
);

test(
  "an inbound route sends calls to the announcement: the delete is refused with the server's message, then blocked",
  async () => {
    const [welcome] = (await listAnnouncements()) as [Announcement];
    const page = await announcementsPage();
    await page.getByRole("button", { name: "Delete announcement Welcome" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete announcement Welcome?" });
    await confirm.getByText("Nothing else in the console uses it.").waitFor();
    // The route arrives while the confirmation is open: the server refuses the delete (409) and says why.
    await h.apiJson("POST", "/api/inbound-routes", {
      description: "Main line",
      didNumber: "5550100",
      destinationType: "announcement",
      destination: String(welcome.id),
    });
    const blocked = "Inbound route(s) Main line send calls to announcement Welcome. Change it first.";
    const refused = page.waitForResponse(
      (r) => r.url().endsWith(`/api/announcements/${welcome.id}`) && r.status() === 409,
    );
    await confirm.getByRole("button", { name: "Delete", exact: true }).click();
    await refused;
    await toasts(page).getByText("Failed to delete announcement.", { exact: true }).waitFor();
    await toasts(page).getByText(blocked, { exact: true }).waitFor();
    await card(page, "Welcome").waitFor();

    await page.getByRole("button", { name: "Delete announcement Welcome" }).click();
    await confirm.getByText(blocked, { exact: true }).waitFor();
    await confirm.getByRole("list", { name: "Used by" }).getByText("Main line").waitFor();
    expect(await confirm.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
    expect((await listAnnouncements()).map((a) => a.name)).toEqual(["Welcome"]);
  },
  TEST_TIMEOUT,
);

test(
  "an announcement nothing sends calls to: confirm, the card goes, and Undo brings it back",
  async () => {
    await h.apiJson("POST", "/api/announcements", { name: "Closed", after: { kind: "hangup", target: "" } });
    const page = await announcementsPage();
    const closed = card(page, "Closed");
    await closed.getByText("Then → Hang up").waitFor();
    await closed.getByRole("button", { name: "Delete announcement Closed" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete announcement Closed?" });
    await dialog.getByText("Nothing else in the console uses it.").waitFor();
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await closed.waitFor({ state: "detached" });
    expect((await listAnnouncements()).map((a) => a.name)).toEqual(["Welcome"]);
    await toasts(page).getByText("Announcement deleted", { exact: true }).waitFor();
    await toasts(page).getByRole("button", { name: "Undo" }).click();
    await toasts(page).getByText("Delete undone", { exact: true }).waitFor();
    await closed.waitFor();
    expect((await listAnnouncements()).map((a) => a.name).sort()).toEqual(["Closed", "Welcome"]);
  },
  TEST_TIMEOUT,
);

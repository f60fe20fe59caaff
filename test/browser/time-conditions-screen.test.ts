// The Time Conditions screen (/time-conditions) through chromium against the built binary: the sidebar entry and
// both empty lists; a time group made of two weekly rows and a holiday; overlapping rows, a day February does not
// have and a name taken refused under their fields (the schema's messages before any request, the server's after
// one) with nothing stored; a time condition on that group in a zone with two destinations; a group's delete
// refused with the server's 409 while a time condition reads it; edits of both; a time condition's delete undone.
// No PBX host: nothing here reads the PBX. Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { TimeCondition, TimeGroup } from "../../src/shared/call-flow";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listGroups = () => h.apiJson<TimeGroup[]>("GET", "/api/time-groups");
const listConditions = () => h.apiJson<TimeCondition[]>("GET", "/api/time-conditions");

async function screen(): Promise<Page> {
  const page = await h.signedInPage("/time-conditions");
  await page.getByRole("heading", { level: 1, name: "Time Conditions" }).waitFor();
  return page;
}
const groupCard = (page: Page, name: string) =>
  page.getByRole("list", { name: "Time groups" }).getByRole("listitem").filter({ hasText: name }).first();
const conditionCard = (page: Page, name: string) =>
  page.getByRole("list", { name: "Time conditions" }).getByRole("listitem").filter({ hasText: name }).first();

async function openDialog(page: Page, what: "Time Group" | "Time Condition"): Promise<Locator> {
  await page.getByRole("button", { name: `Add ${what}` }).click();
  const dialog = page.getByRole("dialog", { name: `Add ${what}` });
  await dialog.waitFor();
  return dialog;
}

/** The requests to `path` of `method` the page sends from now on. */
function countRequests(page: Page, method: string, path: string) {
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.method() === method && new URL(r.url()).pathname === path) sent.push(r.postData() ?? "");
  });
  return sent;
}

const field = (dialog: Locator, label: string) => dialog.getByLabel(label, { exact: true });

test(
  "the sidebar leads to the screen; with nothing yet, both lists show their empty state",
  async () => {
    const page = await h.signedInPage("/");
    await page.getByRole("link", { name: "Time Conditions", exact: true }).first().click();
    await page.getByRole("heading", { level: 1, name: "Time Conditions" }).waitFor();
    await page.getByText("No Time Groups", { exact: true }).waitFor();
    await page.getByText("No Time Conditions", { exact: true }).waitFor();
    // The override stays on Call Routing: the screen points there.
    await page.getByRole("main").getByRole("link", { name: "Call Routing", exact: true }).waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "a time group of two weekly rows and a holiday: the card reads them as a person would",
  async () => {
    const page = await screen();
    const dialog = await openDialog(page, "Time Group");
    await field(dialog, "Name").fill("Office hours");
    // The first row is there already: Monday to Friday, 08:00 to 17:00.
    expect(await field(dialog, "Start of row 1").inputValue()).toBe("08:00");
    await dialog.getByRole("button", { name: "Add hours" }).click();
    await chooseOption(page, dialog, "From day of row 2", "Saturday");
    await chooseOption(page, dialog, "To day of row 2", "Saturday");
    await field(dialog, "Start of row 2").fill("09:00");
    await field(dialog, "End of row 2").fill("13:00");
    await dialog.getByRole("button", { name: "Add holiday" }).click();
    await chooseOption(page, dialog, "Month of holiday 1", "December");
    await field(dialog, "Day of holiday 1").fill("24");
    await field(dialog, "Last day of holiday 1").fill("26");

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/time-groups") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create Time Group" }).click();
    expect((await sent).postDataJSON()).toEqual({
      name: "Office hours",
      weekly: [
        { fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" },
        { fromDay: "sat", toDay: "sat", start: "09:00", end: "13:00" },
      ],
      holidays: [{ month: "dec", day: 24, toDay: 26 }],
    });
    await toasts(page).getByText("Time group created", { exact: true }).waitFor();
    await dialog.waitFor({ state: "detached" });
    const card = groupCard(page, "Office hours");
    const weekly = card.getByRole("list", { name: "Weekly hours of Office hours" }).getByRole("listitem");
    await weekly.first().waitFor();
    expect(await weekly.allTextContents()).toEqual(["Mon–Fri 08:00–17:00", "Sat 09:00–13:00"]);
    expect(await card.getByRole("list", { name: "Holidays of Office hours" }).textContent()).toBe("24–26 Dec");
    expect((await listGroups()).map((g) => g.name)).toEqual(["Office hours"]);
  },
  TEST_TIMEOUT,
);

test(
  "overlapping rows and a day February lacks are refused before a request; a name taken, by the server; nothing is stored",
  async () => {
    const before = await listGroups();
    const page = await screen();
    const posts = countRequests(page, "POST", "/api/time-groups");
    const dialog = await openDialog(page, "Time Group");
    await field(dialog, "Name").fill("Overlap");
    await dialog.getByRole("button", { name: "Add hours" }).click();
    await chooseOption(page, dialog, "From day of row 2", "Friday");
    await chooseOption(page, dialog, "To day of row 2", "Friday");
    await field(dialog, "Start of row 2").fill("12:00");
    await field(dialog, "End of row 2").fill("18:00");
    await dialog.getByRole("button", { name: "Create Time Group" }).click();
    const overlap = dialog.getByText("Rows 1 and 2 overlap on fri", { exact: true });
    await overlap.waitFor();
    // The list's message is what its fieldset names as its description.
    const weekly = dialog.getByRole("group", { name: "Weekly hours", exact: true });
    expect(await weekly.getAttribute("aria-describedby")).toBe(await overlap.getAttribute("id"));

    await field(dialog, "Start of row 2").fill("17:00");
    await dialog.getByRole("button", { name: "Add holiday" }).click();
    await chooseOption(page, dialog, "Month of holiday 1", "February");
    await field(dialog, "Day of holiday 1").fill("30");
    await dialog.getByRole("button", { name: "Create Time Group" }).click();
    await dialog.getByText("feb has 29 days", { exact: true }).waitFor();
    await overlap.waitFor({ state: "detached" });
    expect(posts).toEqual([]);

    // Now valid but for the name, which only the server knows is taken: its message lands under Name.
    await field(dialog, "Day of holiday 1").fill("14");
    await field(dialog, "Name").fill("Office hours");
    const refused = page.waitForResponse((r) => r.url().endsWith("/api/time-groups") && r.status() === 409);
    await dialog.getByRole("button", { name: "Create Time Group" }).click();
    await refused;
    const taken = dialog.getByText("A time group named Office hours exists already", { exact: true });
    await taken.waitFor();
    expect(await field(dialog, "Name").getAttribute("aria-describedby")).toBe(await taken.getAttribute("id"));
    await toasts(page).getByText("Failed to create time group.", { exact: true }).waitFor();
    expect(posts).toHaveLength(1);
    expect(await listGroups()).toEqual(before);
  },
  TEST_TIMEOUT,
);

test(
  "a time condition on the group in a zone, with both destinations: an unknown zone is refused, then the card names them",
  async () => {
    for (const [extension, name] of [
      ["1001", "Alice"],
      ["1002", "Bob"],
    ])
      await h.apiJson("POST", "/api/extensions", { extension, name, voicemail: true });
    const [office] = (await listGroups()) as [TimeGroup];
    const page = await screen();
    const posts = countRequests(page, "POST", "/api/time-conditions");
    const dialog = await openDialog(page, "Time Condition");
    await field(dialog, "Name").fill("Office");
    await chooseOption(page, dialog, "Time group", "Office hours");
    await field(dialog, "Time zone").fill("Mars/Olympus");
    await chooseOption(page, dialog, "In hours", "Extension");
    await dialog.getByRole("group", { name: "In hours destination" }).getByLabel("Destination number").fill("1001");
    await chooseOption(page, dialog, "Outside hours", "Voicemail");
    await dialog
      .getByRole("group", { name: "Outside hours destination" })
      .getByLabel("Destination number")
      .fill("1002");
    await dialog.getByRole("button", { name: "Create Time Condition" }).click();
    await dialog.getByText("Unknown time zone Mars/Olympus (an IANA name, e.g. Europe/Berlin)").waitFor();
    expect(posts).toEqual([]);

    await field(dialog, "Time zone").fill("Europe/Berlin");
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/time-conditions") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create Time Condition" }).click();
    expect((await sent).postDataJSON()).toEqual({
      name: "Office",
      timeGroup: office.id,
      timeZone: "Europe/Berlin",
      match: { kind: "extension", target: "1001" },
      noMatch: { kind: "voicemail", target: "1002" },
    });
    await toasts(page).getByText("Time condition created", { exact: true }).waitFor();
    const card = conditionCard(page, "Office");
    await card.getByText("Hours: Office hours", { exact: true }).waitFor();
    await card.getByText("Europe/Berlin", { exact: true }).waitFor();
    await card.getByText("In hours → Extension 1001 · Alice").waitFor();
    await card.getByText("Outside hours → Voicemail 1002 · Bob").waitFor();
    const [stored] = (await listConditions()) as [TimeCondition];
    await card.getByText(`Time condition ${stored.id}`, { exact: true }).waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "a group a time condition reads: the delete is refused with the server's message, then blocked",
  async () => {
    const spare = await h.apiJson<TimeGroup>("POST", "/api/time-groups", {
      name: "Spare",
      weekly: [{ fromDay: "sat", start: "10:00", end: "12:00" }],
    });
    const page = await screen();
    await page.getByRole("button", { name: "Delete time group Spare" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete time group Spare?" });
    await confirm.getByText("Nothing else in the console uses it.").waitFor();
    // A time condition comes to read it while the confirmation is open: the server refuses (409) and says why.
    await h.apiJson("POST", "/api/time-conditions", { name: "Weekend", timeGroup: spare.id });
    const blocked = "Time condition(s) Weekend read time group Spare. Change it first.";
    const refused = page.waitForResponse((r) => r.url().endsWith(`/api/time-groups/${spare.id}`) && r.status() === 409);
    await confirm.getByRole("button", { name: "Delete", exact: true }).click();
    await refused;
    await toasts(page).getByText("Failed to delete time group.", { exact: true }).waitFor();
    await toasts(page).getByText(blocked, { exact: true }).waitFor();
    await groupCard(page, "Spare").waitFor();

    // Asked again, the confirmation names the time condition and offers no Delete.
    await page.getByRole("button", { name: "Delete time group Spare" }).click();
    await confirm.getByText(blocked, { exact: true }).waitFor();
    await confirm.getByRole("list", { name: "Used by" }).getByText("Weekend").waitFor();
    expect(await confirm.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
    expect((await listGroups()).map((g) => g.name)).toEqual(["Office hours", "Spare"]);
  },
  TEST_TIMEOUT,
);

test(
  "edit: a group's row removed and its holiday made one day; the condition's zone emptied and its outside hours a hang up",
  async () => {
    const page = await screen();
    await page.getByRole("button", { name: "Edit time group Office hours" }).click();
    const groupDialog = page.getByRole("dialog", { name: "Edit Time Group" });
    await groupDialog.waitFor();
    expect(await field(groupDialog, "End of row 2").inputValue()).toBe("13:00");
    expect(await field(groupDialog, "Last day of holiday 1").inputValue()).toBe("26");
    await groupDialog.getByRole("button", { name: "Remove row 2" }).click();
    await field(groupDialog, "Start of row 2").waitFor({ state: "detached" });
    await field(groupDialog, "Day of holiday 1").fill("25");
    await field(groupDialog, "Last day of holiday 1").fill("");
    await groupDialog.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("Time group saved", { exact: true }).waitFor();
    const group = groupCard(page, "Office hours");
    await group.getByRole("list", { name: "Holidays of Office hours" }).getByText("25 Dec", { exact: true }).waitFor();
    expect(
      await group.getByRole("list", { name: "Weekly hours of Office hours" }).getByRole("listitem").allTextContents(),
    ).toEqual(["Mon–Fri 08:00–17:00"]);

    await page.getByRole("button", { name: "Edit time condition Office" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Time Condition" });
    await dialog.waitFor();
    expect(await field(dialog, "Time zone").inputValue()).toBe("Europe/Berlin");
    await field(dialog, "Time zone").fill("");
    await chooseOption(page, dialog, "Outside hours", "None (end the call)");
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("Time condition saved", { exact: true }).waitFor();
    const card = conditionCard(page, "Office");
    await card.getByText("PBX time zone", { exact: true }).waitFor();
    await card.getByText("Outside hours → Hang up").waitFor();
    const office = (await listConditions()).find((c) => c.name === "Office");
    expect(office).toMatchObject({ timeZone: null, match: { kind: "extension", target: "1001" }, noMatch: null });
    expect((await listGroups()).find((g) => g.name === "Office hours")).toMatchObject({
      weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
      holidays: [{ month: "dec", day: 25, toDay: 25 }],
    });
  },
  TEST_TIMEOUT,
);

test(
  "a time condition nothing sends calls to: confirm, the card goes, and Undo brings it back",
  async () => {
    const page = await screen();
    const weekend = conditionCard(page, "Weekend");
    await weekend.getByRole("button", { name: "Delete time condition Weekend" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete time condition Weekend?" });
    await confirm.getByText("Nothing else in the console uses it.").waitFor();
    await confirm.getByRole("button", { name: "Delete", exact: true }).click();
    await weekend.waitFor({ state: "detached" });
    expect((await listConditions()).map((c) => c.name)).toEqual(["Office"]);
    await toasts(page).getByText("Time condition deleted", { exact: true }).waitFor();
    await toasts(page).getByRole("button", { name: "Undo" }).click();
    await toasts(page).getByText("Delete undone", { exact: true }).waitFor();
    await weekend.waitFor();
    expect((await listConditions()).map((c) => c.name)).toEqual(["Office", "Weekend"]);
  },
  TEST_TIMEOUT,
);

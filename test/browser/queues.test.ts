// The Queues screen (/queues) through chromium against the built binary: the sidebar entry, create with two agents,
// a strategy, a max wait from FreePBX's choices and a timeout destination, field errors (ours and the server's),
// edit, an inbound route sending calls to the queue (which then cannot be deleted), and a delete undone from its
// toast. Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { InboundRoute, Queue } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listQueues = () => h.apiJson<Queue[]>("GET", "/api/queues");

async function queuesPage(): Promise<Page> {
  const page = await h.signedInPage("/queues");
  await page.getByRole("heading", { level: 1, name: "Queues" }).waitFor();
  return page;
}
const card = (page: Page, name: string) =>
  page.getByRole("list", { name: "Queues" }).getByRole("listitem").filter({ hasText: name });

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Add Queue" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Queue" });
  await dialog.waitFor();
  return dialog;
}

test(
  "the sidebar leads to the screen; no queues: the empty state",
  async () => {
    const page = await h.signedInPage("/");
    await page.getByRole("link", { name: "Queues", exact: true }).first().click();
    await page.getByRole("heading", { level: 1, name: "Queues" }).waitFor();
    await page.getByText("No Queues").waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "create with two agents, a strategy, a max wait and a voicemail destination: the card shows them",
  async () => {
    for (const [extension, name] of [
      ["1002", "Bob"],
      ["1001", "Alice"],
    ])
      await h.apiJson("POST", "/api/extensions", { extension, name, voicemail: true });
    const page = await queuesPage();
    const dialog = await openDialog(page);
    await dialog.getByRole("group", { name: "Agents" }).getByRole("checkbox").first().waitFor();
    const submit = dialog.getByRole("button", { name: "Create Queue" });
    expect(await submit.isDisabled()).toBe(true);

    await dialog.getByLabel("Name", { exact: true }).fill("Support");
    await dialog.getByLabel("Number", { exact: true }).fill("400");
    await chooseOption(page, dialog, "Strategy", "Round robin (memory)");
    await chooseOption(page, dialog, "Max wait", "45 seconds");
    await dialog.getByRole("checkbox", { name: "1002 - Bob" }).click();
    await dialog.getByRole("checkbox", { name: "1001 - Alice" }).click();
    await chooseOption(page, dialog, "After the max wait", "Voicemail");
    await dialog.getByLabel("Destination number", { exact: true }).fill("1001");

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/queues") && r.method() === "POST");
    await submit.click();
    expect((await sent).postDataJSON()).toEqual({
      name: "Support",
      number: "400",
      strategy: "rrmemory",
      agents: ["1001", "1002"],
      maxWait: 45,
      timeoutDestination: { kind: "voicemail", target: "1001" },
    });
    await toasts(page).getByText("Queue created", { exact: true }).waitFor();
    await dialog.waitFor({ state: "detached" });
    const support = card(page, "Support");
    await support.getByText("400", { exact: true }).waitFor();
    await support.getByText("Round robin (memory)", { exact: true }).waitFor();
    await support.getByText("2 agents", { exact: true }).waitFor();
    await support.getByText("Max wait: 45 seconds").waitFor();
    await support.getByText("After the max wait → voicemail 1001").waitFor();
    const shown = support.getByRole("list", { name: "Agents of Support" }).getByRole("listitem");
    expect(await shown.allTextContents()).toEqual(["1001", "1002"]);
  },
  TEST_TIMEOUT,
);

test(
  "bad input shows errors under the fields (ours and the server's) and creates nothing",
  async () => {
    const before = (await listQueues()).length;
    const page = await queuesPage();
    const dialog = await openDialog(page);
    await dialog.getByRole("checkbox", { name: "1001 - Alice" }).click();
    await dialog.getByLabel("Number", { exact: true }).fill("4a0");
    await chooseOption(page, dialog, "After the max wait", "Ring group");
    await dialog.getByRole("button", { name: "Create Queue" }).click();
    for (const [label, message] of [
      ["Name", "Name is required"],
      ["Number", "Number must contain digits only"],
      ["Destination number", "Destination is required"],
    ] as const) {
      const error = dialog.getByText(message, { exact: true });
      await error.waitFor();
      expect(await dialog.getByLabel(label, { exact: true }).getAttribute("aria-describedby")).toBe(
        await error.getAttribute("id"),
      );
    }
    // The number is an extension's, the ring group is not there: the server says so under the fields.
    await dialog.getByLabel("Name", { exact: true }).fill("Clash");
    await dialog.getByLabel("Number", { exact: true }).fill("401");
    await dialog.getByLabel("Destination number", { exact: true }).fill("699");
    await dialog.getByRole("button", { name: "Create Queue" }).click();
    await dialog.getByText("Ring group 699 does not exist", { exact: true }).waitFor();
    await toasts(page).getByText("Failed to create queue.", { exact: true }).waitFor();
    await chooseOption(page, dialog, "After the max wait", "None (end the call)");
    await dialog.getByLabel("Number", { exact: true }).fill("1002");
    await dialog.getByRole("button", { name: "Create Queue" }).click();
    await dialog.getByText("1002 is already an extension", { exact: true }).waitFor();
    expect((await listQueues()).length).toBe(before);
  },
  TEST_TIMEOUT,
);

test(
  "edit: the dialog comes prefilled and saves the change",
  async () => {
    const page = await queuesPage();
    await page.getByRole("button", { name: "Edit queue Support" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Queue" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("Number", { exact: true }).inputValue()).toBe("400");
    await chooseOption(page, dialog, "Max wait", "Unlimited");
    await chooseOption(page, dialog, "After the max wait", "Hang up");
    await dialog.getByRole("checkbox", { name: "1002 - Bob" }).click();
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("Queue saved", { exact: true }).waitFor();
    await card(page, "Support").getByText("After the max wait → hang up").waitFor();
    await card(page, "Support").getByText("Max wait: Unlimited").waitFor();
    const [q] = await listQueues();
    expect(q).toMatchObject({ agents: ["1001"], maxWait: 0, timeoutDestination: { kind: "hangup", target: "" } });
  },
  TEST_TIMEOUT,
);

test(
  "an inbound route sends calls to the queue; the queue then cannot be deleted: the dialog names the route",
  async () => {
    const page = await h.signedInPage("/inbound-routes");
    await page.getByRole("button", { name: "Add Inbound Route" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Inbound Route" });
    await dialog.waitFor();
    await chooseOption(page, dialog, "Destination type", "Queue");
    await dialog.getByLabel("Description", { exact: true }).fill("Support line");
    await dialog.getByLabel("DID number", { exact: true }).fill("5550400");
    await dialog.getByLabel("Destination", { exact: true }).fill("400");
    await dialog.getByRole("button", { name: "Create Route" }).click();
    await toasts(page).getByText("Route created", { exact: true }).waitFor();
    await page.getByText("→ queue 400").waitFor();
    const routes = await h.apiJson<InboundRoute[]>("GET", "/api/inbound-routes");
    expect(routes.find((r) => r.description === "Support line")).toMatchObject({
      destinationType: "queue",
      destination: "400",
    });

    const queues = await queuesPage();
    await queues.getByRole("button", { name: "Delete queue Support" }).click();
    const confirm = queues.getByRole("dialog", { name: "Delete queue Support?" });
    await confirm
      .getByText("Inbound route(s) Support line send calls to queue 400. Change it first.", { exact: true })
      .waitFor();
    await confirm.getByRole("list", { name: "Used by" }).getByText("Support line").waitFor();
    expect(await confirm.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
    expect((await listQueues()).length).toBe(1);
  },
  TEST_TIMEOUT,
);

test(
  "a queue nothing sends calls to: confirm, the card goes, and Undo brings it back",
  async () => {
    await h.apiJson("POST", "/api/queues", { name: "Overflow", number: "410", agents: ["1001", "1002"] });
    const page = await queuesPage();
    const overflow = card(page, "Overflow");
    await overflow.getByRole("button", { name: "Delete queue Overflow" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete queue Overflow?" });
    await dialog.getByText("Nothing else in the console uses it.").waitFor();
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await overflow.waitFor({ state: "detached" });
    expect((await listQueues()).map((q) => q.number)).toEqual(["400"]);
    await toasts(page).getByText("Queue deleted", { exact: true }).waitFor();
    await toasts(page).getByRole("button", { name: "Undo" }).click();
    await toasts(page).getByText("Delete undone", { exact: true }).waitFor();
    await overflow.waitFor();
    expect((await listQueues()).map((q) => q.number)).toEqual(["400", "410"]);
  },
  TEST_TIMEOUT,
);

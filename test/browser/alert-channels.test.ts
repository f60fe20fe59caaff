// The Alerts screen's channels card through chromium against the built binary: a webhook channel added through
// the dialog (its made signing secret shown once, then never again), "Send test" delivering to a receiver that
// checks the Standard Webhooks signature itself, a refused form, axe, the keyboard, and a delete confirmed.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { AlertChannel } from "../../src/shared/alert-channels";
import { startFakeWebhookReceiver } from "../fakes/webhook-receiver";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption } from "./locators";

const receiver = startFakeWebhookReceiver();
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await receiver.stop();
});

async function alertsPage(): Promise<Page> {
  const page = await h.signedInPage("/alerts");
  await page.getByRole("heading", { level: 1, name: "Alerts" }).waitFor();
  return page;
}
const channelRow = (page: Page, name: string) =>
  page.getByRole("list", { name: "Alert channels" }).getByRole("listitem", { name });

test(
  "add a webhook channel: the made signing secret is shown once; Send test is delivered and verified",
  async () => {
    const page = await alertsPage();
    await page.getByText("No alert channels yet.").waitFor();
    await page.getByRole("button", { name: "Add Channel" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Alert Channel" });
    await chooseOption(page, dialog, "Kind", "Webhook");
    await dialog.getByLabel("Name", { exact: true }).fill("Ops hook");
    // The outbound URL rule, in the form before anything is sent.
    await dialog.getByLabel("URL", { exact: true }).fill("file:///etc/passwd");
    await dialog.getByRole("button", { name: "Create Channel" }).click();
    await dialog.getByText(/Use an http:\/\/ or https:\/\/ URL/).waitFor();
    expect(await h.apiJson<AlertChannel[]>("GET", "/api/alerts/channels")).toEqual([]);
    await dialog.getByLabel("URL", { exact: true }).fill(`${receiver.url}/hooks/pbx`);
    await dialog.getByRole("button", { name: "Create Channel" }).click();
    await dialog.waitFor({ state: "hidden" });

    const shown = page.getByLabel("Signing secret", { exact: true });
    const secret = await shown.inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receiver.state.secret = secret;

    const row = channelRow(page, "Ops hook");
    await row.getByText(`Signed webhook to ${new URL(receiver.url).host}`).waitFor();
    await row.getByRole("button", { name: "Send test to Ops hook" }).click();
    await row.getByRole("status").filter({ hasText: "Test message delivered." }).waitFor();
    expect(receiver.state.refused).toEqual([]);
    expect(receiver.state.received.at(-1)?.payload).toMatchObject({ type: "alert.test" });
    await row.getByText("Delivered", { exact: true }).waitFor();
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });
    await page.getByRole("button", { name: "Done" }).click();
    await shown.waitFor({ state: "detached" });

    // Never again: not in the screen after a reload, not in the list's answer, not in the edit dialog.
    await page.reload();
    await channelRow(page, "Ops hook").waitFor();
    expect(await page.content()).not.toContain(secret.slice(6));
    const list = await (await h.api("GET", "/api/alerts/channels")).text();
    expect(list).not.toContain(secret.slice(6));
    await channelRow(page, "Ops hook").getByRole("button", { name: "Edit Ops hook" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Ops hook" });
    await edit.getByLabel("Make a new signing secret").waitFor();
    expect(await edit.getByLabel("URL", { exact: true }).inputValue()).toBe(`${receiver.url}/hooks/pbx`);
    expect(await page.content()).not.toContain(secret.slice(6));
    await page.keyboard.press("Escape");
    await edit.waitFor({ state: "hidden" });
  },
  TEST_TIMEOUT,
);

test(
  "a failing receiver is shown as the test's result; the keyboard reaches Delete, which asks first",
  async () => {
    receiver.state.answer = 500;
    const page = await alertsPage();
    const row = channelRow(page, "Ops hook");
    await row.getByRole("button", { name: "Send test to Ops hook" }).click();
    await row
      .getByRole("alert")
      .filter({ hasText: /^Test failed: The webhook at .* answered 500/ })
      .waitFor();
    await row.getByText("Failing", { exact: true }).waitFor();
    receiver.state.answer = null;

    const remove = row.getByRole("button", { name: "Delete Ops hook" });
    await remove.focus();
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("dialog", { name: "Delete Ops hook?" });
    await confirm.getByRole("button", { name: "Delete" }).waitFor();
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });
    await confirm.getByRole("button", { name: "Delete" }).click();
    await page.getByText("No alert channels yet.").waitFor();
    // The row and its button are gone: focus is on the screen's heading, not lost to the page.
    await page.waitForFunction(() => document.activeElement?.tagName === "H1");
    expect(await h.apiJson<AlertChannel[]>("GET", "/api/alerts/channels")).toEqual([]);
  },
  TEST_TIMEOUT,
);

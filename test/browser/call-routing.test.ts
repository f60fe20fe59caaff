// The Call Routing screen (/call-routing) through chromium against the built binary: the sidebar entry, a
// DID followed to the ring group's phones, the same call unanswered to voicemail, field errors under their
// inputs, the comparison with the PBX refused with its reason when no PBX host is configured, and keys pressed in
// an IVR.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  for (const [extension, name] of [
    ["1001", "Alice"],
    ["1002", "Bob"],
  ])
    await h.apiJson("POST", "/api/extensions", { extension, name, voicemail: true });
  await h.apiJson("POST", "/api/ring-groups", {
    name: "Sales",
    number: "600",
    members: ["1001", "1002"],
    noAnswer: { kind: "voicemail", target: "1001" },
  });
  await h.apiJson("POST", "/api/inbound-routes", {
    description: "Main line",
    didNumber: "15550100",
    destinationType: "ring-group",
    destination: "600",
  });
}, 60_000);
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

async function routingPage(): Promise<Page> {
  const page = await h.signedInPage("/call-routing");
  await page.getByRole("heading", { level: 1, name: "Call Routing" }).waitFor();
  return page;
}
const form = (page: Page) => page.getByRole("form", { name: "Follow a call" });
const path = (page: Page) => page.getByRole("region", { name: "The call's path" });

test(
  "the sidebar leads to the screen",
  async () => {
    const page = await h.signedInPage("/");
    await page.getByRole("link", { name: "Call Routing" }).first().click();
    await page.getByRole("heading", { level: 1, name: "Call Routing" }).waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "a DID is followed to the ring group's phones; unanswered, to the voicemail",
  async () => {
    const page = await routingPage();
    // The known DIDs are offered.
    await page.locator("datalist option[value='15550100']").waitFor({ state: "attached" });
    await form(page).getByLabel("DID (number called)").fill("15550100");
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/routing/simulate"));
    await form(page).getByRole("button", { name: "Follow the call" }).click();
    expect((await sent).postDataJSON()).toMatchObject({ did: "15550100", unanswered: false, plan: false });
    const steps = path(page).getByRole("listitem");
    await path(page).getByText("Rings 1001, 1002").waitFor();
    expect(await steps.allTextContents()).toHaveLength(3);
    expect(await steps.nth(1).textContent()).toContain("Main line");
    expect(await steps.nth(2).textContent()).toContain("Ring group 600 · Sales");

    await form(page).getByRole("switch", { name: "Nobody answers" }).click();
    await form(page).getByRole("button", { name: "Follow the call" }).click();
    await path(page).getByText("Ends in voicemail 1001").waitFor();
    expect(await steps.nth(3).textContent()).toContain("Voicemail 1001 · Alice");

    // A time (the browser's local time) goes out as the instant it is, for the time conditions on the way.
    await form(page).getByLabel("When (your local time; empty: now)").fill("2026-12-05T22:30");
    const timed = page.waitForRequest((r) => r.url().endsWith("/api/routing/simulate"));
    await form(page).getByRole("button", { name: "Follow the call" }).click();
    const instant = await page.evaluate(() => new Date("2026-12-05T22:30").toISOString());
    expect((await timed).postDataJSON()).toMatchObject({ did: "15550100", at: instant });
  },
  TEST_TIMEOUT,
);

test(
  "a bad DID: the server's message under the field; comparing without a PBX host: the reason",
  async () => {
    const page = await routingPage();
    await form(page).getByLabel("DID (number called)").fill("12ab");
    await form(page).getByRole("button", { name: "Follow the call" }).click();
    await form(page).getByText("DID must be digits, optionally starting with +").waitFor();
    expect(await form(page).getByLabel("DID (number called)").getAttribute("aria-invalid")).toBe("true");

    await form(page).getByLabel("DID (number called)").fill("15550100");
    await form(page).getByRole("switch", { name: "Compare with the PBX now" }).click();
    await form(page).getByRole("button", { name: "Follow the call" }).click();
    await form(page).getByText("Configure the PBX host (SSH) in API Settings to compare with the PBX").waitFor();
    expect(await path(page).count()).toBe(0);
  },
  TEST_TIMEOUT,
);

test(
  "the destination field offers the console's objects of the chosen kind, by number and name",
  async () => {
    const page = await h.signedInPage("/inbound-routes");
    await page.getByRole("button", { name: "Add Inbound Route" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Inbound Route" });
    await chooseOption(page, dialog, "Destination type", "Ring group");
    const field = dialog.getByLabel("Destination", { exact: true });
    const offered = async () =>
      field.evaluate((input) =>
        [...((input as HTMLInputElement).list?.options ?? [])].map((o) => `${o.value} ${o.label}`),
      );
    await page.waitForFunction(
      (el) => ((el as HTMLInputElement).list?.options.length ?? 0) > 0,
      await field.elementHandle(),
    );
    expect(await offered()).toEqual(["600 Ring group 600 · Sales"]);
    await chooseOption(page, dialog, "Destination type", "Voicemail");
    expect(await offered()).toEqual(["1001 Voicemail 1001 · Alice", "1002 Voicemail 1002 · Bob"]);
  },
  TEST_TIMEOUT,
);

test(
  "a ring group's no-answer picker: a typed number stays when the kind changes; its suggestions follow the kind",
  async () => {
    const page = await h.signedInPage("/ring-groups");
    await page.getByRole("button", { name: "Add Ring Group" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Ring Group" });
    await chooseOption(page, dialog, "If no one answers", "Voicemail");
    const field = dialog.getByLabel("Destination number", { exact: true });
    await field.fill("1002");
    await chooseOption(page, dialog, "If no one answers", "Extension");
    expect(await field.inputValue()).toBe("1002");
    // The suggestions come with the destination list: wait for them, then read them.
    await page.waitForFunction(
      (el) => ((el as HTMLInputElement).list?.options.length ?? 0) > 0,
      await field.elementHandle(),
    );
    const offered = () =>
      field.evaluate((input) => [...((input as HTMLInputElement).list?.options ?? [])].map((o) => o.value));
    expect(await offered()).toEqual(["1001", "1002"]);
    await chooseOption(page, dialog, "If no one answers", "Hang up");
    expect(await field.count()).toBe(0);
  },
  TEST_TIMEOUT,
);

test(
  "each DID's call flow is drawn as a tree whose nodes lead to their screens",
  async () => {
    const page = await routingPage();
    const flow = page.getByRole("list", { name: "Call flows" }).getByRole("listitem").filter({ hasText: "Main line" });
    await flow.getByText("Inbound route 15550100 · Main line").waitFor();
    await flow.getByText("No answer after 20 s").waitFor();
    await flow.getByRole("link", { name: "Voicemail 1001 · Alice" }).waitFor();
    await flow.getByRole("link", { name: "Ring group 600 · Sales" }).click();
    await page.getByRole("heading", { level: 1, name: "Ring Groups" }).waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "the keys pressed lead the call through an IVR; the IVR's flow shows its keys, linked to the IVRs screen",
  async () => {
    const menu = (await h.apiJson("POST", "/api/ivrs", {
      name: "Front desk",
      options: [
        { digits: "1", destination: { kind: "extension", target: "1001" } },
        { digits: "2", destination: { kind: "ring-group", target: "600" } },
      ],
    })) as { id: number };
    await h.apiJson("POST", "/api/inbound-routes", {
      description: "Menu line",
      didNumber: "15550200",
      destinationType: "ivr",
      destination: String(menu.id),
    });
    const page = await routingPage();
    await form(page).getByLabel("DID (number called)").fill("15550200");
    await form(page).getByLabel("Keys pressed in IVRs (in order; empty: none)").fill("2");
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/routing/simulate"));
    await form(page).getByRole("button", { name: "Follow the call" }).click();
    expect((await sent).postDataJSON()).toMatchObject({ did: "15550200", digits: "2" });
    await path(page).getByText("Rings 1001, 1002").waitFor();
    expect(await path(page).getByRole("listitem").nth(2).textContent()).toContain(`IVR ${menu.id} · Front desk`);
    // Keys a keypad cannot send: the server's message under the field.
    await form(page).getByLabel("Keys pressed in IVRs (in order; empty: none)").fill("12a");
    await form(page).getByRole("button", { name: "Follow the call" }).click();
    await form(page).getByText("Digits must be 0-9, * or #").waitFor();

    const flow = page.getByRole("list", { name: "Call flows" }).getByRole("listitem").filter({ hasText: "Menu line" });
    await flow.getByText("Key 2").waitFor();
    await flow.getByRole("link", { name: `IVR ${menu.id} · Front desk` }).click();
    await page.getByRole("heading", { level: 1, name: "IVRs" }).waitFor();
  },
  TEST_TIMEOUT,
);

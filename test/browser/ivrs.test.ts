// The IVRs screen (/ivrs) through chromium against the built binary: the sidebar entry, create with two options
// and a wrong-key destination, a bad key refused under its field (and keys listed twice, and the server's
// message under an option's number) with nothing stored, edit, a delete refused with the server's 409 message
// once an inbound route sends calls to the IVR, and a delete undone from its toast. No PBX host on that server:
// the greeting is typed as a number, with the reason beside it; a second server with a real PBX host (test/pbx-host)
// offers the PBX's system recordings by name. Tests run in order.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { Ivr } from "../../src/shared/call-flow";
import { toneWav } from "../helpers/wav";
import { startPbxHost } from "../pbx-host/pbx-host";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listIvrs = () => h.apiJson<Ivr[]>("GET", "/api/ivrs");

async function ivrsPage(): Promise<Page> {
  const page = await h.signedInPage("/ivrs");
  await page.getByRole("heading", { level: 1, name: "IVRs" }).waitFor();
  return page;
}
const card = (page: Page, name: string) =>
  page.getByRole("list", { name: "IVRs" }).getByRole("listitem").filter({ hasText: name }).first();

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Add IVR" }).click();
  const dialog = page.getByRole("dialog", { name: "Add IVR" });
  await dialog.waitFor();
  return dialog;
}

/** Adds an option row and fills it: its keys, the destination kind (when not an extension) and number. */
async function addOption(page: Page, dialog: Locator, n: number, digits: string, kind: string, target: string) {
  await dialog.getByRole("button", { name: "Add option" }).click();
  await dialog.getByLabel(`Keys of option ${n}`, { exact: true }).fill(digits);
  if (kind !== "Extension") await chooseOption(page, dialog, `Destination of option ${n}`, kind);
  await dialog.getByLabel(`Destination number of option ${n}`, { exact: true }).fill(target);
}

/** The POSTs to /api/ivrs the page sends from now on. */
function countPosts(page: Page) {
  const posts: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/api/ivrs") posts.push(r.postData() ?? "");
  });
  return posts;
}

test(
  "the sidebar leads to the screen; no IVRs: the empty state",
  async () => {
    const page = await h.signedInPage("/");
    await page.getByRole("link", { name: "IVRs", exact: true }).first().click();
    await page.getByRole("heading", { level: 1, name: "IVRs" }).waitFor();
    await page.getByText("No IVRs", { exact: true }).waitFor();
  },
  TEST_TIMEOUT,
);

test(
  "create with two options and a wrong-key destination: the card lists them by the console's names",
  async () => {
    for (const [extension, name] of [
      ["1001", "Alice"],
      ["1002", "Bob"],
    ])
      await h.apiJson("POST", "/api/extensions", { extension, name, voicemail: true });
    const page = await ivrsPage();
    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Main menu");
    // No PBX host: the recordings cannot be read, so the greeting is a number (empty: none) and says why.
    await dialog.getByText(/the PBX's recordings could not be read/).waitFor();
    expect(await dialog.getByLabel("Greeting", { exact: true }).inputValue()).toBe("");
    await dialog.getByLabel("Timeout (seconds)", { exact: true }).fill("15");
    await dialog.getByLabel("Retries", { exact: true }).fill("2");
    await addOption(page, dialog, 1, "1", "Extension", "1001");
    await addOption(page, dialog, 2, "2", "Voicemail", "1002");
    await chooseOption(page, dialog, "After a wrong key", "Extension");
    await dialog.getByRole("group", { name: "Wrong key", exact: true }).getByLabel("Destination number").fill("1002");

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/ivrs") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create IVR" }).click();
    expect((await sent).postDataJSON()).toEqual({
      name: "Main menu",
      greeting: null,
      timeout: 15,
      retries: 2,
      options: [
        { digits: "1", destination: { kind: "extension", target: "1001" } },
        { digits: "2", destination: { kind: "voicemail", target: "1002" } },
      ],
      invalidDestination: { kind: "extension", target: "1002" },
      timeoutDestination: null,
    });
    await toasts(page).getByText("IVR created", { exact: true }).waitFor();
    await dialog.waitFor({ state: "detached" });
    const menu = card(page, "Main menu");
    await menu.getByText("Greeting: None").waitFor();
    await menu.getByText("15 s, 2 retries").waitFor();
    const options = menu.getByRole("list", { name: "Options of Main menu" }).getByRole("listitem");
    await options.first().waitFor();
    expect(await options.allTextContents()).toEqual(["1 → Extension 1001 · Alice", "2 → Voicemail 1002 · Bob"]);
    await menu.getByText("Wrong key → Extension 1002 · Bob").waitFor();
    await menu.getByText("No key → Hang up").waitFor();
    const [stored] = await listIvrs();
    expect(stored).toMatchObject({ name: "Main menu", timeout: 15, retries: 2, greeting: null });
  },
  TEST_TIMEOUT,
);

test(
  "a bad key and keys listed twice are refused under the fields, the server's message under the option; nothing is stored",
  async () => {
    const before = await listIvrs();
    const page = await ivrsPage();
    const posts = countPosts(page);
    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Bad menu");
    await addOption(page, dialog, 1, "5a", "Extension", "1001");
    await dialog.getByRole("button", { name: "Create IVR" }).click();
    const keyError = dialog.getByText("Keys must be digits 0-9, * or #", { exact: true });
    await keyError.waitFor();
    const keys = dialog.getByLabel("Keys of option 1", { exact: true });
    expect(await keys.getAttribute("aria-invalid")).toBe("true");
    expect(await keys.getAttribute("aria-describedby")).toBe(await keyError.getAttribute("id"));

    await keys.fill("5");
    await addOption(page, dialog, 2, "5", "Extension", "1002");
    await dialog.getByRole("button", { name: "Create IVR" }).click();
    await dialog.getByText("Key(s) 5 are listed twice", { exact: true }).waitFor();
    expect(posts).toEqual([]);

    // The keys are fine now; extension 1009 is not the console's: the server says so under that option's number.
    await dialog.getByLabel("Keys of option 2", { exact: true }).fill("6");
    await dialog.getByLabel("Destination number of option 2", { exact: true }).fill("1009");
    await dialog.getByRole("button", { name: "Create IVR" }).click();
    const serverError = dialog.getByText("Extension 1009 does not exist", { exact: true });
    await serverError.waitFor();
    expect(
      await dialog.getByLabel("Destination number of option 2", { exact: true }).getAttribute("aria-describedby"),
    ).toBe(await serverError.getAttribute("id"));
    await toasts(page).getByText("Failed to create IVR.", { exact: true }).waitFor();
    expect(posts).toHaveLength(1);
    expect(await listIvrs()).toEqual(before);
  },
  TEST_TIMEOUT,
);

test(
  "edit: the dialog comes prefilled; an option removed and the no-key destination set are saved",
  async () => {
    const page = await ivrsPage();
    await page.getByRole("button", { name: "Edit IVR Main menu" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit IVR" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("Main menu");
    expect(await dialog.getByLabel("Keys of option 2", { exact: true }).inputValue()).toBe("2");
    expect(await dialog.getByLabel("Destination number of option 1", { exact: true }).inputValue()).toBe("1001");
    await dialog.getByRole("button", { name: "Remove option 2" }).click();
    await dialog.getByLabel("Keys of option 2", { exact: true }).waitFor({ state: "detached" });
    await dialog.getByLabel("Timeout (seconds)", { exact: true }).fill("20");
    await chooseOption(page, dialog, "After no key", "Extension");
    await dialog.getByRole("group", { name: "No key", exact: true }).getByLabel("Destination number").fill("1001");
    await dialog.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("IVR saved", { exact: true }).waitFor();
    const menu = card(page, "Main menu");
    await menu.getByText("No key → Extension 1001 · Alice").waitFor();
    await menu.getByText("20 s, 2 retries").waitFor();
    expect(await menu.getByRole("list", { name: "Options of Main menu" }).getByRole("listitem").count()).toBe(1);
    const [stored] = await listIvrs();
    expect(stored).toMatchObject({
      timeout: 20,
      options: [{ digits: "1", destination: { kind: "extension", target: "1001" } }],
      invalidDestination: { kind: "extension", target: "1002" },
      timeoutDestination: { kind: "extension", target: "1001" },
    });
  },
  TEST_TIMEOUT,
);

test(
  "an inbound route sends calls to the IVR: the delete is refused with the server's message, then blocked",
  async () => {
    const [menu] = (await listIvrs()) as [Ivr];
    const page = await ivrsPage();
    await page.getByRole("button", { name: "Delete IVR Main menu" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete IVR Main menu?" });
    await confirm.getByText("Nothing else in the console uses it.").waitFor();
    // The route arrives while the confirmation is open: the server refuses the delete (409) and says why.
    await h.apiJson("POST", "/api/inbound-routes", {
      description: "Main line",
      didNumber: "5550100",
      destinationType: "ivr",
      destination: String(menu.id),
    });
    const blocked = "Inbound route(s) Main line send calls to IVR Main menu. Change it first.";
    const refused = page.waitForResponse((r) => r.url().endsWith(`/api/ivrs/${menu.id}`) && r.status() === 409);
    await confirm.getByRole("button", { name: "Delete", exact: true }).click();
    await refused;
    await toasts(page).getByText("Failed to delete IVR.", { exact: true }).waitFor();
    await toasts(page).getByText(blocked, { exact: true }).waitFor();
    await card(page, "Main menu").waitFor();

    // Asked again, the confirmation names the route and offers no Delete.
    await page.getByRole("button", { name: "Delete IVR Main menu" }).click();
    await confirm.getByText(blocked, { exact: true }).waitFor();
    await confirm.getByRole("list", { name: "Used by" }).getByText("Main line").waitFor();
    expect(await confirm.getByRole("button", { name: "Delete", exact: true }).isDisabled()).toBe(true);
    expect((await listIvrs()).map((i) => i.name)).toEqual(["Main menu"]);
  },
  TEST_TIMEOUT,
);

test(
  "an IVR nothing sends calls to: confirm, the card goes, and Undo brings it back",
  async () => {
    await h.apiJson("POST", "/api/ivrs", {
      name: "Night menu",
      options: [{ digits: "9", destination: { kind: "voicemail", target: "1001" } }],
    });
    const page = await ivrsPage();
    const night = card(page, "Night menu");
    await night.getByRole("button", { name: "Delete IVR Night menu" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete IVR Night menu?" });
    await dialog.getByText("Nothing else in the console uses it.").waitFor();
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await night.waitFor({ state: "detached" });
    expect((await listIvrs()).map((i) => i.name)).toEqual(["Main menu"]);
    await toasts(page).getByText("IVR deleted", { exact: true }).waitFor();
    await toasts(page).getByRole("button", { name: "Undo" }).click();
    await toasts(page).getByText("Delete undone", { exact: true }).waitFor();
    await night.waitFor();
    expect((await listIvrs()).map((i) => i.name)).toEqual(["Main menu", "Night menu"]);
  },
  TEST_TIMEOUT,
);

test("with a PBX host, the greeting is picked from the PBX's system recordings by name, and the card names it", async () => {
  const pbx = await startPbxHost();
  const withPbx = await startHarness({
    env: {
      PBX_SSH_HOST: pbx.ssh.host,
      PBX_SSH_PORT: String(pbx.ssh.port),
      PBX_SSH_USER: pbx.ssh.username,
      PBX_SSH_PRIVATE_KEY: pbx.ssh.privateKey,
      PBX_SSH_HOST_KEY: pbx.ssh.hostKeyFingerprint,
      PBX_FREEPBX_CONF: pbx.freepbxConfPath,
    },
  });
  try {
    await pbx.query("DELETE FROM recordings");
    const page = await withPbx.signedInPage("/ivrs");
    await page.getByText("No IVRs", { exact: true }).waitFor();
    // Uploaded as the Recordings screen does (multipart, the page's session): stored on the PBX at once.
    const wav = [...toneWav({ rate: 8000, channels: 1, seconds: 1 })];
    const recording = await page.evaluate(async (bytes) => {
      const form = new FormData();
      form.append("name", "main-greeting");
      form.append("file", new Blob([new Uint8Array(bytes)], { type: "audio/wav" }), "main-greeting.wav");
      const res = await fetch("/api/recordings", {
        method: "POST",
        body: form,
        headers: { Accept: "application/json" },
      });
      return (await res.json()) as { id: number };
    }, wav);

    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Day menu");
    await chooseOption(page, dialog, "Greeting", "main-greeting");
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/ivrs") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create IVR" }).click();
    expect((await sent).postDataJSON()).toMatchObject({ name: "Day menu", greeting: recording.id });
    await toasts(page).getByText("IVR created", { exact: true }).waitFor();
    await card(page, "Day menu").getByText("Greeting: main-greeting").waitFor();
  } finally {
    await withPbx.stop();
    await pbx.stop();
  }
}, 60_000);

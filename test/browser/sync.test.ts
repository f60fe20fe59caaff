// The Sync screen (/sync) through chromium against the built binary, reading a REAL MariaDB over REAL SSH
// (test/pbx-host). Tests run in order on one server and build on each other's state.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { type Harness, startHarness, waitEnabled } from "./harness";
import { toasts } from "./locators";

// Every comparison is an SSH round trip (~0.3–1 s).
setDefaultTimeout(60_000);
const SLOW = { timeout: 20_000 };

let pbx: PbxHost;
let h: Harness;

const sshEnv = (port?: number) => ({
  PBX_SSH_HOST: pbx.ssh.host,
  PBX_SSH_PORT: String(port ?? pbx.ssh.port),
  PBX_SSH_USER: pbx.ssh.username,
  PBX_SSH_PRIVATE_KEY: pbx.ssh.privateKey,
  PBX_FREEPBX_CONF: pbx.freepbxConfPath,
});

beforeAll(async () => {
  pbx = await startPbxHost();
  h = await startHarness({ env: { ...sshEnv(), PBX_SSH_HOST_KEY: pbx.ssh.hostKeyFingerprint } });
  await h.signedInPage("/"); // creates the administrator
  await h.closePages();
}, 60_000);

afterEach(() => h?.closePages());

afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
});

/** An extension that exists only on the PBX, written the way FreePBX stores it. */
async function pbxOnlyExtension(ext: string, name: string) {
  await pbx.query(
    "INSERT INTO devices (id, tech, dial, devicetype, user, description) VALUES (?, 'pjsip', ?, 'fixed', ?, ?)",
    [ext, `PJSIP/${ext}`, ext, name],
  );
  await pbx.query("INSERT INTO users (extension, name, voicemail) VALUES (?, ?, 'novm')", [ext, name]);
  await pbx.query("INSERT INTO sip (id, keyword, data) VALUES (?, 'secret', ?)", [ext, `secret-${ext}-xyz`]);
}

const table = (page: Page, name = "Extension comparison") => page.getByRole("table", { name });
const row = (page: Page, key: string) => page.locator(`tr[data-row="${key}"]`);
const cells = async (r: Locator) => (await r.getByRole("cell").allTextContents()).slice(1);
const checkbox = (page: Page, key: string) => page.getByRole("checkbox", { name: `Select ${key}`, exact: true });
const importSelected = (page: Page, n: number) =>
  page.getByRole("button", { name: `Import Selected (${n})`, exact: true });

/** The review every import opens (ADR 0025 "Sync import"). */
const reviewDialog = (page: Page, kind = "extensions") =>
  page.getByRole("dialog", { name: `Review: import ${kind}`, exact: true });
const importButton = (page: Page, kind = "extensions") =>
  reviewDialog(page, kind).getByRole("button", { name: /^Import \(/ });
const planItem = (page: Page, label: string, kind = "extensions") =>
  reviewDialog(page, kind).getByRole("listitem", { name: label, exact: true });

/** Waits for the plan in the open review, confirms it and checks the import's request; the dialog closes. */
async function confirmImport(
  page: Page,
  kind: "extensions" | "trunks" | "ring groups" | "IVRs",
  body: Record<string, unknown>,
) {
  await reviewDialog(page, kind).getByRole("list", { name: "Plan counts" }).waitFor(SLOW);
  const sent = page.waitForRequest((r) => r.url().endsWith(`/api/sync/${kind.toLowerCase().replace(" ", "-")}/import`));
  await waitEnabled(importButton(page, kind));
  await importButton(page, kind).click();
  const request = (await sent).postDataJSON();
  expect(request).toMatchObject(body);
  expect(request.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  await reviewDialog(page, kind).waitFor({ state: "hidden", timeout: SLOW.timeout });
}

async function syncPage(): Promise<Page> {
  const page = await h.signedInPage("/sync");
  await page.getByRole("heading", { level: 1, name: "Sync Configuration" }).waitFor();
  await page.getByText("Import configuration from the live PBX server").waitFor();
  await table(page).waitFor(SLOW);
  return page;
}

/** Waits until the row shows this status (the comparison is refetched over SSH). */
const statusOf = (page: Page, key: string, status: string) =>
  row(page, key).getByTestId("sync-status").getByText(status, { exact: true }).waitFor(SLOW);

describe("Sync: extensions", () => {
  test("each status is shown; Synced rows cannot be selected; importing one selected row", async () => {
    // 1001 and 1002 deployed (Synced); 1002 renamed on the PBX (Needs Sync); 2001 only on the PBX.
    await h.apiJson("POST", "/api/extensions", { extension: "1001", name: "Alice" });
    await h.apiJson("POST", "/api/extensions", { extension: "1002", name: "Bob" });
    await h.runJob("/api/deploy/extensions");
    await pbx.query("UPDATE users SET name = 'Bob Smith' WHERE extension = '1002'");
    await pbxOnlyExtension("2001", "Lobby");

    const page = await syncPage();
    expect(await page.getByRole("tab", { name: "Extensions" }).getAttribute("aria-selected")).toBe("true");
    const headers = await table(page).getByRole("columnheader").allTextContents();
    expect(headers).toEqual(["", "Extension", "Name (PBX)", "Name (Dashboard)", "Status"]);
    expect(await cells(row(page, "1001"))).toEqual(["1001", "Alice", "Alice", "Synced"]);
    expect(await cells(row(page, "1002"))).toEqual(["1002", "Bob Smith", "Bob", "Needs Sync"]);
    expect(await cells(row(page, "2001"))).toEqual(["2001", "Lobby", "-", "Not in Dashboard"]);
    expect(await page.getByTestId("pbx-count").textContent()).toBe("3");
    expect(await page.getByTestId("dashboard-count").textContent()).toBe("2");

    expect(await checkbox(page, "1001").isDisabled()).toBe(true);
    expect(await checkbox(page, "1002").isDisabled()).toBe(false);
    expect(await checkbox(page, "2001").isDisabled()).toBe(false);
    expect(await importSelected(page, 0).isDisabled()).toBe(true);

    await checkbox(page, "2001").click();
    const planned = page.waitForRequest((r) => r.url().endsWith("/api/sync/extensions/plan"));
    await importSelected(page, 1).click();
    expect((await planned).postDataJSON()).toEqual({ extensions: ["2001"], mode: "selected" });
    await confirmImport(page, "extensions", { extensions: ["2001"], mode: "selected" });

    const toast = toasts(page);
    await toast.getByText("Extensions Imported", { exact: true }).waitFor(SLOW);
    await toast.getByText("Created: 1, Updated: 0, Unchanged: 0, Failed: 0", { exact: true }).waitFor();
    await importSelected(page, 0).waitFor(); // selection cleared
    await statusOf(page, "2001", "Synced"); // comparison refetched
    expect(await cells(row(page, "2001"))).toEqual(["2001", "Lobby", "Lobby", "Synced"]);
    expect(await checkbox(page, "2001").isDisabled()).toBe(true);
    await page.getByTestId("dashboard-count").getByText("3", { exact: true }).waitFor();

    // The header box selects every row that still needs importing: only 1002 now.
    await table(page).getByRole("checkbox", { name: "Select all rows that need importing" }).click();
    await importSelected(page, 1).waitFor();
    expect(await checkbox(page, "1002").getAttribute("aria-checked")).toBe("true");
    expect(await checkbox(page, "1001").getAttribute("aria-checked")).toBe("false");

    const lobby = (await h.apiJson<{ extension: string; name: string }[]>("GET", "/api/extensions")).find(
      (e) => e.extension === "2001",
    );
    expect(lobby?.name).toBe("Lobby");
  });

  test("Import All updates every row from the PBX; nothing is left to select", async () => {
    const page = await syncPage();
    await statusOf(page, "1002", "Needs Sync");
    await page.getByRole("button", { name: "Import All", exact: true }).click();
    await confirmImport(page, "extensions", { extensions: [], mode: "all" });
    // 1001 and 2001 already match: not written again.
    await toasts(page).getByText("Created: 0, Updated: 1, Unchanged: 2, Failed: 0", { exact: true }).waitFor(SLOW);
    await statusOf(page, "1002", "Synced");
    expect(await cells(row(page, "1002"))).toEqual(["1002", "Bob Smith", "Bob Smith", "Synced"]);
    expect(await table(page).getByRole("checkbox", { name: "Select all rows that need importing" }).isDisabled()).toBe(
      true,
    );
  });

  test("another console's import shows up without a reload (sync socket)", async () => {
    await pbxOnlyExtension("2002", "Reception");
    await pbxOnlyExtension("2003", "Warehouse");
    const first = await syncPage();
    const second = await syncPage();
    const extensionsPage = await h.signedInPage("/extensions");
    await extensionsPage.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
    for (const page of [first, second]) {
      await statusOf(page, "2002", "Not in Dashboard");
      await statusOf(page, "2003", "Not in Dashboard");
    }

    // Imported through the first page's UI: the second page follows.
    await checkbox(first, "2002").click();
    await importSelected(first, 1).click();
    await confirmImport(first, "extensions", { extensions: ["2002"], mode: "selected" });
    await toasts(first).getByText("Extensions Imported", { exact: true }).waitFor(SLOW);
    await statusOf(second, "2002", "Synced");
    expect(await toasts(second).getByText("Extensions Imported").count()).toBe(0);

    // Imported through the API: both pages and the Extensions screen follow.
    await h.apiJson("POST", "/api/sync/extensions/import", { extensions: ["2003"], mode: "selected" });
    await statusOf(first, "2003", "Synced");
    await statusOf(second, "2003", "Synced");
    await extensionsPage.getByText("Warehouse").first().waitFor(SLOW);
  });

  test("a failed import: the server's message in the review, or the fallback text; the review stays for a retry", async () => {
    await pbxOnlyExtension("2004", "Garage");
    const page = await syncPage();
    await statusOf(page, "2004", "Not in Dashboard");
    await page.route("**/api/sync/extensions/import", (route) =>
      route.fulfill({
        status: 502,
        contentType: "application/json",
        body: JSON.stringify({ error: { message: "Cannot reach 127.0.0.1:22: connection refused" } }),
      }),
    );
    await checkbox(page, "2004").click();
    await importSelected(page, 1).click();
    const dialog = reviewDialog(page);
    await dialog.getByRole("list", { name: "Plan counts" }).waitFor(SLOW);
    await waitEnabled(importButton(page));
    await importButton(page).click();
    await dialog
      .getByRole("alert")
      .getByText("Cannot reach 127.0.0.1:22: connection refused", { exact: true })
      .waitFor();

    await page.unroute("**/api/sync/extensions/import");
    await page.route("**/api/sync/extensions/import", (route) => route.abort("connectionreset"));
    await importButton(page).click();
    await dialog.getByRole("alert").getByText("Failed to import extensions from the PBX", { exact: true }).waitFor();
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });
    await importSelected(page, 1).waitFor(); // the selection stays for a retry
  });

  test("the review lists the plan; a stale plan says so and shows the new one; Import runs to success", async () => {
    await pbx.query("UPDATE users SET name = 'Alice B' WHERE extension = '1001'");
    await pbxOnlyExtension("2005", "Storage");
    await pbxOnlyExtension("2006", "Bad\tName"); // a tab: the console's validator refuses it
    const page = await syncPage();
    await statusOf(page, "2006", "Not in Dashboard");
    for (const key of ["1001", "2005", "2006"]) await checkbox(page, key).click();
    await importSelected(page, 3).click();

    const dialog = reviewDialog(page);
    await dialog.getByRole("list", { name: "Plan counts" }).waitFor(SLOW);
    expect(await dialog.getByTestId("count-create").textContent()).toBe("1 to create");
    expect(await dialog.getByTestId("count-update").textContent()).toBe("1 to update");
    expect(await dialog.getByTestId("count-refused").textContent()).toBe("1 cannot import");
    expect(await dialog.getByTestId("count-unchanged").textContent()).toBe("0 unchanged");
    expect(await dialog.getByTestId("count-adopt").textContent()).toBe("1 becomes managed");
    const create = dialog.getByRole("region", { name: "Create" });
    expect(await create.getByRole("listitem", { name: "Extension 2005 - Storage" }).count()).toBe(1);
    expect(await planItem(page, "Extension 2005 - Storage").getByTestId("field-change").allTextContents()).toEqual([
      "namenoneStorage",
      "voicemailnoneoff",
      "secret(secret) changes",
    ]);
    expect(await planItem(page, "Extension 2005 - Storage").getByText("Becomes managed").count()).toBe(1);
    const update = dialog.getByRole("region", { name: "Update" });
    expect(await update.getByTestId("field-change").allTextContents()).toEqual(["nameAliceAlice B"]);
    const refused = dialog.getByRole("region", { name: "Cannot import" });
    await refused.getByText("2006: Name contains a control character (e.g. a newline)", { exact: true }).waitFor();
    expect(await importButton(page).textContent()).toBe("Import (2 extensions)");

    // Changed on the PBX while the review is open: Import says so and shows the new plan; nothing imported.
    await pbx.query("UPDATE users SET name = 'Storage Room' WHERE extension = '2005'");
    await importButton(page).click();
    await dialog.getByTestId("stale-plan").waitFor(SLOW);
    await planItem(page, "Extension 2005 - Storage Room").waitFor();
    const list = async () =>
      (await h.apiJson<{ extension: string }[]>("GET", "/api/extensions")).map((e) => e.extension);
    expect(await list()).not.toContain("2005");

    // The new plan imports: the job runs to success (the refused one is its failed item).
    await waitEnabled(importButton(page));
    await importButton(page).click();
    await dialog.waitFor({ state: "hidden", timeout: SLOW.timeout });
    await toasts(page).getByText("Created: 1, Updated: 1, Unchanged: 0, Failed: 1", { exact: true }).waitFor(SLOW);
    await statusOf(page, "2005", "Synced");
    await statusOf(page, "1001", "Synced");
    expect(await cells(row(page, "2005"))).toEqual(["2005", "Storage Room", "Storage Room", "Synced"]);
    await page.getByRole("status").getByText("2006: Name contains a control character (e.g. a newline)").waitFor();

    // Only what imports cleanly: the job succeeds.
    await pbxOnlyExtension("2007", "Annex");
    await page.getByRole("button", { name: "Refresh", exact: true }).click();
    await statusOf(page, "2007", "Not in Dashboard");
    await checkbox(page, "2007").click();
    await importSelected(page, 1).click();
    await confirmImport(page, "extensions", { extensions: ["2007"], mode: "selected" });
    await page.getByTestId("job-progress").and(page.locator('[data-state="succeeded"]')).waitFor(SLOW);
    await toasts(page).getByText("Created: 1, Updated: 0, Unchanged: 0, Failed: 0", { exact: true }).waitFor(SLOW);
  });
});

describe("Sync: trunks", () => {
  test("a trunk only on the PBX shows 'Not in Dashboard' and imports", async () => {
    await pbx.query("INSERT INTO trunks (trunkid, name, tech, channelid) VALUES (4, 'Backup', 'pjsip', 'Backup')");
    await pbx.query(
      "INSERT INTO pjsip (id, keyword, data) VALUES ('4', 'sip_server', 'sip.backup.net'), ('4', 'sip_server_port', '5080')",
    );
    const page = await syncPage();
    await page.getByRole("tab", { name: "Trunks", exact: true }).click();
    const trunks = table(page, "Trunk comparison");
    await trunks.waitFor(SLOW);
    expect(await trunks.getByRole("columnheader").allTextContents()).toEqual([
      "",
      "Name",
      "Host (PBX)",
      "Host (Dashboard)",
      "Status",
    ]);
    expect(await cells(row(page, "Backup"))).toEqual(["Backup", "sip.backup.net", "-", "Not in Dashboard"]);
    expect(await page.getByTestId("pbx-count").textContent()).toBe("1");
    expect(await page.getByTestId("dashboard-count").textContent()).toBe("0");

    await checkbox(page, "Backup").click();
    await importSelected(page, 1).click();
    await reviewDialog(page, "trunks").getByRole("list", { name: "Plan counts" }).waitFor(SLOW);
    expect(await planItem(page, "Trunk Backup", "trunks").getByTestId("field-change").allTextContents()).toContain(
      "hostnonesip.backup.net",
    );
    await confirmImport(page, "trunks", { trunks: ["Backup"], mode: "selected" });
    await toasts(page).getByText("Trunks Imported", { exact: true }).waitFor(SLOW);
    await toasts(page).getByText("Created: 1, Updated: 0, Unchanged: 0, Failed: 0", { exact: true }).waitFor();
    await statusOf(page, "Backup", "Synced");
    expect(await cells(row(page, "Backup"))).toEqual(["Backup", "sip.backup.net", "sip.backup.net", "Synced"]);
    const [trunk] = await h.apiJson<{ name: string; host: string; port: number }[]>("GET", "/api/trunks");
    expect(trunk).toMatchObject({ name: "Backup", host: "sip.backup.net", port: 5080 });
  });
});

describe("Sync: ring groups", () => {
  test("a ring group only on the PBX shows 'Not in Dashboard', its review lists every field, and it imports", async () => {
    const made = await h.api("POST", "/api/extensions", { extension: "3901", name: "Ring Member" });
    expect(made.status).toBe(201);
    await pbx.query(
      "INSERT INTO ringgroups (grpnum, strategy, grptime, grplist, postdest, description) VALUES ('3950', 'hunt', 25, '3901-5551234#', 'ext-local,vmu3901,1', 'Night desk')",
    );
    const page = await syncPage();
    await page.getByRole("tab", { name: "Ring Groups", exact: true }).click();
    const groups = table(page, "Ring group comparison");
    await groups.waitFor(SLOW);
    expect(await cells(row(page, "3950"))).toEqual(["3950", "Night desk", "-", "Not in Dashboard"]);

    await checkbox(page, "3950").click();
    await importSelected(page, 1).click();
    await reviewDialog(page, "ring groups").getByRole("list", { name: "Plan counts" }).waitFor(SLOW);
    expect(
      await planItem(page, "Ring group 3950 - Night desk", "ring groups").getByTestId("field-change").allTextContents(),
    ).toEqual([
      "namenoneNight desk",
      "strategynonehunt",
      "ringTimenone25",
      "membersnone3901, 5551234#",
      "noAnswernonevoicemail 3901",
    ]);
    await confirmImport(page, "ring groups", { ringGroups: ["3950"], mode: "selected" });
    await toasts(page).getByText("Ring Groups Imported", { exact: true }).waitFor(SLOW);
    await statusOf(page, "3950", "Synced");
    const [group] = await h.apiJson<Record<string, unknown>[]>("GET", "/api/ring-groups");
    expect(group).toMatchObject({
      number: "3950",
      name: "Night desk",
      strategy: "hunt",
      ringTime: 25,
      members: ["3901", "5551234#"],
      noAnswer: { kind: "voicemail", target: "3901" },
    });
  });
});

describe("Sync: IVRs", () => {
  test("an IVR only on the PBX shows 'Not in Dashboard'; its review brings the announcement a key plays; both import", async () => {
    await pbx.query(
      "INSERT INTO announcement (description, recording_id, allow_skip, post_dest, return_ivr, noanswer, repeat_msg) VALUES ('Welcome', NULL, 1, 'app-blackhole,hangup,1', 0, 0, '')",
    );
    const [played] = await pbx.query("SELECT MAX(announcement_id) AS id FROM announcement");
    await pbx.query(
      "INSERT INTO ivr_details (name, description, announcement, directdial, invalid_loops, invalid_retry_recording, invalid_destination, timeout_time, timeout_recording, timeout_retry_recording, timeout_destination, timeout_loops) VALUES ('Desk', '', NULL, 'ext-local', '3', 'default', 'app-blackhole,hangup,1', 10, 'default', 'default', 'app-blackhole,hangup,1', '3')",
    );
    const [menu] = await pbx.query("SELECT MAX(id) AS id FROM ivr_details");
    await pbx.query("INSERT INTO ivr_entries VALUES (?, '1', ?, 0)", [menu?.id, `app-announcement-${played?.id},s,1`]);
    const key = String(menu?.id);

    const page = await syncPage();
    await page.getByRole("tab", { name: "IVRs", exact: true }).click();
    await table(page, "IVR comparison").waitFor(SLOW);
    expect(await table(page, "IVR comparison").getByRole("columnheader").allTextContents()).toEqual([
      "",
      "FreePBX ID",
      "Name (PBX)",
      "Name (Dashboard)",
      "Status",
    ]);
    expect(await cells(row(page, key))).toEqual([key, "Desk", "-", "Not in Dashboard"]);

    await checkbox(page, key).click();
    await importSelected(page, 1).click();
    await reviewDialog(page, "IVRs").getByRole("list", { name: "Plan counts" }).waitFor(SLOW);
    expect(await planItem(page, "Announcement Welcome", "IVRs").textContent()).toContain(
      "Imported with IVR Desk, which sends calls to it",
    );
    expect(await planItem(page, "IVR Desk", "IVRs").getByTestId("field-change").allTextContents()).toContain(
      "optionsnone1 → announcement Welcome",
    );
    expect(await importButton(page, "IVRs").textContent()).toBe("Import (2 objects)");
    await confirmImport(page, "IVRs", { ivrs: [key], mode: "selected" });
    await toasts(page).getByText("IVRs Imported", { exact: true }).waitFor(SLOW);
    await statusOf(page, key, "Synced");
    const [welcome] = await h.apiJson<{ id: number }[]>("GET", "/api/announcements");
    const [desk] = await h.apiJson<Record<string, unknown>[]>("GET", "/api/ivrs");
    expect(desk).toMatchObject({
      name: "Desk",
      options: [{ digits: "1", destination: { kind: "announcement", target: String(welcome?.id) } }],
    });

    await page.getByRole("tab", { name: "Announcements", exact: true }).click();
    await statusOf(page, String(played?.id), "Synced");
  });
});

describe("Sync: the PBX cannot be read", () => {
  test("not configured (400) and unreachable (502): the message and a link to API Settings, no table", async () => {
    const bare = await startHarness();
    try {
      const page = await bare.signedInPage("/sync");
      const error = page.getByTestId("sync-error");
      await error
        .getByText("No way to read the PBX: configure the PBX host (SSH) or the FreePBX GraphQL API in API Settings.")
        .waitFor();
      expect(await page.getByRole("link", { name: "Open API Settings" }).getAttribute("href")).toBe("/settings");
      expect(await page.getByRole("table").count()).toBe(0);
      expect(await page.getByRole("button", { name: "Import All", exact: true }).isDisabled()).toBe(true);
      await page.getByRole("tab", { name: "Trunks", exact: true }).click();
      await error
        .getByText("FreePBX's API has no trunks: configure the PBX host (SSH) in API Settings to compare trunks.")
        .waitFor();
    } finally {
      await bare.stop();
    }

    const unreachable = await startHarness({ env: sshEnv(9) });
    try {
      const page = await unreachable.signedInPage("/sync");
      await page.getByTestId("sync-error").getByText("Cannot reach 127.0.0.1:9: connection refused").waitFor(SLOW);
      expect(await page.getByRole("table").count()).toBe(0);
      await page.getByRole("button", { name: "Refresh", exact: true }).click();
      await page.getByTestId("sync-error").waitFor();
    } finally {
      await unreachable.stop();
    }
  });
});

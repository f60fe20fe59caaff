// The Deployment screen (/deployment) through chromium against the built binary, deploying over REAL SSH
// into a REAL MariaDB with FreePBX's own fwconsole (test/pbx-host). Tests run in order on one server.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { type Harness, startHarness, waitEnabled } from "./harness";
import { toasts } from "./locators";
import { applyReview, reviewDialog } from "./review";

// SSH commands take ~0.3–1 s each: a deploy is a few of them.
setDefaultTimeout(60_000);
const SLOW = { timeout: 20_000 };

let pbx: PbxHost;
let h: Harness;

beforeAll(async () => {
  pbx = await startPbxHost();
  h = await startHarness({
    env: {
      PBX_SSH_HOST: pbx.ssh.host,
      PBX_SSH_PORT: String(pbx.ssh.port),
      PBX_SSH_USER: pbx.ssh.username,
      PBX_SSH_PRIVATE_KEY: pbx.ssh.privateKey,
      PBX_SSH_HOST_KEY: pbx.ssh.hostKeyFingerprint,
      PBX_FREEPBX_CONF: pbx.freepbxConfPath,
    },
  });
  await h.signedInPage("/"); // creates the administrator
  await h.closePages();
}, 60_000);

afterEach(async () => {
  await h?.closePages();
  pbx?.setReloadFailure(false);
  pbx?.setReloadLocked(null);
});

afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
});

const countCard = (page: Page, title: string) => page.getByRole("group", { name: title, exact: true });
const button = (page: Page, name: string) => page.getByRole("button", { name, exact: true });
const results = (page: Page) => page.getByRole("region", { name: "Deployment Results" });
const item = (panel: Locator, label: string) => panel.getByRole("listitem", { name: label, exact: true });

async function deploymentPage(): Promise<Page> {
  const page = await h.signedInPage("/deployment");
  await page.getByRole("heading", { level: 1, name: "Deployment" }).waitFor();
  // The PBX status is read over SSH.
  await page.getByTestId("reload-state").waitFor(SLOW);
  return page;
}

describe("Deployment", () => {
  test("with nothing configured every deploy button is disabled; the PBX status shows the SSH path", async () => {
    const page = await deploymentPage();
    for (const title of ["Trunks", "Extensions", "Ring Groups", "Queues", "Time Conditions", "PTT Groups"]) {
      await countCard(page, title).getByTestId("count-value").getByText("0", { exact: true }).waitFor();
    }
    for (const name of [
      "Deploy Trunks",
      "Deploy Extensions",
      "Deploy Ring Groups",
      "Deploy Queues",
      "Deploy Time Conditions",
      "Deploy PTT Groups",
      "Deploy All Configurations",
    ]) {
      expect(await button(page, name).isDisabled()).toBe(true);
    }
    // The status was read over SSH just now: the path works, not only "configured".
    expect(await page.getByTestId("path-ssh").textContent()).toBe("Connected");
    expect(await page.getByTestId("path-graphql").textContent()).toBe("Not configured");
    expect(await page.getByTestId("reload-state").textContent()).toBe("Up to date");
    expect(await results(page).count()).toBe(0);
  });

  test("an extension created elsewhere enables its button; deploying writes it to MariaDB and reloads", async () => {
    const page = await deploymentPage();
    const deployExtensions = button(page, "Deploy Extensions");
    expect(await deployExtensions.isDisabled()).toBe(true);

    // Created through the API: the sync socket refreshes the count without a reload.
    await h.apiJson("POST", "/api/extensions", { extension: "1001", name: "Alice" });
    await countCard(page, "Extensions").getByTestId("count-value").getByText("1", { exact: true }).waitFor();
    await waitEnabled(deployExtensions);
    expect(await button(page, "Deploy All Configurations").isDisabled()).toBe(false);
    expect(await button(page, "Deploy Trunks").isDisabled()).toBe(true);

    pbx.clearFwconsoleCalls();
    // Another fwconsole holds FreePBX's lock until the page has shown the running job: the job waits at its
    // reload, however fast the rest of it is.
    pbx.setReloadLocked("always");
    // The button opens the review of the plan; Apply sends the reviewed plan's fingerprint.
    await deployExtensions.click();
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/deploy/apply") && r.method() === "POST");
    await applyReview(page);
    expect(JSON.parse((await sent).postData() ?? "{}")).toMatchObject({ target: "extensions", resolutions: {} });
    // Every deploy button waits while one runs (waited for: the click's re-render may follow the request).
    await waitEnabled(button(page, "Deploy All Configurations"), false);
    pbx.setReloadLocked(null);

    const row = item(results(page), "1001 - Alice");
    await row.waitFor(SLOW);
    expect(await row.getByTestId("item-status").textContent()).toBe("Success");
    expect(await row.getByTestId("item-via").textContent()).toBe("via SSH");
    expect(await row.textContent()).toContain("Written to the FreePBX database");
    expect(await results(page).getByTestId("reload-outcome").textContent()).toContain("OK");

    const toast = toasts(page);
    await toast.getByText("Extensions Deployed", { exact: true }).waitFor();
    await toast.getByText("Successfully deployed 1 extension(s) to the PBX server.").waitFor();

    expect(await pbx.query("SELECT id, tech, description FROM devices")).toEqual([
      { id: "1001", tech: "pjsip", description: "Alice" },
    ]);
    expect(pbx.fwconsoleCalls().map((c) => c.argv[0])).toContain("reload");
    await waitEnabled(deployExtensions);
    expect(await page.getByTestId("reload-state").textContent()).toBe("Up to date");
  });

  test("a failing reload shows fwconsole's output, 'Deployment Issues', and FreePBX then needs a reload", async () => {
    const page = await deploymentPage();
    pbx.setReloadFailure(true);
    // 1001 is on the PBX as deployed: a name changed in FreePBX makes the plan an update.
    await pbx.query("UPDATE users SET name = 'Alice (PBX)' WHERE extension = '1001'");
    await waitEnabled(button(page, "Deploy Extensions"));
    await button(page, "Deploy Extensions").click();
    await applyReview(page);

    const row = item(results(page), "1001 - Alice");
    await row.waitFor(SLOW);
    expect(await row.getByTestId("item-status").textContent()).toBe("Failed");
    expect(await row.textContent()).toContain("fwconsole reload failed");
    expect(await results(page).getByTestId("reload-outcome").textContent()).toContain("Failed");
    // The output is open when the reload failed.
    const output = results(page).getByTestId("reload-output");
    await output.waitFor();
    expect(await output.textContent()).toContain("Failed to open stream: Is a directory");

    const toast = toasts(page);
    await toast.getByText("Deployment Issues", { exact: true }).waitFor();
    await toast.getByText("1 extension(s) failed to deploy.", { exact: true }).waitFor();
    // The deploy status is read again afterwards: the written changes still wait for a reload.
    await page.getByTestId("reload-state").getByText("Reload needed").waitFor(SLOW);
  });

  test("'Reload needed' follows FreePBX's admin.need_reload flag", async () => {
    await pbx.query("UPDATE admin SET value = 'true' WHERE variable = 'need_reload'");
    const page = await deploymentPage();
    expect(await page.getByTestId("reload-state").textContent()).toBe("Reload needed");

    await pbx.query("UPDATE admin SET value = 'false' WHERE variable = 'need_reload'");
    await page.getByRole("button", { name: "Refresh PBX status" }).click();
    await page.getByTestId("reload-state").getByText("Up to date").waitFor(SLOW);
  });

  test("PTT groups deploy as page groups", async () => {
    const page = await deploymentPage();
    await h.apiJson("POST", "/api/ptt-groups", { name: "Floor", extension: "7001", members: ["1001"] });
    const deployPtt = button(page, "Deploy PTT Groups");
    await waitEnabled(deployPtt);
    await deployPtt.click();
    await applyReview(page);
    await item(results(page), "Floor").waitFor(SLOW);
    await toasts(page).getByText("PTT Groups Deployed", { exact: true }).waitFor();
    expect(await pbx.query("SELECT page_number, ext FROM paging_groups")).toEqual([
      { page_number: "7001", ext: "1001" },
    ]);
  });

  test("Deploy All Configurations deploys trunks and extensions; the trunk takes the PBX's status", async () => {
    await h.apiJson("POST", "/api/trunks", { name: "Telnyx", type: "sip", host: "sip.telnyx.com", port: 5060 });
    await h.apiJson("POST", "/api/extensions", { extension: "1003", name: "Carol" });
    const page = await deploymentPage();
    await countCard(page, "Trunks").getByTestId("count-value").getByText("1", { exact: true }).waitFor();
    await button(page, "Deploy All Configurations").click();
    // 1001 is already as the console has it: the plan says unchanged and the apply leaves it alone.
    await reviewDialog(page).getByTestId("count-unchanged").getByText("1 unchanged").waitFor(SLOW);
    await applyReview(page);

    const panel = results(page);
    await item(panel, "Telnyx").waitFor(SLOW);
    await item(panel, "1003 - Carol").waitFor();
    expect(await panel.getByRole("region", { name: "Trunks results" }).count()).toBe(1);
    expect(await panel.getByRole("region", { name: "Extensions results" }).count()).toBe(1);
    const toast = toasts(page);
    await toast.getByText("Deployment Successful", { exact: true }).waitFor();
    await toast.getByText("Successfully deployed 2 configuration(s) to the PBX server.").waitFor();
    expect(await pbx.query("SELECT name FROM trunks")).toEqual([{ name: "Telnyx" }]);
    const [trunk] = await h.apiJson<{ status: string }[]>("GET", "/api/trunks");
    expect(trunk?.status).toBe("deployed");
  });

  test("time conditions deploy with the time group they read", async () => {
    const page = await deploymentPage();
    const office = await h.apiJson<{ id: number }>("POST", "/api/time-groups", {
      name: "Office hours",
      weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
    });
    await h.apiJson("POST", "/api/time-conditions", {
      name: "Office",
      timeGroup: office.id,
      timeZone: "Europe/Berlin",
      match: { kind: "extension", target: "1001" },
    });
    await countCard(page, "Time Conditions").getByTestId("count-value").getByText("1", { exact: true }).waitFor();
    const deployTimeConditions = button(page, "Deploy Time Conditions");
    await waitEnabled(deployTimeConditions);
    await deployTimeConditions.click();
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/deploy/apply") && r.method() === "POST");
    await applyReview(page);
    expect(JSON.parse((await sent).postData() ?? "{}")).toMatchObject({ target: "time-conditions" });
    await toasts(page).getByText("Time Conditions Deployed", { exact: true }).waitFor(SLOW);
    const [group] = (await pbx.query("SELECT id FROM timegroups_groups WHERE description = 'Office hours'")) as [
      { id: number },
    ];
    expect(await pbx.query("SELECT time FROM timegroups_details WHERE timegroupid = ?", [group.id])).toEqual([
      { time: "08:00-17:00|mon-fri|*|*" },
    ]);
    expect(
      await pbx.query("SELECT displayname, time, timezone FROM timeconditions WHERE displayname = 'Office'"),
    ).toEqual([{ displayname: "Office", time: group.id, timezone: "Europe/Berlin" }]);
  });
});

describe("Deployment without a way to reach the PBX", () => {
  test("the review says why no plan can be made; nothing can be applied", async () => {
    const bare = await startHarness();
    try {
      await bare.signedInPage("/");
      await bare.api("POST", "/api/extensions", { extension: "1001", name: "Alice" });
      const page = await bare.signedInPage("/deployment");
      await page
        .getByTestId("pbx-status-message")
        .getByText("Configure the PBX host (SSH) or the FreePBX API in API Settings.")
        .waitFor();
      expect(await page.getByTestId("reload-state").textContent()).toBe("Unknown");
      const deploy = page.getByRole("button", { name: "Deploy Extensions", exact: true });
      await waitEnabled(deploy);
      await deploy.click();
      // The review cannot make a plan: it says why, and nothing can be applied.
      const dialog = reviewDialog(page);
      await dialog
        .getByText(
          "Could not make the plan: No way to reach the PBX: configure the PBX host (SSH) or the FreePBX GraphQL API in API Settings.",
        )
        .waitFor();
      expect(await dialog.getByRole("button", { name: /^Apply/ }).isDisabled()).toBe(true);
      await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(await results(page).count()).toBe(0);

      await page.getByRole("button", { name: "Deploy All Configurations", exact: true }).click();
      await dialog.getByText(/^Could not make the plan: No way to reach the PBX/).waitFor();
    } finally {
      await bare.stop();
    }
  });
});

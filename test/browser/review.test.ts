// The review before a deployment (ADR 0025) through chromium against the built binary,
// over REAL SSH into a REAL MariaDB preloaded with objects made in FreePBX's GUI (test/pbx-host): the
// dialog lists the plan grouped by action with field changes, a conflict is adopted, Apply runs the job to
// success, and a plan the PBX changed under shows the "changed since" message with the new plan.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { GUI, seedGuiObjects } from "../pbx-host/gui-objects";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { type Harness, startHarness, waitEnabled } from "./harness";
import { chooseOption } from "./locators";
import { applyButton, applyReview, reviewDialog } from "./review";

setDefaultTimeout(90_000);
const SLOW = { timeout: 30_000 };

let pbx: PbxHost;
let h: Harness;

beforeAll(async () => {
  pbx = await startPbxHost();
  await seedGuiObjects(pbx);
  await pbx.setAstdb({ "/DEVICE/1001/dial": "PJSIP/1001" });
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
  await h.apiJson("POST", "/api/extensions", { extension: GUI.extension, name: "Alice Console" });
  await h.apiJson("POST", "/api/extensions", { extension: "1002", name: "Bob" });
}, 90_000);

afterEach(async () => {
  await h?.closePages();
});

afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
});

const progress = (page: Page) => page.getByRole("region", { name: "Job progress" });

async function openReview(): Promise<Page> {
  const page = await h.signedInPage("/deployment");
  await page.getByRole("heading", { level: 1, name: "Deployment" }).waitFor();
  const deploy = page.getByRole("button", { name: "Deploy Extensions", exact: true });
  await waitEnabled(deploy);
  await deploy.click();
  await reviewDialog(page).getByRole("list", { name: "Plan counts" }).waitFor(SLOW);
  return page;
}

describe("the review dialog", () => {
  test("lists the plan by action with field changes; an adopted conflict and a create are applied by the job", async () => {
    const page = await openReview();
    const dialog = reviewDialog(page);
    expect(await dialog.getByTestId("count-conflict").textContent()).toBe("1 conflicts");
    expect(await dialog.getByTestId("count-create").textContent()).toBe("1 to create");
    const conflicts = dialog.getByRole("region", { name: "Conflicts" });
    const alice = conflicts.getByRole("listitem", { name: "Extension 1001 - Alice Console" });
    // Only the fields the console owns, from → to; the secret is not shown.
    const changes = await alice.getByTestId("field-change").allTextContents();
    expect(changes).toContain("users.nameAlice GUIAlice Console");
    expect(changes).toContain("devices.descriptionAlice GUIAlice Console");
    expect(changes.some((c) => c.includes("ringtimer") || c.includes("max_contacts"))).toBe(false);
    expect(await alice.textContent()).toContain("not managed by the console");
    await dialog
      .getByRole("region", { name: "Create" })
      .getByRole("listitem", { name: "Extension 1002 - Bob" })
      .waitFor();
    // Skip is the default: only the create would be applied.
    expect(await applyButton(page).textContent()).toBe("Apply (1 change)");

    await applyReview(page, { adopt: ["1001 - Alice Console"] });
    await progress(page).getByTestId("job-state").getByText("Succeeded", { exact: true }).waitFor(SLOW);
    expect(await progress(page).getByTestId("job-final").textContent()).toBe("Finished: 2 succeeded, 0 failed.");
    expect(await pbx.query("SELECT name, ringtimer FROM users WHERE extension = '1001'")).toEqual([
      { name: "Alice Console", ringtimer: 25 },
    ]);
    expect(await pbx.query("SELECT id FROM devices ORDER BY id")).toEqual([{ id: "1001" }, { id: "1002" }]);
  });

  test("a plan the PBX changed under: the 'changed since' message and the new plan, which then applies", async () => {
    await h.apiJson("POST", "/api/extensions", { extension: "1003", name: "Carol" });
    const page = await openReview();
    const dialog = reviewDialog(page);
    expect(await dialog.getByTestId("count-create").textContent()).toBe("1 to create");
    expect(await dialog.getByTestId("count-update").textContent()).toBe("0 to update");
    // Meanwhile someone renames 1002 in FreePBX.
    await pbx.query("UPDATE users SET name = 'Bob (GUI)' WHERE extension = '1002'");
    await applyButton(page).click();
    await dialog
      .getByTestId("stale-plan")
      .getByText("The PBX or the console changed since this plan: review the new plan below, then apply it.")
      .waitFor(SLOW);
    expect(await dialog.getByTestId("count-update").textContent()).toBe("1 to update");
    const bob = dialog.getByRole("region", { name: "Update" }).getByRole("listitem", { name: "Extension 1002 - Bob" });
    expect(await bob.getByTestId("field-change").allTextContents()).toContain("users.nameBob (GUI)Bob");
    expect(await pbx.query("SELECT id FROM devices WHERE id = '1003'")).toEqual([]);

    await applyReview(page);
    await progress(page).getByTestId("job-state").getByText("Succeeded", { exact: true }).waitFor(SLOW);
    expect(await pbx.query("SELECT name FROM users WHERE extension IN ('1002', '1003') ORDER BY extension")).toEqual([
      { name: "Bob" },
      { name: "Carol" },
    ]);
  });

  test("a delete in the console shows as a delete and reaches the PBX after Apply", async () => {
    const list = await h.apiJson<{ id: number; extension: string }[]>("GET", "/api/extensions");
    const carol = list.find((e) => e.extension === "1003");
    await h.api("DELETE", `/api/extensions/${carol?.id}`);
    const page = await openReview();
    const dialog = reviewDialog(page);
    expect(await dialog.getByTestId("count-delete").textContent()).toBe("1 to delete");
    await dialog.getByRole("region", { name: "Delete" }).getByRole("listitem", { name: "Extension 1003" }).waitFor();
    await applyReview(page);
    await progress(page).getByTestId("job-state").getByText("Succeeded", { exact: true }).waitFor(SLOW);
    expect((await pbx.query("SELECT id FROM devices ORDER BY id")).map((r) => r.id)).toEqual(["1001", "1002"]);
  });

  test("a call recording mode chosen in the extension's dialog is in the plan, and the apply puts it in AstDB", async () => {
    const page = await h.signedInPage("/extensions");
    const row = page.locator('[data-testid="extension-row"][data-extension="1002"]');
    await row.getByRole("button", { name: "Edit extension 1002" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Extension" });
    await edit.waitFor();
    const recording = edit.getByRole("group", { name: "Call recording" });
    // FreePBX's meanings are in the hint; the mode as deployed so far is FreePBX's default.
    await recording.getByText("Force: always recorded", { exact: false }).waitFor();
    expect(await recording.getByLabel("Outbound internal calls", { exact: true }).textContent()).toBe("Don't care");
    await chooseOption(page, recording, "Outbound internal calls", "Force");
    await edit.getByRole("button", { name: "Save Changes" }).click();
    await edit.waitFor({ state: "detached" });
    const [, bob] = await h.apiJson<{ extension: string; recordingOutInternal: string }[]>("GET", "/api/extensions");
    expect(bob).toMatchObject({ extension: "1002", recordingOutInternal: "force" });

    const review = await openReview();
    const item = reviewDialog(review)
      .getByRole("region", { name: "Update" })
      .getByRole("listitem", { name: "Extension 1002 - Bob" });
    expect(await item.getByTestId("field-change").allTextContents()).toEqual([
      "AMPUSER/1002/recording/out/internaldontcareforce",
    ]);
    await applyReview(review);
    await progress(review).getByTestId("job-state").getByText("Succeeded", { exact: true }).waitFor(SLOW);
    expect((await pbx.astdb())["/AMPUSER/1002/recording/out/internal"]).toBe("force");
  });
});

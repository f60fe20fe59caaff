// The Deployment screen's deploy history through chromium against the built binary, over
// REAL SSH into a REAL MariaDB (test/pbx-host): a deployment is listed with its backup; "Roll back", after
// a confirmation naming what is restored, runs as a job to success and the PBX is as before.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { type Harness, startHarness } from "./harness";
import { toasts } from "./locators";

setDefaultTimeout(90_000);
const SLOW = { timeout: 30_000 };

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

afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
});

describe("Deploy history", () => {
  test("lists a deployment with its backup; Roll back asks first, then restores the PBX and reloads", async () => {
    await h.apiJson("POST", "/api/extensions", { extension: "3101", name: "Rollie" });
    const deployed = await h.runJob<{ id: number; state: string }>("/api/deploy/extensions");
    expect(deployed.state).toBe("succeeded");
    expect(await pbx.query("SELECT id FROM devices")).toEqual([{ id: "3101" }]);
    pbx.clearFwconsoleCalls();

    const page = await h.signedInPage("/deployment");
    const card = page.getByRole("region", { name: "Deploy history" });
    const run = card.getByRole("listitem", { name: `Deploy extensions (job ${deployed.id})` });
    await run.waitFor(SLOW);
    expect(await run.getByTestId("run-state").textContent()).toBe("Succeeded");
    expect(await run.getByTestId("run-backup").textContent()).toMatch(/^Backup \d+: 1 object\(s\)$/);

    // The confirmation names what is restored; Cancel changes nothing.
    await run.getByRole("button", { name: "Roll back" }).click();
    const dialog = page.getByRole("dialog", { name: "Roll back this deployment?" });
    await dialog.waitFor();
    expect(
      await dialog.getByRole("list", { name: "Objects to restore" }).getByRole("listitem").allTextContents(),
    ).toEqual(["extension 3101"]);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await pbx.query("SELECT id FROM devices")).toEqual([{ id: "3101" }]);

    await run.getByRole("button", { name: "Roll back" }).click();
    await dialog.getByRole("button", { name: "Roll Back" }).click();
    // Progress through the job progress card, to success.
    await page.locator('[data-testid="job-progress"][data-state="succeeded"]').waitFor(SLOW);
    await toasts(page).getByText("Rolled Back", { exact: true }).waitFor();

    // The PBX is as before the deployment, and FreePBX was reloaded.
    expect(await pbx.query("SELECT id FROM devices")).toEqual([]);
    expect(await pbx.astdb()).toEqual({});
    expect(pbx.fwconsoleCalls().some((c) => c.argv[0] === "reload")).toBe(true);

    // The history: the roll back is a run of its own; the deployment's backup is rolled back (no button).
    const rollbackRun = card.getByRole("listitem", { name: /^Roll back: Deploy extensions \(job \d+\)$/ });
    await rollbackRun.waitFor(SLOW);
    await run
      .getByTestId("run-backup")
      .getByText(/rolled back by admin/)
      .waitFor(SLOW);
    expect(await run.getByRole("button", { name: "Roll back" }).count()).toBe(0);
  });
});

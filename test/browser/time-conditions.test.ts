// The Call Routing screen's time conditions through chromium against the built binary, with the test PBX host
// (test/pbx-host: a copy of FreePBX 17's database over real SSH, and a real Asterisk whose manager interface the
// console logs in to as FreePBX does): a time condition made in FreePBX's tables is listed as the PBX has it, and
// forcing it closed from the screen writes FreePBX's override into Asterisk's database at once.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let pbx: PbxHost;
let h: Harness;
let tcId = 0;

beforeAll(async () => {
  pbx = await startPbxHost();
  await pbx.query("INSERT INTO timegroups_groups (description) VALUES ('Office')");
  const [{ id: group }] = (await pbx.query("SELECT MAX(id) AS id FROM timegroups_groups")) as [{ id: number }];
  await pbx.query("INSERT INTO timegroups_details (timegroupid, time) VALUES (?, '08:00-17:00|mon-fri|*|*')", [group]);
  await pbx.query(
    "INSERT INTO timeconditions (displayname, time, truegoto, falsegoto, timezone, mode) VALUES ('Walk hours', ?, 'from-did-direct,1001,1', 'ext-local,vmu1001,1', 'Europe/Berlin', 'time-group')",
    [group],
  );
  [{ id: tcId }] = (await pbx.query("SELECT MAX(timeconditions_id) AS id FROM timeconditions")) as [{ id: number }];
  // The manager login FreePBX's own code uses, from its Advanced Settings in the host's database.
  const settings = Object.fromEntries(
    (
      (await pbx.query(
        "SELECT keyword, value FROM freepbx_settings WHERE keyword IN ('AMPMGRUSER', 'AMPMGRPASS', 'ASTMANAGERPORT')",
      )) as { keyword: string; value: string }[]
    ).map((r) => [r.keyword, r.value]),
  );
  h = await startHarness({
    env: {
      ...pbx.consoleEnv(),
      PBX_SSH_HOST_KEY: pbx.ssh.hostKeyFingerprint,
      AMI_HOST: "127.0.0.1",
      AMI_PORT: String(settings.ASTMANAGERPORT),
      AMI_USERNAME: String(settings.AMPMGRUSER),
      AMI_SECRET: String(settings.AMPMGRPASS),
    },
  });
  await h.signedInPage("/"); // creates the administrator
  await h.closePages();
}, 120_000);
afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
});

test(
  "a time condition on the PBX is listed as FreePBX keeps it, and forcing it closed writes FreePBX's override",
  async () => {
    // The override goes out through the manager interface: wait until the console says it can.
    const deadline = Date.now() + 60_000;
    while (!(await h.apiJson<{ overridable: boolean }>("GET", "/api/pbx/time-conditions")).overridable) {
      if (Date.now() > deadline) throw new Error("the console's manager connection never came up");
      await Bun.sleep(200);
    }
    const page = await h.signedInPage("/call-routing");
    const card = page.locator(`[data-time-condition="${tcId}"]`);
    await card.getByText("Walk hours", { exact: true }).waitFor();
    expect(await card.textContent()).toContain("Office: 08:00-17:00|mon-fri|*|* (Europe/Berlin)");
    expect(await card.textContent()).toContain("Matched: extension 1001 · Not matched: voicemail 1001");

    const sent = page.waitForResponse((r) => r.url().endsWith(`/api/pbx/time-conditions/${tcId}/override`));
    await chooseOption(page, card, "Override of Walk hours", "Forced closed (not matched)");
    const answer = await sent;
    expect(answer.request().postDataJSON()).toEqual({ state: "closed" });
    expect(answer.status(), await answer.text()).toBe(200);
    await toasts(page).getByText("Walk hours: Forced closed (not matched)", { exact: true }).waitFor();
    await card.getByText("override", { exact: true }).waitFor();
    expect((await pbx.astdb())[`/TC/${tcId}`]).toBe("false_sticky");

    await chooseOption(page, card, "Override of Walk hours", "Automatic (by its time group)");
    await toasts(page).getByText("Walk hours: Automatic (by its time group)", { exact: true }).waitFor();
    await card.getByText("override", { exact: true }).waitFor({ state: "detached" });
    expect((await pbx.astdb())[`/TC/${tcId}`] ?? "").toBe("");
  },
  TEST_TIMEOUT,
);

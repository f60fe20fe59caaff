// The Test Calls screen through chromium against the built binary, its manager interface the fake Asterisk
// (test/fakes/ami.ts) answering the probe's actions with what the real one answered (the recorded echo test and
// unanswered call of test/fixtures/test-calls/): a test call added in the dialog (a bad number refused under
// its field), Run now by keyboard passing with its answer time, a second run failing with the reason, and the
// results chart with both runs, the failed one marked; axe.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { TestCall } from "../../src/shared/test-calls";
import { type FakeAmi, startFakeAmi } from "../fakes/ami";
import { type ActionEntry, isEvent, readTestCallTranscript } from "../helpers/test-call-transcripts";
import { seriousFindings } from "./axe-findings";
import { harnessPerFile, TEST_TIMEOUT } from "./harness";
import { toastItems } from "./locators";

const AMI_USER = { username: "pbxconsole", secret: "manager secret 1" };
let ami: FakeAmi;
/** Which recording the next Originate is answered from. */
let next = "echo";

/**
 * The fake answers the probe as the testbed's Asterisk did in the recording: the probe endpoint is there,
 * Originate is queued and the channel's recorded events follow at their recorded delays (with this call's
 * channel id), each Getvar gets the recorded statistics in turn, Hangup ends the channel.
 */
function answerAsRecorded(fake: FakeAmi) {
  fake.addEndpoint("pbx-console-probe-from-internal", { kind: "trunk" });
  fake.answerAction("ModuleCheck", () => ({ Response: "Success", Version: "" }));
  let stats: string[] = [];
  fake.answerAction("Originate", (action) => {
    const t = readTestCallTranscript(next);
    const sent = t.entries.find((e): e is ActionEntry => !isEvent(e) && e.action === "Originate") as ActionEntry;
    const rename = (v: string) => v.split(t.channelId).join(action.fields.channelid ?? "");
    // The far end's events only: what followed the console's own hang-up is left out.
    const hungUp = t.entries.find((e): e is ActionEntry => !isEvent(e) && e.action === "Hangup")?.t ?? Infinity;
    for (const e of t.entries) {
      if (!isEvent(e) || e.t < sent.t || e.t >= hungUp) continue;
      const { event, privilege: _p, ...rest } = e.event;
      const fields = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, rename(v)]));
      setTimeout(() => fake.emit({ Event: event ?? "", ...fields }, "call"), e.t - sent.answeredAt);
    }
    stats = t.entries
      .filter((e): e is ActionEntry => !isEvent(e) && e.action === "Getvar" && e.response !== undefined)
      .map((e) => e.response?.value ?? "");
    return { Response: "Success", Message: "Originate successfully queued" };
  });
  fake.answerAction(
    "Getvar",
    (action): Record<string, string> =>
      stats.length > 0
        ? { Response: "Success", Variable: action.fields.variable ?? "", Value: stats.shift() ?? "" }
        : { Response: "Error", Message: "No such channel" },
  );
  fake.answerAction("Hangup", (action) =>
    (action.fields.channel ?? "").startsWith("pbxconsole-probe-")
      ? { Response: "Success", Message: "Channel Hungup" }
      : null,
  );
}

beforeAll(async () => {
  ami = await startFakeAmi(AMI_USER);
  answerAsRecorded(ami);
});
const h = harnessPerFile({
  env: {
    get AMI_HOST() {
      return ami.host;
    },
    get AMI_PORT() {
      return String(ami.port);
    },
    AMI_USERNAME: AMI_USER.username,
    AMI_SECRET: AMI_USER.secret,
  },
  viewport: { width: 1400, height: 1000 },
});
afterAll(async () => {
  await ami?.stop();
});

async function testCallsPage(): Promise<Page> {
  const page = await h.signedInPage("/test-calls");
  await page.getByRole("heading", { level: 1, name: "Test Calls" }).waitFor();
  return page;
}

test(
  "add a test call, run it now by keyboard: it passes; a second run fails; the chart shows both",
  async () => {
    const page = await testCallsPage();
    await page.getByText("No Test Calls", { exact: true }).waitFor();

    await page.getByRole("button", { name: "Add Test Call" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Test Call" });
    await dialog.getByLabel("Name", { exact: true }).fill("Echo test");
    await dialog.getByLabel("Number", { exact: true }).fill("*43;Dial(PJSIP/1001)");
    await dialog.getByRole("button", { name: "Create Test Call" }).click();
    await dialog.getByText("Number must be digits, * or #, optionally starting with +", { exact: true }).waitFor();
    expect(await h.apiJson<TestCall[]>("GET", "/api/test-calls")).toEqual([]);
    await dialog.getByLabel("Number", { exact: true }).fill("*43");
    await dialog.getByLabel("Scheduled", { exact: true }).click();
    await dialog.getByRole("button", { name: "Create Test Call" }).click();
    await dialog.waitFor({ state: "hidden" });

    const card = page.locator('[data-testid="test-call"][data-name="Echo test"]');
    await card.getByText("Dials *43 in from-internal; answer within 10 s, listen 5 s", { exact: true }).waitFor();
    await card.getByText("Not scheduled (Run now only)", { exact: true }).waitFor();
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });

    // Run now, from the keyboard: the recorded echo test answers and its tone comes back.
    const runButton = card.getByRole("button", { name: "Run now Echo test" });
    await runButton.focus();
    await page.keyboard.press("Enter");
    await card.getByText("Calling…", { exact: true }).waitFor();
    await toastItems(page).filter({ hasText: "Echo test passed" }).waitFor({ timeout: 15_000 });
    const last = card.getByTestId("last-result");
    await last.and(page.locator('[data-ok="true"]')).waitFor();
    await last.getByText(/^answered in \d+ ms, \d{3} packets in, \d{3} out, 0% loss, 0 ms jitter$/).waitFor();

    // The next call is not answered (the recorded unanswered call): a failed result with the reason.
    next = "no-answer";
    await runButton.click();
    const failedToast = toastItems(page).filter({ hasText: "Echo test failed" });
    await failedToast.waitFor({ timeout: 15_000 });
    // Closed before axe runs: the red toast's own contrast is the toast component's, not this screen's.
    await failedToast.getByRole("button", { name: "Close" }).click();
    await failedToast.waitFor({ state: "detached" });
    await card.getByTestId("last-error").getByText("Not answered within 10 s", { exact: true }).waitFor();
    await card.getByText("Failing", { exact: true }).waitFor();

    // Both runs on the chart, the failed one marked, and in the list of failed runs.
    const chart = page.locator('[data-chart="Answer time per run of Echo test (ms)"]');
    await chart.waitFor();
    const rows = chart.getByTestId("chart-data").locator("tbody tr");
    await rows.nth(1).waitFor({ state: "attached" });
    expect(await rows.count()).toBe(2);
    const cells = async (i: number) => rows.nth(i).locator("td").allTextContents();
    const [passed, failed] = [await cells(0), await cells(1)];
    expect(Number(passed[0])).toBeGreaterThan(0);
    expect(passed[1]).toBe("0");
    expect(failed).toEqual(["0", "10000"]);
    await page.getByRole("list", { name: "Failed runs of Echo test" }).getByText("Not answered within 10 s").waitFor();
    await page.locator('[data-chart="Packet loss per run of Echo test (%)"]').waitFor();
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });

    // What the console sent: the echo test through the probe endpoint, always hung up.
    const originate = ami.actions.filter((a) => a.name === "Originate");
    expect(originate).toHaveLength(2);
    expect(originate[0]?.fields).toMatchObject({
      channel: "PJSIP/*43@pbx-console-probe-from-internal",
      application: "Milliwatt",
      timeout: "10000",
      async: "true",
    });
    expect(ami.actions.filter((a) => a.name === "Hangup").map((a) => a.fields.channel)).toContain(
      originate[0]?.fields.channelid,
    );
  },
  TEST_TIMEOUT,
);

// A deployment job's FreePBX reload on its progress card: a failed reload names its
// reason and shows fwconsole's output. Through chromium against the built binary; the job is answered.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Job } from "../../src/shared/jobs";
import type { DeployResponse } from "../../src/shared/pbx";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const OUTPUT = [
  "Reload Started",
  "",
  "In Reload.class.php line 86:",
  "                                                  ",
  "  Bad destination: ivr-9,s,1 is not a valid destination  ",
  "                                                  ",
  "",
  "r [--json] [--dry-run] [--skip-registry-checks] [--dont-reload-asterisk]",
].join("\n");

const summary: DeployResponse = {
  deployed: 0,
  failed: 1,
  results: [
    {
      kind: "trunk",
      name: "Telnyx",
      label: "Telnyx",
      trunk: "Telnyx",
      status: "failed",
      message:
        "Saved in the FreePBX database, but fwconsole reload failed (exit 1): Bad destination: ivr-9,s,1 is not a valid destination",
      via: "ssh",
    },
  ],
  reload: {
    ok: false,
    via: "ssh",
    exitCode: 1,
    output: OUTPUT,
    reason: "Bad destination: ivr-9,s,1 is not a valid destination",
  },
};

const job = (state: Job["state"]): Job => ({
  id: 41,
  kind: "deploy",
  target: "trunks",
  title: "Deploy trunks",
  startedBy: "admin",
  startedAt: new Date().toISOString(),
  deadlineAt: new Date(Date.now() + 600_000).toISOString(),
  finishedAt: state === "running" ? null : new Date().toISOString(),
  state,
  total: 1,
  done: state === "running" ? 0 : 1,
  succeeded: 0,
  failed: state === "running" ? 0 : 1,
  current: null,
  results:
    state === "running" ? [] : [{ label: "Telnyx", status: "failed", message: summary.results[0]?.message ?? "" }],
  summary: state === "running" ? null : summary,
  error: null,
  cancelledBy: null,
});

test(
  "a failed reload: its reason on the job card, and fwconsole's whole output under it",
  async () => {
    const page = await h.signedInPage("/deployment", {
      before: async (p) => {
        // The recent list says a deploy runs (so the screen shows it); the job itself has ended.
        await p.route("**/api/jobs?limit=*", (route) =>
          route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify([job("running")]) }),
        );
        await p.route("**/api/jobs/41", (route) =>
          route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(job("failed")) }),
        );
      },
    });
    const card = page.getByTestId("job-progress");
    const reload = card.getByTestId("job-reload");
    await reload.waitFor();
    expect(await reload.getAttribute("data-ok")).toBe("false");
    expect(await card.getByTestId("job-reload-text").textContent()).toBe(
      "failed (exit 1): Bad destination: ivr-9,s,1 is not a valid destination",
    );
    // Open because it failed: the output is there to read, usage line and all.
    const output = card.getByTestId("job-reload-output");
    await output.waitFor();
    expect(await output.textContent()).toContain("In Reload.class.php line 86:");
    expect(await output.textContent()).toContain("r [--json]");
  },
  TEST_TIMEOUT,
);

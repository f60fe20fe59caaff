// Long work is a job (ADR 0024), through chromium against the built binary: a deploy
// that takes about a minute (the fake FreePBX's reload stays "Processing" that long) answers at once,
// shows a progress bar that survives a page reload, refuses a second job with the 409 naming the
// running one, and reports success when it ends; no HTTP request is cut or fails on the way. Cancel
// stops a job after its current item.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import {
  FREEPBX_TEST_CLIENT,
  type MemoryFreePbxBackend,
  quickCreateExtension,
  startFakeFreePbx,
} from "../fakes/freepbx";
import { type Harness, startHarness, waitEnabled } from "./harness";
import { toasts } from "./locators";
import { applyReview, reviewDialog } from "./review";

setDefaultTimeout(30_000);

let fake: Awaited<ReturnType<typeof startFakeFreePbx<MemoryFreePbxBackend>>>;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeFreePbx<MemoryFreePbxBackend>();
  h = await startHarness({
    env: {
      FREEPBX_API_URL: fake.url,
      FREEPBX_CLIENT_ID: FREEPBX_TEST_CLIENT.clientId,
      FREEPBX_CLIENT_SECRET: FREEPBX_TEST_CLIENT.clientSecret,
    },
  });
  await h.apiJson("POST", "/api/extensions", { extension: "1001", name: "Alice" });
  await h.apiJson("POST", "/api/extensions", { extension: "1002", name: "Bob" });
}, 60_000);

afterEach(async () => {
  await h?.closePages();
  fake.state.delayMs = 0;
  fake.state.backend.reloadBehaviour.afterMs = 50;
  fake.state.backend.reloadBehaviour.outcome = "Executed";
});

afterAll(async () => {
  await h?.stop();
  await fake?.stop();
});

const progress = (page: Page) => page.getByRole("region", { name: "Job progress" });
const progressText = (page: Page) => progress(page).getByTestId("job-progress-text");
const jobState = (page: Page) => progress(page).getByTestId("job-state");

async function deploymentPage(): Promise<Page> {
  const page = await h.signedInPage("/deployment");
  await page.getByRole("heading", { level: 1, name: "Deployment" }).waitFor();
  return page;
}

/**
 * Every /api request of the page that failed at the network level (a cut connection, an empty answer).
 * The page's own aborts (a reload, a refetch replacing one in flight) are not the server's doing.
 */
function watchFailures(page: Page): string[] {
  const failures: string[] = [];
  page.on("requestfailed", (r) => {
    if (r.failure()?.errorText === "net::ERR_ABORTED") return;
    if (new URL(r.url()).pathname.startsWith("/api/"))
      failures.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`);
  });
  return failures;
}

describe("a deployment job", () => {
  test("a long deploy: answered at once, progress survives a reload, a second job is refused, success at the end", async () => {
    // FreePBX's reload stays at Processing until the test has seen what it needs while the job runs.
    fake.state.backend.reloadBehaviour.outcome = "stuck";
    const page = await deploymentPage();
    const failures = watchFailures(page);
    const deploy = page.getByRole("button", { name: "Deploy Extensions", exact: true });
    await deploy.waitFor();
    await deploy.click();
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/deploy/apply"));
    // The review (ADR 0025): Apply starts the job.
    await applyReview(page);
    const response = await answered;
    expect(response.status()).toBe(202);
    // Answered while FreePBX's reload cannot have ended: the request does not wait for the job.
    const { jobId } = (await response.json()) as { jobId: number };

    // The bar follows the items, then waits at the reload.
    const bar = progress(page).getByRole("progressbar", { name: "Deploy extensions progress" });
    await bar.waitFor();
    await progressText(page).getByText("2 of 2 — Reloading FreePBX (doreload)", { exact: true }).waitFor();
    expect(await bar.getAttribute("aria-valuetext")).toBe("2 of 2 — Reloading FreePBX (doreload)");
    expect(await jobState(page).textContent()).toBe("Running");
    const items = progress(page).getByRole("list", { name: "Item results" });
    expect(await items.getByRole("listitem").allTextContents()).toEqual([
      "1001 - AliceExtension 1001 added through the FreePBX API",
      "1002 - BobExtension 1002 added through the FreePBX API",
    ]);
    // The buttons wait while it runs.
    expect(await deploy.isDisabled()).toBe(true);

    // A second job, from the Sync screen: the 409 names the running one. (An extension made in FreePBX
    // gives the import something to do; its review is read while the deployment runs.)
    await fake.state.backend.addExtension(quickCreateExtension({ extensionId: "1003", name: "Carol", email: "" }));
    const sync = await h.signedInPage("/sync");
    const importAll = sync.getByRole("button", { name: "Import All", exact: true });
    await sync.getByRole("table", { name: "Extension comparison" }).waitFor({ timeout: 20_000 });
    await importAll.click();
    const review = sync.getByRole("dialog", { name: "Review: import extensions", exact: true });
    const confirmImport = review.getByRole("button", { name: /^Import \(1 extension\)/ });
    await waitEnabled(confirmImport);
    await confirmImport.click();
    const refusal = await review
      .getByRole("alert")
      .getByText(/^A deployment \(started by admin at \d\d:\d\d\) is running/)
      .textContent();
    expect(refusal).toMatch(/^A deployment \(started by admin at \d\d:\d\d\) is running: wait for it or cancel it$/);

    // A page reload: the running job's progress shows again (GET /api/jobs), the buttons still wait.
    await page.reload();
    await progressText(page).getByText("2 of 2 — Reloading FreePBX (doreload)", { exact: true }).waitFor();
    expect(await jobState(page).textContent()).toBe("Running");
    expect(await deploy.isDisabled()).toBe(true);

    // The end: FreePBX finishes its reload; success, the summary as the results.
    const processing = [...fake.state.backend.transactions.values()].filter((t) => t.status === "Processing");
    expect(processing.length).toBe(1);
    fake.state.backend.finishTransaction(processing[0]?.txnId as string, "Executed");
    await jobState(page).getByText("Succeeded", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await progress(page).getByTestId("job-final").textContent()).toBe("Finished: 2 succeeded, 0 failed.");
    const results = page.getByRole("region", { name: "Deployment Results" });
    await results.waitFor();
    expect(await results.getByTestId("reload-outcome").textContent()).toContain("OK");
    expect(await results.getByRole("listitem", { name: "1002 - Bob" }).getByTestId("item-status").textContent()).toBe(
      "Success",
    );
    expect(fake.state.backend.reloadCount).toBe(1);
    const job = await h.apiJson<{ state: string; summary: { deployed: number } }>("GET", `/api/jobs/${jobId}`);
    expect(job).toMatchObject({ state: "succeeded", summary: { deployed: 2, failed: 0 } });
    await waitEnabled(deploy);
    // No request was cut: every /api call the page made was answered.
    expect(failures).toEqual([]);
  }, 120_000);

  test("Cancel stops the job after its current item; the rest is not deployed and nothing is reloaded", async () => {
    // Gone from FreePBX: the plan creates both again.
    fake.state.backend.extensions.clear();
    const page = await deploymentPage();
    await page.getByRole("button", { name: "Deploy Extensions", exact: true }).click();
    await reviewDialog(page).getByRole("list", { name: "Plan counts" }).waitFor({ timeout: 20_000 });
    fake.state.delayMs = 400; // each extension is three requests
    await applyReview(page);
    await progressText(page)
      .getByText(/^0 of 2 — 1001 - Alice$/)
      .waitFor();
    const reloads = fake.state.backend.reloadCount;
    await progress(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await jobState(page).getByText("Cancelled", { exact: true }).waitFor();
    expect(await progress(page).getByTestId("job-final").textContent()).toBe(
      "Stopped (cancelled by admin): 1 succeeded, 1 failed.",
    );
    const items = progress(page).getByRole("list", { name: "Item results" });
    expect(await items.getByRole("listitem", { name: "1002 - Bob" }).textContent()).toContain(
      "Not done: the job stopped before this item (cancelled by admin)",
    );
    await toasts(page).getByText("Deployment Cancelled", { exact: true }).waitFor();
    expect(fake.state.backend.reloadCount).toBe(reloads);
  });
});

// The dashboard's notice of changes FreePBX has not applied (admin.need_reload),
// through chromium against the built binary; GET /api/deploy/status answered per test.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { PbxStatus } from "../../src/shared/pbx";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.createAdminViaApi();
});
afterEach(() => h?.closePages());
afterAll(() => h?.stop());

/** The dashboard with the PBX status answered by `status`; the requests it made. */
async function dashboard(status: PbxStatus): Promise<{ page: Page; answered: Promise<void> }> {
  const page = await h.adminPage();
  let answer: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  await page.route("**/api/deploy/status", async (route) => {
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(status) });
    answer();
  });
  await page.goto(`${h.baseUrl}/`);
  await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
  return { page, answered };
}

const PATHS: PbxStatus["paths"] = {
  ssh: { state: "connected", message: null },
  graphql: { state: "not-configured", message: null },
};

const notice = (page: Page) => page.getByRole("status", { name: "Unapplied PBX changes" });

describe("unapplied PBX changes", () => {
  test(
    "FreePBX's reload flag set: the notice says what it means and how to apply them",
    async () => {
      const { page } = await dashboard({ ssh: true, graphql: false, paths: PATHS, needReload: true, message: null });
      const n = notice(page);
      await n.waitFor();
      expect(await n.textContent()).toContain("FreePBX has changes that are not applied yet.");
      expect(await n.textContent()).toContain("fwconsole reload");
      const link = n.getByRole("link", { name: "Open Deployment" });
      await link.click();
      await page.waitForURL(`${h.baseUrl}/deployment`);
    },
    TEST_TIMEOUT,
  );

  test(
    "up to date, or unknown (no SSH): no notice",
    async () => {
      for (const status of [
        { ssh: true, graphql: false, paths: PATHS, needReload: false, message: null },
        {
          ssh: false,
          graphql: false,
          paths: { ...PATHS, ssh: { state: "not-configured", message: null } },
          needReload: null,
          message: "Configure the PBX host (SSH) or the FreePBX API in API Settings.",
        },
      ] satisfies PbxStatus[]) {
        const { page, answered } = await dashboard(status);
        // The status was answered and the page went quiet: the notice had its chance to show.
        await answered;
        await page.waitForLoadState("networkidle");
        expect(await notice(page).count()).toBe(0);
        await page.close();
      }
    },
    TEST_TIMEOUT,
  );
});

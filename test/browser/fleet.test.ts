// The Fleet screen through chromium against the built binary (the hub), its member a fake console over TLS
// (test/fakes/fleet-member.ts): a plain-http address refused under its field, the member added in the dialog
// and shown with its live state, a figure that moves on the member shown without a reload (fleet-updated),
// the fleet-wide search finding an extension on the member, naming it; a template planned on the member,
// its plan reviewed and applied; axe.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FleetList } from "../../src/shared/fleet";
import { type FakeMember, makeCertificate, startFakeMember } from "../fakes/fleet-member";
import { seriousFindings } from "./axe-findings";
import { harnessPerFile, TEST_TIMEOUT } from "./harness";

const certDir = mkdtempSync(join(tmpdir(), "pbx-fleet-browser-"));
let member: FakeMember;

beforeAll(async () => {
  member = await startFakeMember({ cert: makeCertificate(certDir, "branch-north"), name: "branch-north" });
  member.state.items = [{ kind: "extension", key: "2001", label: "2001 Carol North", url: "/extensions" }];
});
const h = harnessPerFile({ viewport: { width: 1400, height: 1000 } });
afterAll(async () => {
  await member?.stop();
  rmSync(certDir, { recursive: true, force: true });
});

test(
  "add a member, see its live state, find an extension on it, and plan and apply a template there",
  async () => {
    const page = await h.signedInPage("/fleet");
    await page.getByRole("heading", { level: 1, name: "Fleet" }).waitFor();
    await page.getByText("No Members", { exact: true }).waitFor();
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });

    await page.getByRole("button", { name: "Add Member" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Member" });
    await dialog.getByLabel("Console URL", { exact: true }).fill(member.url.replace("https:", "http:"));
    await dialog.getByLabel("REST API token", { exact: true }).fill(member.state.token);
    await dialog.getByRole("button", { name: "Add Member" }).click();
    await dialog.getByText(/^Use an https:\/\/ URL/).waitFor();
    expect((await h.apiJson<FleetList>("GET", "/api/fleet")).items).toEqual([]);
    await dialog.getByLabel("Console URL", { exact: true }).fill(member.url);
    await dialog.getByRole("button", { name: "Add Member" }).click();
    await dialog.waitFor({ state: "hidden" });

    const row = page.getByRole("row", { name: "branch-north" });
    await row.getByText("Reachable", { exact: true }).waitFor();
    await row.getByTestId("fleet-registrations").getByText("3 / 5", { exact: true }).waitFor();
    await row.getByText("9.9.9", { exact: true }).waitFor();
    // A figure that moves on the member is shown without a reload: the poller's fleet-updated refetches.
    member.state.self.activeCalls = 4;
    await row.getByTestId("fleet-calls").getByText("4", { exact: true }).waitFor({ timeout: 10_000 });

    const search = page.getByRole("search", { name: "Search the fleet" });
    await search.getByLabel("Extension, number or name").fill("carol");
    await search.getByRole("button", { name: "Search" }).click();
    const hit = page.getByTestId("fleet-hit").filter({ hasText: "2001 Carol North" });
    await hit.waitFor();
    await hit.getByText("branch-north", { exact: true }).waitFor();
    expect(await hit.getByRole("link", { name: "2001 Carol North" }).getAttribute("href")).toBe(
      `${member.url}/extensions`,
    );
    // The search reached the member with its token, over the pinned connection.
    expect(member.calls.some((c) => c.path === "/api/fleet/self/search?q=carol")).toBe(true);
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });

    // A template: kept, planned on the member (its own plan, reviewed here), then applied by that plan.
    await page.getByRole("button", { name: "Add Template" }).click();
    const add = page.getByRole("dialog", { name: "Add Template" });
    await add.getByLabel("Name", { exact: true }).fill("Intl routes");
    await add.getByLabel("Document fragment", { exact: true }).fill('{"version": 1, "outboundRoutes": []}');
    await add.getByRole("button", { name: "Save Template" }).click();
    await add.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Plan and apply Intl routes" }).click();
    const run = page.getByRole("dialog", { name: "Apply Intl routes" });
    await run.getByLabel("branch-north").check();
    await run.getByRole("button", { name: "Plan", exact: true }).click();
    const plan = run.getByRole("listitem", { name: "Plan on branch-north" });
    await plan.getByText("1 to create, 0 to update, 0 unchanged").waitFor();
    await plan.getByText("pattern: — → 00.").waitFor();
    expect(member.state.received.map((r) => r.path)).toEqual(["/api/config/plan"]);
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });
    await run.getByRole("button", { name: "Apply 1 reviewed plan" }).click();
    await plan.getByText("Applied", { exact: true }).waitFor();
    expect(member.state.received.at(-1)).toEqual({ path: "/api/config/apply", body: { fingerprint: "f".repeat(64) } });
  },
  TEST_TIMEOUT,
);

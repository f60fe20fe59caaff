// Settings → Off-site backups through chromium against the built binary and a real S3-compatible server (s3rver):
// the key made and shown once, an S3 target added through the dialog (a refused field first), Test, Upload now,
// the restore drill, the status on the Dashboard, axe, and the keyboard.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { BackupTarget, OffsiteKeyView } from "../../src/shared/offsite-backups";
import { S3_ACCESS_KEY_ID, S3_SECRET, startS3Server } from "../helpers/offsite-servers";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

let s3: Awaited<ReturnType<typeof startS3Server>>;
let h: Harness;

beforeAll(async () => {
  [s3, h] = await Promise.all([startS3Server(), startHarness()]);
});
afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await s3?.stop();
});

async function settingsPage(): Promise<Page> {
  const page = await h.signedInPage("/settings");
  await page.getByRole("region", { name: "Off-site backups" }).waitFor();
  return page;
}

test(
  "make the key, add an S3 target, test it, upload now, drill it; the Dashboard shows the copy",
  async () => {
    const page = await settingsPage();
    const card = page.getByRole("region", { name: "Off-site backups" });
    await card.getByText("No off-site target yet").waitFor();

    await card.getByRole("button", { name: "Make the key" }).click();
    const shown = card.getByLabel("Off-site key", { exact: true });
    const key = await shown.inputValue();
    expect(key).toMatch(/^pbxk1-[A-Za-z0-9_-]{43}$/);
    const download = page.waitForEvent("download");
    await card.getByRole("button", { name: "Download key file" }).click();
    expect((await download).suggestedFilename()).toMatch(/^pbx-console-offsite-key-[0-9a-f]{16}\.txt$/);
    await card.getByRole("button", { name: "I have stored it" }).click();
    await shown.waitFor({ state: "detached" });
    const { keyId } = await h.apiJson<OffsiteKeyView>("GET", "/api/backups/key");
    await card.getByText(keyId as string, { exact: true }).waitFor();

    // The dialog, by the keyboard from its button: a bad endpoint is refused in the form, nothing is stored.
    await card.getByRole("button", { name: "Add Target" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Add Backup Target" });
    await dialog.getByLabel("Name", { exact: true }).fill("Bucket off-site");
    await dialog.getByLabel("Endpoint", { exact: true }).fill("ftp://files.example.com");
    await dialog.getByLabel("Bucket", { exact: true }).fill(s3.bucket);
    await dialog.getByLabel("Access key ID", { exact: true }).fill(S3_ACCESS_KEY_ID);
    await dialog.getByLabel("Secret access key", { exact: true }).fill(S3_SECRET);
    await dialog.getByRole("button", { name: "Add Target" }).click();
    await dialog.getByText(/Use an http:\/\/ or https:\/\/ URL/).waitFor();
    expect(await h.apiJson<BackupTarget[]>("GET", "/api/backups/targets")).toEqual([]);
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });
    await dialog.getByLabel("Endpoint", { exact: true }).fill(s3.endpoint);
    await dialog.getByRole("button", { name: "Add Target" }).click();
    await dialog.waitFor({ state: "hidden" });

    const row = card.getByRole("list", { name: "Backup targets" }).getByRole("listitem", { name: "Bucket off-site" });
    await row.getByText("No copy yet").waitFor();
    await row.getByRole("button", { name: "Test Bucket off-site" }).click();
    await row.getByRole("status").filter({ hasText: "Connection works" }).waitFor();
    await row.getByRole("button", { name: "Upload now to Bucket off-site" }).click();
    await row.getByText("Up to date", { exact: true }).waitFor();
    const keys = await s3.keys("pbx-console/");
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^pbx-console\/pbx-console-\d{8}T\d{6}Z\.db\.enc$/);
    expect(Buffer.from((await s3.bytes(keys[0] as string)).subarray(0, 8)).toString("latin1")).toBe("PBXCOFFS");

    await row.getByRole("button", { name: "Restore drill of Bucket off-site" }).click();
    await row.getByRole("status", { name: "Last drill of Bucket off-site" }).filter({ hasText: "passed" }).waitFor();
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });
    // The secret is nowhere on the page, nor is the key any more.
    const html = await page.content();
    expect(html).not.toContain(key.slice(6));

    await page.goto(`${h.baseUrl}/`);
    const status = page.getByRole("region", { name: "Off-site backups status" });
    const item = status.getByRole("listitem", { name: "Off-site Bucket off-site" });
    await item.getByText(/last copy just now/).waitFor();
    await item.getByText(/Restore drill passed/).waitFor();
    expect(await item.getAttribute("data-state")).toBe("ok");
    expect({ findings: await seriousFindings(page) }).toEqual({ findings: [] });
  },
  TEST_TIMEOUT * 2,
);

// The System Recordings screen (/recordings) through chromium against the built binary, on a REAL FreePBX copy
// over REAL SSH (test/pbx-host, sox on the host): the sidebar entry, an upload with its name taken from the file,
// a file that is not audio refused under the file field, the player playing the stored WAV, a rename, and a
// delete. Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Recording } from "../../src/shared/recordings";
import { toneWav } from "../helpers/wav";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { type Harness, startHarness } from "./harness";
import { toasts } from "./locators";

// Each read and upload is an SSH round trip.
setDefaultTimeout(60_000);
const SLOW = { timeout: 20_000 };

let pbx: PbxHost;
let h: Harness;

beforeAll(async () => {
  pbx = await startPbxHost();
  await pbx.query("DELETE FROM recordings");
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
  await h.signedInPage("/");
  await h.closePages();
}, 60_000);
afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
});

const card = (page: Page, name: string) =>
  page.getByRole("list", { name: "Recordings" }).getByRole("listitem").filter({ hasText: name });

async function openUpload(page: Page) {
  await page.getByRole("button", { name: "Upload Recording" }).click();
  const dialog = page.getByRole("dialog", { name: "Upload Recording" });
  await dialog.waitFor();
  return dialog;
}

test("the sidebar leads to the screen; no recordings: the empty state", async () => {
  const page = await h.signedInPage("/");
  await page.getByRole("link", { name: "System Recordings", exact: true }).first().click();
  await page.getByRole("heading", { level: 1, name: "System Recordings" }).waitFor();
  await page.getByText("No Recordings").waitFor(SLOW);
});

test("a file that is not audio is refused under the file field, and nothing is stored", async () => {
  const page = await h.signedInPage("/recordings");
  const dialog = await openUpload(page);
  await dialog.getByLabel("Audio file (WAV or MP3)").setInputFiles({
    name: "notes.wav",
    mimeType: "audio/wav",
    buffer: Buffer.from("these are notes, not a sound"),
  });
  // The name comes from the file's.
  expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("notes");
  await dialog.getByRole("button", { name: "Upload" }).click();
  await dialog.getByText("The file is not WAV or MP3 audio").waitFor(SLOW);
  expect(await pbx.query("SELECT id FROM recordings")).toEqual([]);
});

test("an upload shows its card with a player that plays the stored WAV", async () => {
  const page = await h.signedInPage("/recordings");
  const dialog = await openUpload(page);
  await dialog.getByLabel("Audio file (WAV or MP3)").setInputFiles({
    name: "Main Greeting.wav",
    mimeType: "audio/wav",
    buffer: Buffer.from(toneWav({ rate: 16_000, channels: 1, seconds: 1 })),
  });
  expect(await dialog.getByLabel("Name", { exact: true }).inputValue()).toBe("Main-Greeting");
  await dialog.getByLabel("Description", { exact: true }).fill("Office hours");
  await dialog.getByRole("button", { name: "Upload" }).click();
  await toasts(page).getByText("Recording uploaded", { exact: true }).waitFor(SLOW);
  await dialog.waitFor({ state: "hidden" });
  const item = card(page, "Main-Greeting");
  await item.getByText("custom/Main-Greeting").waitFor();
  await item.getByText("Office hours").waitFor();
  // The browser loads the WAV from the console and reads its length (1 s).
  const duration = await item.locator("audio").evaluate(
    (audio: HTMLAudioElement) =>
      new Promise<number>((resolve, reject) => {
        audio.addEventListener("loadedmetadata", () => resolve(audio.duration), { once: true });
        audio.addEventListener("error", () => reject(new Error(`audio error ${audio.error?.code}`)), { once: true });
        audio.load();
      }),
  );
  expect(duration).toBeGreaterThan(0.9);
  expect(duration).toBeLessThan(1.1);
});

test("rename from the card, then delete it", async () => {
  const page = await h.signedInPage("/recordings");
  const item = card(page, "Main-Greeting");
  await item.getByRole("button", { name: "Edit recording Main-Greeting" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Recording" });
  await edit.getByLabel("Name", { exact: true }).fill("Opening");
  await edit.getByRole("button", { name: "Save Changes" }).click();
  await toasts(page).getByText("Recording saved", { exact: true }).waitFor(SLOW);
  await card(page, "Opening").waitFor();
  const [listed] = await h.apiJson<Recording[]>("GET", "/api/recordings");
  expect(listed).toMatchObject({ name: "Opening", files: ["custom/Main-Greeting"] });

  await card(page, "Opening").getByRole("button", { name: "Delete recording Opening" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete recording Opening?" });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await toasts(page).getByText("Recording deleted", { exact: true }).waitFor(SLOW);
  await page.getByText("No Recordings").waitFor(SLOW);
  expect(await pbx.query("SELECT id FROM recordings")).toEqual([]);
});

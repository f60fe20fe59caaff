// The Voicemail screen (/voicemail) through chromium against the built binary, on a REAL FreePBX copy (test/pbx-host):
// its Asterisk 22's app_voicemail over the manager interface and its spool over real SSH. Messages are put in the
// spool as app_voicemail leaves them. The sidebar entry, the mailbox picker, the messages by folder with the usage
// against the limit, a player that plays the message, Download, Move to Old, Delete with its confirmation, a
// change made elsewhere shown live, a greeting uploaded and played, a viewer held back until listening is allowed,
// and the manager interface gone (503: the screen says why). Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { voicemailDate } from "../fakes/ami";
import { toneWav, wavFormat } from "../helpers/wav";
import { type PbxHost, startPbxHost, stockVoicemailConf } from "../pbx-host/pbx-host";
import { type Harness, startHarness } from "./harness";
import { toasts } from "./locators";

setDefaultTimeout(60_000);
const SLOW = { timeout: 20_000 };
const VIEWER = { username: "watcher", password: "viewer password 12" };
const AT = 1796602901;
const NEW_ID = `${AT}-00000005`;
const OLD_ID = `${AT - 3600}-00000004`;

let pbx: PbxHost;
let h: Harness;
let box: string;

function putMessage(folder: string, n: number, o: { id: string; at: number; callerId: string; seconds: number }) {
  const dir = join(box, folder);
  mkdirSync(dir, { recursive: true });
  const name = `msg${String(n).padStart(4, "0")}`;
  const txt = [
    "[message]",
    "origmailbox=2901",
    "context=from-internal",
    "exten=2901",
    "callerchan=PJSIP/2902-00000001",
    `callerid=${o.callerId}`,
    `origdate=${voicemailDate(o.at * 1000)}`,
    `origtime=${o.at}`,
    `msg_id=${o.id}`,
    "flag=",
    `duration=${o.seconds}`,
    "",
  ].join("\n");
  writeFileSync(join(dir, `${name}.txt`), txt);
  writeFileSync(join(dir, `${name}.wav`), toneWav({ rate: 8000, channels: 1, seconds: o.seconds }));
}

const messageFiles = () =>
  existsSync(box) ? (readdirSync(box, { recursive: true }) as string[]).filter((f) => /msg\d{4}/.test(f)).sort() : [];

beforeAll(async () => {
  pbx = await startPbxHost();
  const rows = await pbx.query(
    "SELECT keyword, value FROM freepbx_settings WHERE keyword IN ('AMPMGRUSER', 'AMPMGRPASS', 'ASTMANAGERPORT', 'ASTSPOOLDIR')",
  );
  const setting = (k: string) => String(rows.find((r) => r.keyword === k)?.value ?? "");
  box = join(setting("ASTSPOOLDIR"), "voicemail", "default", "2901");
  pbx.setVoicemailConf(`${stockVoicemailConf().replace(/\n?$/, "\n")}[default]\n2901 => 4242,Alice,,,\n`);
  await pbx.cli("voicemail reload");
  // app_voicemail moves and deletes a message's audio through Asterisk's file formats: the host loads none.
  await pbx.cli("module load format_wav.so");
  putMessage("INBOX", 0, { id: NEW_ID, at: AT, callerId: '"Bob" <2902>', seconds: 2 });
  putMessage("Old", 0, { id: OLD_ID, at: AT - 3600, callerId: '"" <+15550100>', seconds: 1 });
  h = await startHarness({
    env: {
      PBX_SSH_HOST: pbx.ssh.host,
      PBX_SSH_PORT: String(pbx.ssh.port),
      PBX_SSH_USER: pbx.ssh.username,
      PBX_SSH_PRIVATE_KEY: pbx.ssh.privateKey,
      PBX_SSH_HOST_KEY: pbx.ssh.hostKeyFingerprint,
      PBX_FREEPBX_CONF: pbx.freepbxConfPath,
      AMI_HOST: "127.0.0.1",
      AMI_PORT: setting("ASTMANAGERPORT"),
      AMI_USERNAME: setting("AMPMGRUSER"),
      AMI_SECRET: setting("AMPMGRPASS"),
    },
  });
  await h.signedInPage("/");
  await h.apiJson("POST", "/api/extensions", { extension: "2901", name: "Alice", voicemail: true });
  await h.apiJson("POST", "/api/users", { ...VIEWER, role: "viewer" });
  await h.closePages();
}, 90_000);
afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(200);
  }
}

const message = (page: Page, id: string) => page.locator(`[data-testid="voicemail-message"][data-message-id="${id}"]`);
const folder = (page: Page, name: string) => page.getByRole("list", { name: `${name} messages` });

test("the sidebar leads to the screen: the mailbox, its messages by folder, and its usage against the limit", async () => {
  const page = await h.signedInPage("/");
  await page.getByRole("link", { name: "Voicemail", exact: true }).first().click();
  await page.getByRole("heading", { level: 1, name: "Voicemail" }).waitFor();
  const picker = page.getByLabel("Mailbox", { exact: true });
  await picker.waitFor(SLOW);
  expect(await picker.locator("option").allTextContents()).toEqual(["2901 Alice (1 new, 1 old)"]);
  await folder(page, "New (INBOX)").getByText("Bob (2902)").waitFor(SLOW);
  await folder(page, "Old").getByText("+15550100").waitFor();
  await page.getByText("New messages: 1 of 100 messages").waitFor();
  // The player fetches nothing until asked; then the browser reads the message's length from the PBX.
  const audio = message(page, NEW_ID).locator("audio");
  expect(await audio.getAttribute("preload")).toBe("none");
  const duration = await audio.evaluate(
    (el: HTMLAudioElement) =>
      new Promise<number>((resolve, reject) => {
        el.addEventListener("loadedmetadata", () => resolve(el.duration), { once: true });
        el.addEventListener("error", () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
        el.load();
      }),
  );
  expect(duration).toBeGreaterThan(1.9);
  expect(duration).toBeLessThan(2.1);
  const download = message(page, NEW_ID).getByRole("link", { name: /^Download message from Bob \(2902\)/ });
  expect(await download.getAttribute("href")).toBe(`/api/voicemail/2901/messages/${NEW_ID}/audio?download=1`);
  const saved = await h.api("GET", (await download.getAttribute("href")) as string);
  expect(saved.headers.get("content-disposition")).toStartWith("attachment;");
});

test("Move to Old moves the message on the PBX; Delete (confirmed) removes its files", async () => {
  const page = await h.signedInPage("/voicemail");
  await message(page, NEW_ID)
    .getByRole("button", { name: /^Move message from Bob .* to Old$/ })
    .click();
  await toasts(page).getByText("Message moved to Old", { exact: true }).waitFor(SLOW);
  await folder(page, "Old").getByText("Bob (2902)").waitFor(SLOW);
  expect(await folder(page, "New (INBOX)").count()).toBe(0);
  expect(messageFiles()).toEqual(["Old/msg0000.txt", "Old/msg0000.wav", "Old/msg0001.txt", "Old/msg0001.wav"]);

  await message(page, OLD_ID)
    .getByRole("button", { name: /^Delete message from \+15550100/ })
    .click();
  const confirm = page.getByRole("dialog", { name: "Delete the message from +15550100?" });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await toasts(page).getByText("Message deleted", { exact: true }).waitFor(SLOW);
  await message(page, OLD_ID).waitFor({ state: "detached", ...SLOW });
  expect(messageFiles()).toEqual(["Old/msg0000.txt", "Old/msg0000.wav"]);
  await page.getByText("New messages: 0 of 100 messages").waitFor();
});

test("a change made elsewhere shows at once (voicemail-updated on the socket)", async () => {
  const page = await h.signedInPage("/voicemail");
  await message(page, NEW_ID).waitFor(SLOW);
  await h.apiJson("DELETE", `/api/voicemail/2901/messages/${NEW_ID}`);
  await page.getByTestId("voicemail-empty").waitFor(SLOW);
  expect(messageFiles()).toEqual([]);
});

test("a greeting uploaded is converted for Asterisk, listed with its length and played", async () => {
  const page = await h.signedInPage("/voicemail");
  const row = page.locator('[data-testid="voicemail-greeting"][data-kind="unavail"]');
  await row.getByText("Not recorded").waitFor(SLOW);
  await page.getByTestId("greeting-file-unavail").setInputFiles({
    name: "away.wav",
    mimeType: "audio/wav",
    buffer: Buffer.from(toneWav({ rate: 44_100, channels: 2, seconds: 1.5 })),
  });
  await toasts(page).getByText("Unavailable greeting stored on the PBX", { exact: true }).waitFor(SLOW);
  await row.getByText("1.5 s").waitFor(SLOW);
  expect(wavFormat(readFileSync(join(box, "unavail.wav")))).toMatchObject({ channels: 1, rate: 8000, bits: 16 });
  const duration = await row.locator("audio").evaluate(
    (el: HTMLAudioElement) =>
      new Promise<number>((resolve, reject) => {
        el.addEventListener("loadedmetadata", () => resolve(el.duration), { once: true });
        el.addEventListener("error", () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
        el.load();
      }),
  );
  expect(duration).toBeCloseTo(1.5, 1);
  await row.getByRole("button", { name: "Delete Unavailable greeting" }).click();
  await page
    .getByRole("dialog", { name: "Delete the unavailable greeting?" })
    .getByRole("button", { name: "Delete" })
    .click();
  await row.getByText("Not recorded").waitFor(SLOW);
  expect(existsSync(join(box, "unavail.wav"))).toBe(false);
});

test("a viewer: a sentence instead of voicemail, no request refused; allowed to listen, the messages without changes", async () => {
  putMessage("INBOX", 0, { id: NEW_ID, at: AT, callerId: '"Bob" <2902>', seconds: 2 });
  const page = await h.newPage();
  await h.signInViaApi(page.context(), VIEWER);
  const refused: string[] = [];
  page.on("response", (res) => {
    if (res.status() === 403) refused.push(new URL(res.url()).pathname);
  });
  await page.goto(`${h.baseUrl}/voicemail`);
  await page.getByTestId("voicemail-not-allowed").waitFor(SLOW);
  expect(refused).toEqual([]);
  await h.apiJson("PUT", "/api/settings/audio", { viewersMayListen: true, recordingRetentionDays: null });
  // settings-updated refetches the setting: the screen follows without a reload.
  await message(page, NEW_ID).waitFor(SLOW);
  expect(await page.getByRole("button", { name: /Move|Delete|Upload|Replace/ }).count()).toBe(0);
  await h.apiJson("PUT", "/api/settings/audio", { viewersMayListen: false, recordingRetentionDays: null });
  await page.getByTestId("voicemail-not-allowed").waitFor(SLOW);
});

test("the manager interface gone: the screen says why, and Retry reads the mailbox once it is back", async () => {
  const page = await h.signedInPage("/voicemail");
  await message(page, NEW_ID).waitFor(SLOW);
  await pbx.setAsteriskDown(true);
  try {
    await page.reload();
    await page.getByTestId("voicemail-counts-unknown").waitFor(SLOW);
    await page
      .getByTestId("voicemail-unavailable")
      .getByText(/The Asterisk manager interface is not connected/)
      .waitFor(SLOW);
  } finally {
    await pbx.setAsteriskDown(false);
  }
  await pbx.cli("module load format_wav.so");
  // The console reconnects with its back-off; then Retry reads the mailbox again.
  await until("the manager interface back", async () => {
    const status = await h.apiJson<{ connected: boolean }>("GET", "/api/pbx/status");
    return status.connected || undefined;
  });
  await page.getByTestId("voicemail-unavailable").getByRole("button", { name: "Retry" }).click();
  await message(page, NEW_ID).waitFor(SLOW);
  rmSync(box, { recursive: true, force: true });
});

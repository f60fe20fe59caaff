// A call's detail page (/call-history/$linkedid) through chromium against the built binary, reading a real
// MariaDB's `asteriskcdrdb` (`cdr` and FreePBX's `cel`, test/pbx-host) and the call's recording from the host's
// monitor directory over real SSH: a ring-group call with a blind transfer (legs, who answered, CEL events
// in order, the transfer, the recording played with seeking and downloaded), a 20-leg call whose lanes all
// come in the first paint, a viewer who sees the call but not its audio until an administrator allows it
// (on the Settings screen), an unknown call, and the database down. Tests run in order on one console.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import type { CallDetail } from "../../src/shared/calls";
import { toneWav } from "../helpers/wav";
import { cdrRow, localDateTime } from "../pbx-host/cdr-calls";
import { celRow, insertCelRows, putMonitorFile } from "../pbx-host/cel-events";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";
import { expectNamedControls, expectNoSidewaysScroll } from "./a11y";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness } from "./harness";
import { toasts } from "./locators";

const TIMEOUT = 40_000;
const VIEWER = { username: "listener", password: "viewer password 12" };

let pbx: PbxHost;
let h: Harness;

// The ring-group call, an hour ago (inside the history's default 7 days), in whole seconds as CDR has them.
const T = Math.floor(Date.now() / 1000) - 3600;
const RING = `${T}.100`;
const TRANSFER_LEG = `${T + 20}.105`;
const at = (s: number) => localDateTime(new Date((T + s) * 1000));
const p2 = (n: number) => String(n).padStart(2, "0");
const start = new Date(T * 1000);
const REC = `rg-600-5551234-${start.getFullYear()}${p2(start.getMonth() + 1)}${p2(start.getDate())}-${p2(start.getHours())}${p2(start.getMinutes())}${p2(start.getSeconds())}-${RING}.wav`;
const WAV = toneWav({ rate: 8000, channels: 1, seconds: 3 });
// The 20-leg call: a queue ringing 19 agents (each through its own Local channel), the last one answering.
const T20 = T - 600;
const BIG = `${T20}.200`;

/** The CEL rows of the ring-group call, in the order Asterisk writes them. */
function ringGroupCel() {
  const trunk = "PJSIP/acme-00000001";
  const base = { linkedid: RING, cid_num: "5551234", cid_name: "Pat Caller", cid_dnid: "5550100" };
  const ev = (s: number, eventtype: string, channame: string, uniqueid: string, more: Record<string, string> = {}) =>
    celRow({ ...base, eventtype, eventtime: at(s), channame, uniqueid, ...more });
  return [
    ev(0, "CHAN_START", trunk, RING, { context: "from-trunk", exten: "5550100" }),
    ev(0, "CHAN_START", "PJSIP/2901-00000002", `${T}.101`, { context: "from-internal", exten: "2901" }),
    ev(0, "CHAN_START", "PJSIP/2902-00000003", `${T}.102`, { context: "from-internal", exten: "2902" }),
    ev(8, "ANSWER", "PJSIP/2902-00000003", `${T}.102`, { appname: "AppDial" }),
    ev(8, "HANGUP", "PJSIP/2901-00000002", `${T}.101`, {
      extra: '{"hangupcause":26,"hangupsource":"","dialstatus":"CANCEL"}',
    }),
    ev(8, "BRIDGE_ENTER", trunk, RING, {
      extra: '{"bridge_id":"b1","bridge_technology":"simple_bridge"}',
      peer: "PJSIP/2902-00000003",
    }),
    ev(8, "BRIDGE_ENTER", "PJSIP/2902-00000003", `${T}.102`, {
      extra: '{"bridge_id":"b1","bridge_technology":"simple_bridge"}',
      peer: trunk,
    }),
    ev(20, "BLINDTRANSFER", "PJSIP/2902-00000003", `${T}.102`, {
      cid_num: "2902",
      extra: `{"extension":"2903","context":"from-internal","bridge_id":"b1","transferee_channel_name":"${trunk}","transferee_channel_uniqueid":"${RING}"}`,
    }),
    ev(20, "HANGUP", "PJSIP/2902-00000003", `${T}.102`, {
      extra: '{"hangupcause":16,"hangupsource":"PJSIP/2902-00000003","dialstatus":""}',
    }),
    ev(20, "CHAN_START", "PJSIP/2903-00000004", `${T}.106`, { context: "from-internal", exten: "2903" }),
    ev(25, "ANSWER", "PJSIP/2903-00000004", `${T}.106`),
    ev(45, "HANGUP", "PJSIP/2903-00000004", `${T}.106`, {
      extra: '{"hangupcause":16,"hangupsource":"PJSIP/2903-00000004","dialstatus":""}',
    }),
    ev(45, "HANGUP", trunk, RING, {
      extra: '{"hangupcause":16,"hangupsource":"PJSIP/2903-00000004","dialstatus":"ANSWER"}',
    }),
    ev(45, "LINKEDID_END", trunk, RING),
  ];
}

const CEL_TYPES_IN_ORDER = ringGroupCel().map((r) => r.eventtype);

beforeAll(async () => {
  pbx = await startPbxHost();
  const caller = {
    src: "5551234",
    cnum: "5551234",
    cnam: "Pat Caller",
    clid: '"Pat Caller" <5551234>',
    did: "5550100",
  };
  const trunk = "PJSIP/acme-00000001";
  await pbx.cdr.insert([
    // The ring group: one row per member on the caller's channel (same uniqueid), then the transferred leg.
    cdrRow({
      ...caller,
      calldate: at(0),
      dst: "600",
      dcontext: "ext-group",
      channel: trunk,
      dstchannel: "PJSIP/2901-00000002",
      lastapp: "Dial",
      lastdata: "PJSIP/2901&PJSIP/2902,20,tr",
      duration: 8,
      billsec: 0,
      disposition: "NO ANSWER",
      amaflags: 3,
      uniqueid: RING,
      linkedid: RING,
      sequence: 1,
    }),
    cdrRow({
      ...caller,
      calldate: at(0),
      dst: "600",
      dcontext: "ext-group",
      channel: trunk,
      dstchannel: "PJSIP/2902-00000003",
      lastapp: "Dial",
      lastdata: "PJSIP/2901&PJSIP/2902,20,tr",
      duration: 20,
      billsec: 12,
      disposition: "ANSWERED",
      amaflags: 3,
      uniqueid: RING,
      linkedid: RING,
      recordingfile: REC,
      sequence: 2,
    }),
    cdrRow({
      ...caller,
      calldate: at(20),
      dst: "2903",
      dcontext: "from-internal-xfer",
      channel: trunk,
      dstchannel: "PJSIP/2903-00000004",
      lastapp: "Dial",
      lastdata: "PJSIP/2903,,tr",
      duration: 25,
      billsec: 20,
      disposition: "ANSWERED",
      amaflags: 3,
      uniqueid: TRANSFER_LEG,
      linkedid: RING,
      recordingfile: REC,
      sequence: 3,
    }),
    // The queue: it answers the caller's trunk channel (uniqueid = linkedid), then rings 19 agents 2 s
    // apart, each through its own Local channel and uniqueid; the last one answers. 20 legs in all.
    cdrRow({
      ...caller,
      calldate: localDateTime(new Date(T20 * 1000)),
      dst: "400",
      dcontext: "ext-queues",
      channel: "PJSIP/acme-00000040",
      dstchannel: "Local/3001@from-queue-00000010;1",
      lastapp: "Queue",
      lastdata: "400,t,,,300,,,,,",
      duration: 70,
      billsec: 69,
      disposition: "ANSWERED",
      amaflags: 3,
      uniqueid: BIG,
      linkedid: BIG,
      sequence: 9,
    }),
    ...Array.from({ length: 19 }, (_, i) => {
      const agent = String(3001 + i);
      const last = i === 18;
      return cdrRow({
        ...caller,
        calldate: localDateTime(new Date((T20 + 1 + i * 2) * 1000)),
        dst: agent,
        dcontext: "from-queue",
        channel: `Local/${agent}@from-queue-${(0x10 + i).toString(16).padStart(8, "0")};2`,
        dstchannel: `PJSIP/${agent}-${(0x30 + i).toString(16).padStart(8, "0")}`,
        lastapp: "Dial",
        lastdata: `PJSIP/${agent},,tr`,
        duration: last ? 30 : 2,
        billsec: last ? 25 : 0,
        disposition: last ? "ANSWERED" : "NO ANSWER",
        amaflags: 3,
        uniqueid: `${T20 + 1 + i * 2}.${300 + i}`,
        linkedid: BIG,
        sequence: 10 + i,
      });
    }),
  ]);
  await insertCelRows(pbx.cdr.query, ringGroupCel());
  await putMonitorFile(pbx, start, REC, WAV);
  h = await startHarness({
    env: {
      CDR_DATABASE_URL: pbx.cdr.url,
      PBX_SSH_HOST: pbx.ssh.host,
      PBX_SSH_PORT: String(pbx.ssh.port),
      PBX_SSH_USER: pbx.ssh.username,
      PBX_SSH_PRIVATE_KEY: pbx.ssh.privateKey,
      PBX_SSH_HOST_KEY: pbx.ssh.hostKeyFingerprint,
      PBX_FREEPBX_CONF: pbx.freepbxConfPath,
    },
  });
  await h.createAdminViaApi();
  await h.apiJson("POST", "/api/users", { ...VIEWER, role: "viewer" });
}, 90_000);

afterEach(() => h?.closePages());

afterAll(async () => {
  await h?.stop();
  await pbx?.stop();
}, 30_000);

const lanes = (page: Page) => page.getByTestId("call-lane");
const eventTypes = (page: Page, source: string) =>
  page
    .locator(`[data-testid="call-event"][data-source="${source}"]`)
    .evaluateAll((els) => els.map((el) => el.getAttribute("data-type") ?? ""));

async function detailOf(id: string): Promise<CallDetail> {
  return h.apiJson<CallDetail>("GET", `/api/calls/${id}`);
}

/** The call history, then the call's link, by keyboard: focused and opened with Enter. */
async function openFromHistory(page: Page, id: string) {
  await page.getByRole("heading", { level: 1, name: "Call History", exact: true }).waitFor();
  const link = page.locator(`[data-call-id="${id}"]`).getByRole("link");
  await link.focus();
  await page.keyboard.press("Enter");
  await page.waitForURL(`**/call-history/${id}`);
  await page.getByTestId("call-detail").waitFor();
}

describe("a ring-group call with a blind transfer", () => {
  test(
    "Call History links to the call: its legs, who answered, the CEL events in order and the transfer",
    async () => {
      const api = await detailOf(RING);
      expect(api.legs.length).toBe(3);
      expect(api.eventSource).toBe("cel");
      const page = await h.signedInPage("/call-history");
      await openFromHistory(page, RING);
      await page.getByRole("heading", { level: 1, name: "Pat Caller (5551234) → 600", exact: true }).waitFor();

      expect(await lanes(page).count()).toBe(3);
      expect(await lanes(page).evaluateAll((els) => els.map((el) => el.getAttribute("data-disposition")))).toEqual(
        api.legs.map((l) => l.disposition),
      );
      // Each leg's bar: the unanswered one only rang; the answered ones have their answered part.
      expect(await lanes(page).nth(0).locator('[data-part="answered"]').count()).toBe(0);
      expect(await lanes(page).nth(1).locator('[data-part="answered"]').count()).toBe(1);
      expect(api.answeredBy).not.toBeNull();
      await page
        .getByTestId("call-answered-by")
        .getByText(api.answeredBy ?? "", { exact: true })
        .waitFor();
      await page.getByTestId("call-disposition").getByText("Answered", { exact: true }).waitFor();

      // The CEL events in the order Asterisk wrote them (same-second events keep the table's order).
      expect(await eventTypes(page, "cel")).toEqual(CEL_TYPES_IN_ORDER);
      const offsets = await page
        .getByTestId("call-event-offset")
        .evaluateAll((els) => els.map((el) => el.textContent ?? ""));
      expect(offsets[0]).toBe("+0.0 s");
      expect(offsets).toContain("+20.0 s");
      expect(offsets.at(-1)).toBe("+45.0 s");
      // Every event is a mark on the axis too.
      expect(await page.getByTestId("call-mark").count()).toBe(await page.getByTestId("call-event").count());

      const transfer = page.getByTestId("call-transfer");
      expect(await transfer.count()).toBe(api.transfers.length);
      expect(api.transfers[0]?.kind).toBe("blind");
      expect(await transfer.first().getAttribute("data-kind")).toBe("blind");
      await transfer.first().getByText("2903", { exact: true }).waitFor();
      await transfer.first().getByText("+20.0 s", { exact: true }).waitFor();

      expect(await seriousFindings(page)).toEqual([]);
      await expectNamedControls(page, "Call detail");
      // Back to the history.
      await page.getByRole("link", { name: "Call History", exact: true }).last().click();
      await page.getByRole("heading", { level: 1, name: "Call History", exact: true }).waitFor();
    },
    TIMEOUT,
  );

  test(
    "the recording plays in the browser, seeks with range requests, and Download saves the file",
    async () => {
      const api = await detailOf(RING);
      const recording = api.recording;
      if (!recording) throw new Error(`no recording in the detail: ${JSON.stringify(api.problems)}`);
      const ranged: number[] = [];
      const page = await h.signedInPage(`/call-history/${RING}`, {
        before: async (p) =>
          p.on("response", (res) => {
            if (new URL(res.url()).pathname === new URL(recording.url, h.baseUrl).pathname) ranged.push(res.status());
          }),
      });
      const player = page.getByTestId("call-recording").locator("audio");
      await player.waitFor();
      expect(await player.getAttribute("preload")).toBe("metadata");
      // The browser read the header: the length is known (3 s of tone).
      await page.waitForFunction(() => {
        const a = document.querySelector<HTMLAudioElement>('[data-testid="call-recording"] audio');
        return a !== null && Number.isFinite(a.duration) && a.duration > 0;
      });
      expect(await player.evaluate((a: HTMLAudioElement) => Math.round(a.duration))).toBe(3);
      // A seek lands where asked: the server answers the player's range requests with 206.
      await player.evaluate(
        (a: HTMLAudioElement) =>
          new Promise<void>((resolve) => {
            a.addEventListener("seeked", () => resolve(), { once: true });
            a.currentTime = 2.5;
          }),
      );
      expect(await player.evaluate((a: HTMLAudioElement) => a.currentTime)).toBeCloseTo(2.5, 1);
      expect(ranged).toContain(206);

      const link = page.getByRole("link", { name: /^Download / });
      expect(await link.getAttribute("href")).toBe(
        `${recording.url}${recording.url.includes("?") ? "&" : "?"}download=1`,
      );
      const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
      expect(new Uint8Array(readFileSync(await download.path()))).toEqual(WAV);
    },
    TIMEOUT,
  );

  test(
    "at 375 px wide the call does not scroll sideways",
    async () => {
      const page = await h.signedInPage(`/call-history/${RING}`, { viewport: { width: 375, height: 800 } });
      await page.getByTestId("call-detail").waitFor();
      await expectNoSidewaysScroll(page, "Call detail");
    },
    TIMEOUT,
  );
});

describe("a call of 20 legs", () => {
  test(
    "shows 20 lanes, every one in the first paint of the page",
    async () => {
      const api = await detailOf(BIG);
      expect(api.legs.length).toBe(20);
      const page = await h.signedInPage("/call-history");
      await page.locator(`[data-call-id="${BIG}"]`).getByText("20 legs", { exact: true }).waitFor();
      // What the page holds the first time the call's detail is in the DOM (a MutationObserver runs after
      // each commit, before the browser paints).
      await page.evaluate(() => {
        const w = window as unknown as { firstLanes: number | null };
        w.firstLanes = null;
        const observer = new MutationObserver(() => {
          const root = document.querySelector('[data-testid="call-detail"]');
          if (!root) return;
          w.firstLanes = root.querySelectorAll('[data-testid="call-lane"]').length;
          observer.disconnect();
        });
        observer.observe(document.body, { childList: true, subtree: true });
      });
      await openFromHistory(page, BIG);
      expect(await page.evaluate(() => (window as unknown as { firstLanes: number | null }).firstLanes)).toBe(20);
      expect(await lanes(page).count()).toBe(20);
      // The queue's answer of the caller, and the one agent who took the call.
      expect(await page.getByTestId("call-lane").locator('[data-part="answered"]').count()).toBe(2);
      await page.getByTestId("call-leg-count").getByText("20", { exact: true }).waitFor();
    },
    TIMEOUT,
  );
});

describe("roles", () => {
  test("a viewer sees the call but not its audio, until an administrator allows viewers to listen on Settings", async () => {
    const audioRequests: string[] = [];
    const viewer = await h.newPage();
    await h.signInViaApi(viewer.context(), VIEWER);
    const recordingUrl = (await detailOf(RING)).recording?.url ?? "";
    viewer.on("request", (req) => {
      if (new URL(req.url()).pathname === recordingUrl) audioRequests.push(req.url());
    });
    await viewer.goto(`${h.baseUrl}/call-history/${RING}`);
    await viewer.getByTestId("call-detail").waitFor();
    expect(await lanes(viewer).count()).toBe(3);
    await viewer.getByText("Recordings and voicemail are for operators and administrators", { exact: true }).waitFor();
    expect(await viewer.locator("audio").count()).toBe(0);
    expect(await viewer.getByRole("link", { name: /^Download / }).count()).toBe(0);
    expect(audioRequests).toEqual([]);

    // The administrator allows it on the Settings screen, with a retention; a bad number is refused first.
    const admin = await h.signedInPage("/settings");
    const card = admin.getByRole("region", { name: "Recordings and voicemail" });
    await card.getByRole("button", { name: "Save Audio Settings" }).waitFor();
    const retention = card.getByLabel("Delete recordings older than N days");
    await retention.fill("0");
    await card.getByRole("button", { name: "Save Audio Settings" }).click();
    await card.getByText("Retention must be from 1 to 3650 days").waitFor();
    await retention.fill("30");
    await card.getByLabel("Viewers may listen to recordings and voicemail").click();
    await card.getByRole("button", { name: "Save Audio Settings" }).click();
    await toasts(admin).getByText("Audio settings saved").first().waitFor();
    expect(await h.apiJson("GET", "/api/settings/audio")).toEqual({
      viewersMayListen: true,
      recordingRetentionDays: 30,
    });

    // The viewer's open page follows (settings-updated over the sync socket): the player, which plays.
    await viewer.getByTestId("call-recording").locator("audio").waitFor({ timeout: 15_000 });
    await viewer.waitForFunction(() => {
      const a = document.querySelector<HTMLAudioElement>('[data-testid="call-recording"] audio');
      return a !== null && Number.isFinite(a.duration) && a.duration > 0;
    });
    expect(await viewer.getByText("Recordings and voicemail are for operators and administrators").count()).toBe(0);

    // Emptying the retention keeps recordings again.
    await retention.fill("");
    await card.getByRole("button", { name: "Save Audio Settings" }).click();
    await toasts(admin)
      .getByText(/recordings are kept$/)
      .first()
      .waitFor();
    expect(await h.apiJson("GET", "/api/settings/audio")).toEqual({
      viewersMayListen: true,
      recordingRetentionDays: null,
    });
  }, 60_000);
});

describe("not found and unavailable", () => {
  test(
    "a call id the records do not have shows the not-found state",
    async () => {
      const page = await h.signedInPage(`/call-history/${T - 5000}.999`);
      await page.getByText("This call is not in the call records", { exact: true }).waitFor();
      await page.getByRole("link", { name: "Open the call history" }).waitFor();
      expect(await page.getByTestId("call-detail").count()).toBe(0);
    },
    TIMEOUT,
  );

  test("with the call records database down the page says why, and Retry brings the call back", async () => {
    await pbx.setMysqlDown(true);
    try {
      const page = await h.signedInPage(`/call-history/${RING}`);
      const state = page.getByTestId("call-unavailable");
      await state.getByText("Call records unavailable", { exact: true }).waitFor({ timeout: 20_000 });
      const res = await h.api("GET", `/api/calls/${RING}`);
      expect(res.status).toBe(503);
      const { error } = (await res.json()) as { error: { message: string } };
      await state.getByText(error.message, { exact: true }).waitFor();
      await pbx.setMysqlDown(false);
      await state.getByRole("button", { name: "Retry" }).click();
      await page.getByTestId("call-detail").waitFor({ timeout: 20_000 });
    } finally {
      await pbx.setMysqlDown(false);
    }
  }, 60_000);
});

// VPS Management (/vps) through chromium against the built binary: first with no hosting API (this host's own
// numbers, no controls), then with the Hostinger fake. Tests run in order and share one server.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { VpsStatus } from "../../src/shared/vps";
import type { FakeServer } from "../fakes/common";
import {
  HOSTINGER_DEFAULT_TOKEN,
  HOSTINGER_METRIC_UNITS,
  type HostingerMetrics,
  type HostingerState,
  type HostingerVm,
  startFakeHostinger,
} from "../fakes/hostinger";
import { type Harness, startHarness, TEST_TIMEOUT, waitEnabled } from "./harness";
import { toastListItems } from "./locators";

const VM_ID = 17923;
const MB = 1024 * 1024;

/** One sample per series, chosen to hit each colour band: CPU 85 %, memory 65 %, disk 30 %. */
function seededMetrics(): HostingerMetrics {
  const now = Math.floor(Date.now() / 1000);
  const t1 = String(now - 600);
  const t2 = String(now - 300);
  const series = (key: keyof typeof HOSTINGER_METRIC_UNITS, usage: Record<string, number>) => ({
    unit: HOSTINGER_METRIC_UNITS[key],
    usage,
  });
  return {
    cpu_usage: series("cpu_usage", { [t1]: 12, [t2]: 85 }),
    ram_usage: series("ram_usage", { [t2]: 0.65 * 16384 * MB }),
    disk_space: series("disk_space", { [t2]: 0.3 * 204800 * MB }),
    // bytes per interval over 300 s: 1.5 MB/s in, 0.25 MB/s out
    incoming_traffic: series("incoming_traffic", { [t1]: 0, [t2]: 300 * 1.5 * MB }),
    outgoing_traffic: series("outgoing_traffic", { [t1]: 0, [t2]: 300 * 0.25 * MB }),
    uptime: series("uptime", { [t2]: (5 * 3600 + 7 * 60 + 30) * 1000 }),
  };
}

let c: Harness;
let hostinger: FakeServer<HostingerState>;

beforeAll(async () => {
  hostinger = await startFakeHostinger();
  hostinger.state.metrics[VM_ID] = seededMetrics();
  c = await startHarness({ env: { PBX_HOSTINGER_URL: hostinger.baseUrl }, viewport: { width: 1280, height: 900 } });
}, 60_000);

afterEach(() => c?.closePages());

afterAll(async () => {
  await c?.stop();
  await hostinger?.stop();
}, 30_000);

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const controls = (page: Page) => {
  const r = region(page, "Server Controls");
  return {
    start: r.getByRole("button", { name: "Start Server", exact: true }),
    restart: r.getByRole("button", { name: "Restart Server", exact: true }),
    stop: r.getByRole("button", { name: "Stop Server", exact: true }),
  };
};
const disabled = async (page: Page) => {
  const b = controls(page);
  return [await b.start.isDisabled(), await b.restart.isDisabled(), await b.stop.isDisabled()];
};

async function vpsPage() {
  const page = await c.signedInPage("/vps");
  await page.getByRole("heading", { level: 1, name: "VPS Management" }).waitFor();
  await page.getByTestId("vps-status").waitFor();
  return page;
}

const controlCalls = () => hostinger.calls.filter((call) => call.method === "POST");

describe("VPS Management without a hosting API", () => {
  test(
    "numbers come from this host and the controls say why they are unavailable",
    async () => {
      const page = await vpsPage();
      const status = (await (await c.api("GET", "/api/vps/status")).json()) as VpsStatus;
      expect(status.source).toBe("host");
      const info = region(page, "Server Information");
      await info.getByText("Numbers from this host (/proc)").waitFor();
      expect(await page.getByTestId("vps-status").textContent()).toBe(status.status ?? "Unknown");
      expect(await page.getByTestId("vps-hostname").textContent()).toBe(status.hostname ?? "N/A");
      expect(await page.getByTestId("vps-uptime").textContent()).toMatch(/^\d+h \d+m$/);
      await region(page, "Resource Usage").getByText("From this host (/proc)").waitFor();

      expect(await disabled(page)).toEqual([true, true, true]);
      const why = page.getByTestId("vps-controls-unavailable");
      // The server's own explanation, and the way to fix it.
      expect(status.message).toBeTruthy();
      await why.getByText(status.message ?? "?", { exact: false }).waitFor();
      await why.getByRole("link", { name: "Open API Settings" }).click();
      await page.getByRole("heading", { level: 1, name: "API Settings" }).waitFor();
      expect(controlCalls()).toHaveLength(0);
    },
    TEST_TIMEOUT,
  );
});

describe("VPS Management with the Hostinger API", () => {
  beforeAll(async () => {
    const res = await c.api("POST", "/api/credentials", {
      type: "hostinger",
      name: "Hostinger VPS API",
      apiKey: HOSTINGER_DEFAULT_TOKEN,
    });
    expect(res.status).toBe(200);
  });

  test(
    "status, IP, hostname, uptime and the metrics with their threshold colours",
    async () => {
      const page = await vpsPage();
      await region(page, "Server Information").getByText("Numbers from Hostinger API").waitFor();
      expect(await page.getByTestId("vps-status").textContent()).toBe("online");
      expect(await page.getByTestId("vps-ip").textContent()).toBe("203.0.113.10");
      expect(await page.getByTestId("vps-hostname").textContent()).toBe(`srv${VM_ID}.hstgr.cloud`);
      expect(await page.getByTestId("vps-uptime").textContent()).toBe("5h 7m");

      const usage = region(page, "Resource Usage");
      await usage.getByText("From Hostinger API").waitFor();
      const meter = (name: string) => usage.getByTestId(`usage-${name}`);
      expect(await meter("cpu").getAttribute("data-level")).toBe("destructive");
      await meter("cpu").getByText("85%").waitFor();
      expect(await meter("memory").getAttribute("data-level")).toBe("warning");
      await meter("memory").getByText("65%").waitFor();
      expect(await meter("disk").getAttribute("data-level")).toBe("normal");
      await meter("disk").getByText("30%").waitFor();
      expect(await usage.getByTestId("usage-network-in").textContent()).toBe("1.50 MB/s");
      expect(await usage.getByTestId("usage-network-out").textContent()).toBe("0.25 MB/s");
      expect(await usage.getByRole("progressbar", { name: "CPU usage" }).getAttribute("aria-valuenow")).toBe("85");
      expect(await page.getByTestId("vps-controls-unavailable").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "Start is disabled while running; Stop sends the command, everything is disabled while it is pending",
    async () => {
      const page = await vpsPage();
      await page.getByTestId("vps-status").getByText("online").waitFor();
      expect(await disabled(page)).toEqual([true, false, false]);

      hostinger.state.delayMs = 1500;
      try {
        await controls(page).stop.click();
        for (const button of Object.values(controls(page))) await waitEnabled(button, false);
        expect(await disabled(page)).toEqual([true, true, true]);
        await toastListItems(page).getByText("Command sent", { exact: true }).waitFor();
      } finally {
        hostinger.state.delayMs = 0;
      }
      await toastListItems(page).getByText("Server stop command has been initiated.", { exact: true }).waitFor();
      expect(controlCalls().map((call) => call.path)).toEqual([`/api/vps/v1/virtual-machines/${VM_ID}/stop`]);

      // The status is fetched again: the VM is stopped now.
      await page.getByTestId("vps-status").getByText("offline").waitFor();
      await waitEnabled(controls(page).start);
      expect(await disabled(page)).toEqual([false, true, true]);
    },
    TEST_TIMEOUT,
  );

  test(
    "a failed command: 'Error' / 'Failed to execute server control command.' and the provider's reason",
    async () => {
      const page = await vpsPage();
      await page.getByTestId("vps-status").getByText("offline").waitFor();
      hostinger.state.failNext = {
        status: 422,
        body: { message: "The virtual machine is locked", correlation_id: "x" },
        path: `/api/vps/v1/virtual-machines/${VM_ID}/start`,
      };
      await controls(page).start.click();
      await toastListItems(page).getByText("Error", { exact: true }).waitFor();
      await toastListItems(page).getByText("Failed to execute server control command.", { exact: true }).waitFor();
      await toastListItems(page)
        .getByText(/The virtual machine is locked/)
        .waitFor();
      // The toast shows as the command fails; the controls come back when the status has been read again.
      await waitEnabled(controls(page).start);
      expect(await disabled(page)).toEqual([false, true, true]);

      // Start again, for real this time.
      await controls(page).start.click();
      await toastListItems(page).getByText("Server start command has been initiated.", { exact: true }).waitFor();
      await page.getByTestId("vps-status").getByText("online").waitFor();
      expect(await disabled(page)).toEqual([true, false, false]);
    },
    TEST_TIMEOUT,
  );

  test(
    "Refresh fetches the status again, and it is polled every 10 s",
    async () => {
      // A fake clock (installed before the app starts its timers) stands in for the 10 s wait.
      const p = await c.signedInPage("/vps", { before: (page) => page.clock.install() });
      await p.getByTestId("vps-status").waitFor();
      const rename = (hostname: string) => {
        hostinger.state.vms[0] = { ...(hostinger.state.vms[0] as HostingerVm), hostname };
      };
      rename("refreshed.example.net");
      const refreshed = p.waitForResponse("**/api/vps/status");
      await p.getByRole("button", { name: "Refresh" }).click();
      await refreshed;
      await p.getByTestId("vps-hostname").getByText("refreshed.example.net").waitFor();

      rename("renamed.example.net");
      await p.waitForTimeout(500);
      expect(await p.getByTestId("vps-hostname").textContent()).toBe("refreshed.example.net");
      const polled = p.waitForResponse("**/api/vps/status");
      await p.clock.fastForward(10_000);
      await polled;
      await p.getByTestId("vps-hostname").getByText("renamed.example.net").waitFor();
    },
    TEST_TIMEOUT,
  );
});

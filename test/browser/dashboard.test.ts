// The dashboard (/) through chromium against the built binary: server cards and the counts (from
// GET /api/dashboard/summary, never the lists; ADR 0031).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { VpsStatus } from "../../src/shared/vps";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.createAdminViaApi();
});

afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const dashboard = (): Promise<Page> => h.adminPage();

const open = async (page: Page) => {
  await page.goto(`${h.baseUrl}/`);
  await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
};

const NOT_CONFIGURED: VpsStatus = {
  configured: false,
  source: "none",
  message: "No hosting provider API is configured. Add it under API Settings.",
  status: null,
  ipAddress: null,
  hostname: null,
  cpu: null,
  memory: null,
  disk: null,
  metrics: null,
};

const mockStatus = (page: Page, body: VpsStatus) =>
  page.route("**/api/vps/status", (route) =>
    route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(body) }),
  );

const card = (page: Page, name: string) => page.getByRole("group", { name, exact: true });
const USAGE_CARDS = ["CPU Usage", "Memory Usage", "Disk Usage"];

describe("server cards", () => {
  test(
    "without a metrics source they say Not configured with the server's message and no numbers",
    async () => {
      const page = await dashboard();
      await mockStatus(page, NOT_CONFIGURED);
      await open(page);
      const notice = page.getByTestId("vps-notice");
      await notice.getByText(NOT_CONFIGURED.message as string).waitFor();
      for (const name of USAGE_CARDS) {
        await card(page, name).getByText("Not configured").waitFor();
        expect(await card(page, name).getByRole("progressbar").count()).toBe(0);
      }
      await card(page, "Server Status").getByText("Not configured").waitFor();
      // No invented numbers anywhere in the server section.
      const server = page.getByRole("region", { name: "Server" });
      expect(await server.textContent()).not.toMatch(/\d\s*%/);
      expect(await page.getByRole("progressbar").count()).toBe(0);

      await notice.getByRole("link", { name: "Open API Settings" }).click();
      await page.getByRole("heading", { level: 1, name: "API Settings" }).waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "real numbers show with threshold colours, bars, status, IP and their source",
    async () => {
      const page = await dashboard();
      await mockStatus(page, {
        configured: true,
        source: "host",
        message: null,
        status: "online",
        ipAddress: "203.0.113.7",
        hostname: "pbx",
        cpu: 42,
        memory: 65.25,
        disk: 91,
        metrics: { cpu: 42, memory: 65.25, disk: 91, uptime: 3600, network: { in: 0.1, out: 0.2 } },
      });
      await open(page);
      const expectations = [
        ["CPU Usage", "42%", "normal"],
        ["Memory Usage", "65.3%", "warning"],
        ["Disk Usage", "91%", "destructive"],
      ] as const;
      for (const [name, text, level] of expectations) {
        const value = card(page, name).getByText(text, { exact: true });
        await value.waitFor();
        expect(await value.getAttribute("data-level")).toBe(level);
        expect(await card(page, name).getByRole("progressbar").count()).toBe(1);
        await card(page, name).getByText("from this host").waitFor();
      }
      await card(page, "Server Status").getByText("online").waitFor();
      await card(page, "Server Status").getByText("203.0.113.7").waitFor();
      expect(await page.getByTestId("vps-notice").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "a remark from the server (hosting API failed, host numbers shown) appears above the numbers",
    async () => {
      const page = await dashboard();
      await mockStatus(page, {
        configured: true,
        source: "host",
        message: "Hosting provider API: 401 Unauthorized",
        status: "online",
        ipAddress: "203.0.113.7",
        hostname: "pbx",
        cpu: 5,
        memory: 10,
        disk: 20,
        metrics: null,
      });
      await open(page);
      await card(page, "Disk Usage").getByText("20%", { exact: true }).waitFor();
      await page.getByTestId("vps-notice").getByText("Hosting provider API: 401 Unauthorized").waitFor();
      // (In the server cards: the live PBX cards below may say the manager interface is not configured.)
      expect(await page.getByRole("region", { name: "Server" }).getByText("Not configured").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "skeletons show while the status loads, then the server's own answer as it is",
    async () => {
      const real = await h.apiJson<VpsStatus>("GET", "/api/vps/status");
      const page = await dashboard();
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      await page.route("**/api/vps/status", async (route) => {
        await gate;
        await route.continue();
      });
      await open(page);
      await card(page, "CPU Usage").locator('[data-slot="skeleton"]').first().waitFor();
      release();
      await card(page, "CPU Usage").locator('[data-slot="skeleton"]').first().waitFor({ state: "detached" });
      if (!real.configured) {
        await card(page, "CPU Usage").getByText("Not configured").waitFor();
        await page
          .getByTestId("vps-notice")
          .getByText(real.message ?? "")
          .waitFor();
      } else {
        // Real numbers (this host's /proc, or the hosting API): bars, never "Not configured".
        await card(page, "CPU Usage").getByRole("progressbar").waitFor();
        expect(await page.getByRole("region", { name: "Server" }).getByText("Not configured").count()).toBe(0);
        if (real.source === "host") await card(page, "CPU Usage").getByText("from this host").waitFor();
        if (real.message) await page.getByTestId("vps-notice").getByText(real.message).waitFor();
      }
    },
    TEST_TIMEOUT,
  );
});

describe("counts", () => {
  const count = (page: Page, name: string) => card(page, name).getByTestId("count-value");

  test(
    "Active Calls says Unknown with the reason while AMI is not configured, a loading count shows '...'",
    async () => {
      const page = await dashboard();
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      await page.route("**/api/dashboard/summary", async (route) => {
        await gate;
        await route.continue();
      });
      await open(page);
      await card(page, "Active Calls").getByText("In progress").waitFor();
      const live = await h.apiJson<{ connected: boolean; reason: string }>("GET", "/api/pbx/status");
      expect(live.connected).toBe(false);
      await count(page, "Active Calls").getByText("Unknown", { exact: true }).waitFor();
      await card(page, "Active Calls").getByText(live.reason, { exact: true }).waitFor();
      // Never an invented registration figure either.
      await card(page, "Extensions").getByText("Live status unknown", { exact: true }).waitFor();
      for (const name of ["Extensions", "Trunks", "Inbound Routes", "PTT Groups", "AI Assistants"]) {
        await count(page, name).getByText("...", { exact: true }).waitFor();
      }
      release();
      await count(page, "Trunks").getByText("0", { exact: true }).waitFor();
      await card(page, "Extensions").getByText("Total configured").waitFor();
      await card(page, "Trunks").getByText("Active connections").waitFor();
      await card(page, "Inbound Routes").getByText("Call routes configured").waitFor();
      await card(page, "PTT Groups").getByText("Push-to-talk groups").waitFor();
      await card(page, "AI Assistants").getByText("AI voice modules").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "counts come from the summary and follow items created through the API over the sync socket, never the lists",
    async () => {
      const page = await dashboard();
      const LISTS = ["/api/extensions", "/api/trunks", "/api/inbound-routes", "/api/ptt-groups", "/api/ai/assistants"];
      const requested: string[] = [];
      page.on("request", (req) => {
        if (req.method() === "GET") requested.push(new URL(req.url()).pathname);
      });
      // The Extensions screen first: its list is in the cache (inactive) once the Dashboard shows.
      await page.goto(`${h.baseUrl}/extensions`);
      await page.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
      await page.getByRole("link", { name: "Dashboard", exact: true }).click();
      await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
      requested.length = 0;
      for (const name of ["Extensions", "Trunks", "Inbound Routes", "PTT Groups", "AI Assistants"]) {
        await count(page, name).getByText("0", { exact: true }).waitFor();
      }

      await h.apiJson("POST", "/api/extensions", { extension: "2001", name: "Ada" });
      await h.apiJson("POST", "/api/extensions", { extension: "2002", name: "Grace" });
      await h.apiJson("POST", "/api/trunks", { name: "carrier", type: "sip", host: "sip.example.com" });
      await h.apiJson("POST", "/api/inbound-routes", {
        description: "Main line",
        destination: "2001",
        destinationType: "extension",
      });
      await h.apiJson("POST", "/api/ptt-groups", { name: "Floor", extension: "2900", members: ["2001", "2002"] });

      // Far inside the 60 s poll: only the events can bring these, without a reload.
      const event = { timeout: 5000 };
      await count(page, "Extensions").getByText("2", { exact: true }).waitFor(event);
      await count(page, "Trunks").getByText("1", { exact: true }).waitFor(event);
      await count(page, "Inbound Routes").getByText("1", { exact: true }).waitFor(event);
      await count(page, "PTT Groups").getByText("1", { exact: true }).waitFor(event);
      expect(await count(page, "AI Assistants").textContent()).toBe("0");
      expect(await count(page, "Active Calls").textContent()).toBe("Unknown");
      expect(requested).toContain("/api/dashboard/summary");
      // The events made the cached Extensions list stale, but the Dashboard does not show it: not fetched.
      expect(requested.filter((path) => LISTS.includes(path))).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  test(
    "counts are fetched again whenever the dashboard is shown",
    async () => {
      const page = await dashboard();
      await page.routeWebSocket(/\/ws/, () => {});
      await open(page);
      await count(page, "Extensions").getByText("2", { exact: true }).waitFor();
      await page.getByRole("link", { name: "Trunks", exact: true }).first().click();
      await page.getByRole("heading", { level: 1, name: "Trunks" }).waitFor();
      await h.apiJson("POST", "/api/extensions", { extension: "2003", name: "Linus" });
      await page.getByRole("link", { name: "Dashboard", exact: true }).click();
      // The socket is cut off and the poll is 60 s: only the refetch on mount can bring the new number this fast.
      await count(page, "Extensions").getByText("3", { exact: true }).waitFor({ timeout: 3000 });
    },
    TEST_TIMEOUT,
  );
});

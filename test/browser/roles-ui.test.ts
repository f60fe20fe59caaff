// What each role sees, through chromium against the built binary. An administrator seeds
// one of everything through the API; a viewer then walks every screen of the sidebar and finds no control
// whose request the server would refuse, no 403 and no refused request; an operator finds the inventory
// controls but not the administrator's (credentials, API tokens, users).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { Role } from "../../src/shared/users";
import type { FakeServer } from "../fakes/common";
import { makeTelnyxPhoneNumber, startFakeTelnyx, TELNYX_DEFAULT_KEY, type TelnyxState } from "../fakes/telnyx";
import { type Harness, startHarness } from "./harness";
import { toastItems } from "./locators";

let c: Harness;
let telnyx: FakeServer<TelnyxState>;

const USERS: Record<Exclude<Role, "admin">, { username: string; password: string }> = {
  viewer: { username: "watcher", password: "viewer password 12" },
  operator: { username: "oper", password: "operator password 1" },
};
const NUMBER = "+15551000001";

beforeAll(async () => {
  telnyx = await startFakeTelnyx({ phoneNumbers: [makeTelnyxPhoneNumber(1, { phone_number: NUMBER })] });
  c = await startHarness({ env: { PBX_TELNYX_URL: telnyx.baseUrl }, viewport: { width: 1400, height: 1000 } });
  const seed = <T = unknown>(path: string, body: unknown) => c.apiJson<T>("POST", path, body);
  for (const [role, user] of Object.entries(USERS)) await seed("/api/users", { ...user, role });
  await seed("/api/credentials", { type: "telnyx", name: "Telnyx API", apiKey: TELNYX_DEFAULT_KEY });
  const alice = await seed<{ id: number }>("/api/extensions", { extension: "1001", name: "Alice" });
  await seed("/api/extensions", { extension: "1002", name: "Bob" });
  const trunk = await seed<{ id: number }>("/api/trunks", { name: "Carrier", type: "sip", host: "sip.example.com" });
  await seed("/api/inbound-routes", { description: "Main line", destination: "1001", destinationType: "extension" });
  await seed("/api/outbound-routes", { name: "UK", dialPatterns: ["+44XXXXXXXXXX"], trunkId: trunk.id });
  await seed("/api/ptt-groups", { name: "Floor", extension: "7001", members: ["1001", "1002"] });
  await seed("/api/ring-groups", { name: "Front desk", number: "600", members: ["1001", "1002"] });
  await seed("/api/queues", { name: "Support", number: "400", agents: ["1001", "1002"] });
  await seed("/api/ivrs", {
    name: "Main menu",
    options: [{ digits: "1", destination: { kind: "queue", target: "400" } }],
  });
  await seed("/api/announcements", { name: "Welcome", after: { kind: "extension", target: "1001" } });
  await seed("/api/test-calls", { name: "Echo", number: "*43", enabled: false });
  const hours = await seed<{ id: number }>("/api/time-groups", {
    name: "Office hours",
    weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
  });
  await seed("/api/time-conditions", {
    name: "Office",
    timeGroup: hours.id,
    match: { kind: "extension", target: "1001" },
  });
  await seed("/api/ai/assistants", {
    name: "Front desk",
    description: "Answers the main line",
    model: "gpt-4o-realtime-preview",
    systemPrompt: "You are the receptionist of Example Ltd.",
    voice: "nova",
    temperature: 60,
    extensionId: "1001",
  });
  await seed("/api/ai/routing-rules", {
    name: "Angry callers",
    description: "",
    enabled: true,
    priority: 10,
    conditions: '{"sentiment": "negative"}',
    action: "route_to_extension",
    actionParams: '{"extensionId": "1001"}',
  });
  const { token } = await seed<{ token: string }>("/api/ai/tokens", { name: "Bridge" });
  await c.apiJson(
    "POST",
    "/api/ai/transcripts",
    { callId: "rtc_1", phoneNumber: "+15555550101", transcript: "Caller: Hello?", sentiment: "neutral" },
    { Cookie: "", Authorization: `Bearer ${token}` },
  );
  const office = await seed<{ id: string }>("/api/telnyx/connections", { connectionName: "Office PBX" });
  await seed(`/api/extensions/${alice.id}/telnyx-credentials`, { connectionId: office.id });
}, 60_000);

afterEach(() => c?.closePages());

afterAll(async () => {
  await c?.stop();
  await telnyx?.stop();
}, 30_000);

const button = (scope: Page | Locator, name: string) => scope.getByRole("button", { name, exact: true });
const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });

interface Screen {
  /** The sidebar entry and the page's heading. */
  link: string;
  heading: string;
  /** What the seeded data (or, for a role that cannot use the screen, the notice) shows once loaded. */
  ready: (page: Page, role: Role) => Locator;
  /** The controls that send an operator's request: absent for a viewer, present for an operator. */
  writes: (page: Page) => Locator[];
  /** The viewer's sentence in place of what it cannot do, when the screen has one. */
  viewerNotice?: string;
  /** Steps after `ready` (e.g. opening a read-only dialog) before the controls are checked. */
  open?: (page: Page) => Promise<void>;
}

const notice = (page: Page) => page.getByTestId("role-notice");

const SCREENS: Screen[] = [
  {
    link: "Dashboard",
    heading: "Dashboard",
    ready: (p) => p.getByTestId("count-Extensions").getByText("2", { exact: true }),
    writes: () => [],
  },
  {
    link: "VPS Management",
    heading: "VPS Management",
    ready: (p, role) =>
      role === "viewer" ? region(p, "Server Controls").getByTestId("role-notice") : button(p, "Start Server"),
    writes: (p) => [button(p, "Start Server"), button(p, "Restart Server"), button(p, "Stop Server")],
    viewerNotice: "Your role (viewer) cannot start, restart or stop the server.",
  },
  {
    link: "Extensions",
    heading: "Extensions",
    ready: (p) => p.locator('[data-extension="1001"]').getByText("Alice"),
    writes: (p) => [
      button(p, "Add Extension"),
      // No "Push to Web Dialer": no web dialer is set up here, so a hint stands in its place (ADR 0039).
      button(p, "QR code for extension 1001"),
      button(p, "Delete extension 1001"),
    ],
  },
  {
    link: "Trunks",
    heading: "Trunks",
    ready: (p) => p.getByRole("list", { name: "Trunks" }).getByText("Carrier"),
    writes: (p) => [button(p, "Add Trunk"), button(p, "Delete trunk Carrier")],
  },
  {
    link: "Inbound Routes",
    heading: "Inbound Routes",
    ready: (p) => p.getByRole("list", { name: "Inbound routes" }).getByText("Main line"),
    writes: (p) => [button(p, "Add Inbound Route"), button(p, "Delete inbound route Main line")],
  },
  {
    link: "Outbound Routes",
    heading: "Outbound Routes",
    ready: (p) => p.getByRole("list", { name: "Outbound routes" }).getByText("UK", { exact: true }),
    writes: (p) => [button(p, "Add Outbound Route"), button(p, "Delete outbound route UK")],
  },
  {
    link: "Ring Groups",
    heading: "Ring Groups",
    ready: (p) => p.getByRole("list", { name: "Ring groups" }).getByText("Front desk"),
    writes: (p) => [
      button(p, "Add Ring Group"),
      button(p, "Edit ring group Front desk"),
      button(p, "Delete ring group Front desk"),
    ],
  },
  {
    link: "Queues",
    heading: "Queues",
    ready: (p) => p.getByRole("list", { name: "Queues" }).getByText("Support"),
    writes: (p) => [button(p, "Add Queue"), button(p, "Edit queue Support"), button(p, "Delete queue Support")],
  },
  {
    link: "IVRs",
    heading: "IVRs",
    ready: (p) => p.getByRole("list", { name: "IVRs" }).getByText("Main menu"),
    writes: (p) => [button(p, "Add IVR"), button(p, "Edit IVR Main menu"), button(p, "Delete IVR Main menu")],
  },
  {
    link: "Announcements",
    heading: "Announcements",
    ready: (p) => p.getByRole("list", { name: "Announcements" }).getByText("Welcome"),
    writes: (p) => [
      button(p, "Add Announcement"),
      button(p, "Edit announcement Welcome"),
      button(p, "Delete announcement Welcome"),
    ],
  },
  {
    link: "Time Conditions",
    heading: "Time Conditions",
    ready: (p) => p.getByRole("list", { name: "Time conditions" }).getByText("Office", { exact: true }),
    writes: (p) => [
      button(p, "Add Time Group"),
      button(p, "Edit time group Office hours"),
      button(p, "Delete time group Office hours"),
      button(p, "Add Time Condition"),
      button(p, "Edit time condition Office"),
      button(p, "Delete time condition Office"),
    ],
  },
  {
    link: "Call Routing",
    heading: "Call Routing",
    // Following a call stores nothing: every role may ask.
    ready: (p) => button(p, "Follow the call"),
    writes: () => [],
  },
  {
    link: "System Recordings",
    heading: "System Recordings",
    // The recordings live on the PBX, which this console has no way to: the screen says so.
    ready: (p) => p.getByText(/System recordings live on the PBX: configure the PBX host \(SSH\)/),
    writes: (p) => [button(p, "Upload Recording")],
  },
  {
    link: "PTT Groups",
    heading: "Push-to-Talk Groups",
    ready: (p) => p.getByRole("list", { name: "PTT groups" }).getByText("Floor"),
    writes: (p) => [button(p, "Add PTT Group"), button(p, "Delete PTT group Floor")],
  },
  {
    link: "Softphone",
    heading: "Softphone Provisioning",
    // A viewer sees the PTT groups in place of the configuration (it carries the SIP password).
    ready: (p, role) =>
      role === "viewer"
        ? p.getByRole("list", { name: "PTT groups" }).getByText("Floor")
        : p.getByLabel("Extension", { exact: true }),
    writes: (p) => [
      button(p, "Create Provisioning Link"),
      button(p, "Copy SIP Details"),
      p.getByLabel("Extension", { exact: true }),
    ],
    viewerNotice:
      "Your role (viewer) cannot see or provision a softphone configuration: it contains the extension's SIP password.",
  },
  {
    link: "Configuration Wizard",
    heading: "Configuration Wizard",
    ready: (p, role) => (role === "viewer" ? notice(p) : p.getByText("Step 1 of 4")),
    writes: (p) => [button(p, "Next"), p.getByRole("progressbar", { name: "Wizard progress" })],
    viewerNotice: "Your role (viewer) cannot run the configuration wizard: it creates extensions, a trunk and routes.",
  },
  {
    link: "Config Generator",
    heading: "Configuration Generator",
    ready: (p, role) => (role === "viewer" ? notice(p) : p.getByTestId("summary-Extensions").getByText("2")),
    writes: (p) => [button(p, "Regenerate"), button(p, "Download"), p.getByTestId("sql-viewer")],
    viewerNotice:
      "Your role (viewer) cannot generate the configuration script: it contains the extensions' SIP passwords.",
  },
  {
    link: "Deployment",
    heading: "Deployment",
    ready: (p) => p.getByTestId("deploy-Extensions").getByTestId("count-value").getByText("2"),
    writes: (p) => [
      button(p, "Deploy Trunks"),
      button(p, "Deploy Extensions"),
      button(p, "Deploy Ring Groups"),
      button(p, "Deploy Queues"),
      button(p, "Deploy Time Conditions"),
      button(p, "Deploy PTT Groups"),
      button(p, "Deploy All Configurations"),
    ],
    viewerNotice: "Your role (viewer) cannot deploy to the PBX.",
  },
  {
    link: "Sync from PBX",
    heading: "Sync Configuration",
    // No PBX is configured here: the comparison fails and says so (without a link to the administrator's settings).
    ready: (p) => p.getByTestId("sync-error"),
    writes: (p) => [button(p, "Import All"), p.getByRole("button", { name: /^Import Selected/ })],
    viewerNotice: "Your role (viewer) cannot import extensions from the PBX.",
  },
  {
    link: "API Settings",
    heading: "API Settings",
    ready: (p) => region(p, "Account"),
    // Credentials and API tokens are the administrator's: no role below sees them (see adminOnly).
    writes: () => [],
  },
  {
    link: "SIP Provider",
    heading: "SIP Provider",
    ready: (p) => region(p, "Generated Credentials").getByText("1001 - Alice"),
    writes: (p) => [
      region(p, "Create SIP Connection"),
      region(p, "Generate Extension Credential"),
      button(p, "Delete Office PBX"),
      button(p, "Reveal password"),
      region(p, "Phone Numbers").getByText("Route to"),
    ],
    viewerNotice:
      "Your role (viewer) cannot create or delete SIP connections, generate credentials or route phone numbers.",
  },
  // Nothing fires here; rules and channels are the administrator's to change (see adminOnly).
  {
    link: "Alerts",
    heading: "Alerts",
    ready: (p) => p.getByText("Nothing is firing.", { exact: true }),
    writes: () => [],
  },
  // The live PBX: no manager interface (AMI) or call records database here, so each says why.
  { link: "Active Calls", heading: "Active Calls", ready: (p) => p.getByTestId("calls-unknown"), writes: () => [] },
  {
    link: "Call History",
    heading: "Call History",
    ready: (p) => p.getByTestId("history-unavailable"),
    writes: () => [],
  },
  // No extension has voicemail here; a viewer may not listen (the default): a sentence says who may.
  {
    link: "Voicemail",
    heading: "Voicemail",
    ready: (p, role) =>
      role === "viewer" ? p.getByTestId("voicemail-not-allowed") : p.getByText("No mailboxes", { exact: true }),
    writes: () => [],
  },
  { link: "PBX Security", heading: "PBX Security", ready: (p) => p.getByTestId("security-unknown"), writes: () => [] },
  {
    link: "Test Calls",
    heading: "Test Calls",
    ready: (p) => p.getByRole("list", { name: "Test calls" }).getByText("Echo", { exact: true }),
    writes: (p) => [
      button(p, "Add Test Call"),
      button(p, "Run now Echo"),
      button(p, "Edit test call Echo"),
      button(p, "Delete test call Echo"),
    ],
  },
  {
    link: "AI Assistants",
    heading: "AI Assistants",
    ready: (p) => p.getByRole("list", { name: "AI assistants" }).getByText("Front desk"),
    writes: (p) => [button(p, "Create Assistant"), button(p, "Edit Front desk"), button(p, "Delete Front desk")],
  },
  // No call in progress and no message taken here: each says so (the views with data: ai-live.test.ts).
  {
    link: "Live AI Calls",
    heading: "Live AI Calls",
    ready: (p) => p.getByText("No AI calls in progress"),
    writes: () => [],
  },
  {
    link: "Messages",
    heading: "Messages",
    ready: (p) => p.getByText("No messages", { exact: true }),
    writes: () => [],
  },
  {
    link: "Call Transcripts",
    heading: "Call Transcripts",
    ready: (p) => p.getByRole("list", { name: "Call transcripts" }).getByText("+15555550101"),
    // The transcript's dialog: Close for everyone, Delete for an operator.
    open: async (p) => {
      await button(p, "Transcript of call with +15555550101").click();
      await button(p.getByRole("dialog"), "Close").first().waitFor();
    },
    writes: (p) => [button(p.getByRole("dialog"), "Delete")],
  },
  {
    link: "Routing Rules",
    heading: "AI Routing Rules",
    ready: (p) => p.getByRole("list", { name: "Routing rules" }).getByText("Angry callers"),
    writes: (p) => [
      button(p, "Create Rule"),
      button(p, "Edit Angry callers"),
      button(p, "Delete Angry callers"),
      button(p, "Evaluate"),
    ],
  },
];

/** The administrator's alone: hidden from operators and viewers alike. */
const adminOnly = (p: Page) => [
  region(p, "Hostinger VPS API"),
  region(p, "Telnyx API"),
  p.getByText("API Tokens", { exact: true }),
  button(p, "Create Token"),
  p.getByRole("link", { name: "Open API Settings" }),
  button(p, "Add Rule"),
];

/** Requests the server refuses a viewer: the page must not even send them. */
const VIEWER_REFUSED = [
  /\/api\/config\/generate/,
  /\/api\/extensions\/\d+\/(provisioning|provisioning-link)/,
  /\/api\/telnyx\/credentials\/[^/]+\/password/,
  /\/api\/credentials/,
  /\/api\/ai\/tokens/,
  /\/api\/users/,
  /\/api\/backup/,
];

/** Names a write control would have (buttons by aria-label or text), checked on every screen a viewer sees. */
const WRITE_NAME =
  /^(add|create|delete|deploy|import|save|edit|remove|push|start|stop|restart|generate|regenerate|evaluate|revoke|reveal|forget|test|qr code|next|run wizard)\b/i;

async function visibleButtonNames(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("button, [role='button']")]
      .filter((el) => el.checkVisibility())
      .map((el) => (el.getAttribute("aria-label") ?? el.textContent ?? "").trim()),
  );
}

/** A page signed in as `role`, recording every /api answer refused with 403 and every /api request sent. */
async function pageAs(role: Exclude<Role, "admin">) {
  const page = await c.newPage({ viewport: { width: 1400, height: 1000 } });
  await c.signInViaApi(page.context(), USERS[role]);
  const refused: string[] = [];
  const requested: string[] = [];
  page.on("request", (req) => {
    if (new URL(req.url()).pathname.startsWith("/api/")) requested.push(new URL(req.url()).pathname);
  });
  page.on("response", (res) => {
    if (res.status() === 403) refused.push(`${res.request().method()} ${new URL(res.url()).pathname}`);
  });
  await page.goto(`${c.baseUrl}/`);
  await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
  return { page, refused, requested };
}

const sidebar = (page: Page) => page.locator('[data-slot="sidebar"]');

async function goTo(page: Page, screen: Screen, role: Role) {
  await sidebar(page).getByRole("link", { name: screen.link, exact: true }).click();
  await page.getByRole("heading", { level: 1, name: screen.heading, exact: true }).waitFor();
  await screen.ready(page, role).first().waitFor();
  await screen.open?.(page);
}

/** No refusal on screen ("Your role (…) cannot do this", "403: …", "Forbidden") and no toast at all. */
async function expectNoRefusalShown(page: Page, screen: string) {
  const shown = await page.getByText(/cannot do this|\bforbidden\b|\b403:/i).allTextContents();
  expect({ screen, shown, toasts: await toastItems(page).allTextContents() }).toEqual({
    screen,
    shown: [],
    toasts: [],
  });
}

describe("what each role sees", () => {
  test("a viewer walks every screen of the sidebar without a write control, a refused request or a 403", async () => {
    const { page, refused, requested } = await pageAs("viewer");
    const links = (await sidebar(page).getByRole("link").allTextContents()).map((t) => t.trim());
    // Every entry the viewer has is walked below (the header's "PBX Console" link aside); no Users entry.
    expect(links.filter((l) => !l.startsWith("PBX Console"))).toEqual(SCREENS.map((s) => s.link));

    for (const screen of SCREENS) {
      await goTo(page, screen, "viewer");
      for (const control of [...screen.writes(page), ...adminOnly(page)]) {
        expect({ screen: screen.link, control: String(control), count: await control.count() }).toEqual({
          screen: screen.link,
          control: String(control),
          count: 0,
        });
      }
      const writeLike = (await visibleButtonNames(page)).filter((name) => WRITE_NAME.test(name));
      expect({ screen: screen.link, writeLike }).toEqual({ screen: screen.link, writeLike: [] });
      if (screen.viewerNotice) await page.getByText(screen.viewerNotice, { exact: true }).waitFor();
      await expectNoRefusalShown(page, screen.link);
      expect({ screen: screen.link, refused }).toEqual({ screen: screen.link, refused: [] });
      await page.keyboard.press("Escape"); // closes a dialog `open` left open
    }
    expect(requested.filter((path) => VIEWER_REFUSED.some((re) => re.test(path)))).toEqual([]);
    // The API Settings screen says why the credentials are missing instead of showing an error.
    await sidebar(page).getByRole("link", { name: "API Settings", exact: true }).click();
    await page
      .getByText(
        "Your role (viewer) cannot see or change the service credentials or tokens: an administrator manages them.",
        { exact: true },
      )
      .waitFor();
  }, 90_000);

  test("an operator sees every inventory control, but not credentials, API tokens or users", async () => {
    const { page, refused } = await pageAs("operator");
    expect(await sidebar(page).getByRole("link", { name: "Users", exact: true }).count()).toBe(0);

    for (const screen of SCREENS) {
      await goTo(page, screen, "operator");
      for (const control of screen.writes(page)) await control.first().waitFor();
      for (const control of adminOnly(page)) {
        expect({ screen: screen.link, control: String(control), count: await control.count() }).toEqual({
          screen: screen.link,
          control: String(control),
          count: 0,
        });
      }
      expect(await notice(page).count()).toBe(screen.link === "API Settings" ? 1 : 0);
      await expectNoRefusalShown(page, screen.link);
      await page.keyboard.press("Escape");
    }
    await sidebar(page).getByRole("link", { name: "API Settings", exact: true }).click();
    await page
      .getByText(
        "Your role (operator) cannot see or change the service credentials or tokens: an administrator manages them.",
        { exact: true },
      )
      .waitFor();
    expect(refused).toEqual([]);
  }, 90_000);
});

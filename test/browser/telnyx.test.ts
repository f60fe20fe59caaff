// SIP provider page (/telnyx) through chromium against the built binary, with the Telnyx fake standing in for
// the real API. Tests run in order and share one server: first without a Telnyx key, then with one.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { SipCredential } from "../../src/shared/telnyx";
import type { FakeServer } from "../fakes/common";
import {
  makeTelnyxPhoneNumber,
  makeTelnyxRequirement,
  startFakeTelnyx,
  TELNYX_DEFAULT_KEY,
  type TelnyxState,
} from "../fakes/telnyx";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toastListItems } from "./locators";

let c: Harness;
let telnyx: FakeServer<TelnyxState>;
const ACTIVE = makeTelnyxPhoneNumber(1, { phone_number: "+15551000001", updated_at: "2026-03-04T15:06:07Z" });
const PENDING = makeTelnyxPhoneNumber(2, { phone_number: "+15551000002", status: "requirement-info-pending" });
/** Routed to a connection that is not a credential connection (so not in the page's list). */
const ELSEWHERE = makeTelnyxPhoneNumber(3, {
  phone_number: "+15551000003",
  connection_id: "1700000000000000001",
  connection_name: "FQDN trunk",
});

beforeAll(async () => {
  telnyx = await startFakeTelnyx({ phoneNumbers: [ACTIVE, PENDING, ELSEWHERE] });
  telnyx.state.requirements = [
    makeTelnyxRequirement({ country_code: "IL", phone_number_type: "local", action: "ordering" }),
    makeTelnyxRequirement({ country_code: "GB", phone_number_type: "local", action: "ordering" }),
  ];
  c = await startHarness({ env: { PBX_TELNYX_URL: telnyx.baseUrl }, viewport: { width: 1280, height: 900 } });
}, 60_000);

afterEach(() => c?.closePages());

afterAll(async () => {
  await c?.stop();
  await telnyx?.stop();
}, 30_000);

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const connectionsCard = (page: Page) => region(page, "Active Connections");
const createCard = (page: Page) => region(page, "Create SIP Connection");
const numberRow = (page: Page, number: string) =>
  region(page, "Phone Numbers").getByRole("listitem", { name: number, exact: true });
const callsTo = (method: string, path: RegExp) =>
  telnyx.calls.filter((call) => call.method === method && path.test(call.path));

async function telnyxPage() {
  const page = await c.signedInPage("/telnyx");
  await page.getByRole("heading", { level: 1, name: "SIP Provider" }).waitFor();
  return page;
}

/** Picks `option` in the Radix select labelled by `trigger`. */
async function choose(page: Page, trigger: Locator, option: string) {
  await trigger.click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

async function createConnection(page: Page, name: string, username = "", password = "") {
  const form = createCard(page);
  await form.getByLabel("Connection Name").fill(name);
  await form.getByLabel("Username (optional)").fill(username);
  await form.getByLabel("Password (optional)").fill(password);
  await form.getByRole("button", { name: "Create Connection" }).click();
}

describe("SIP provider page without a Telnyx key", () => {
  test(
    "says Telnyx is not configured and links to API Settings instead of showing lists",
    async () => {
      const page = await telnyxPage();
      await page
        .getByTestId("telnyx-not-configured")
        .getByText(/Telnyx is not configured/)
        .waitFor();
      expect(await connectionsCard(page).count()).toBe(0);
      expect(await region(page, "Phone Numbers").count()).toBe(0);
      await page.getByRole("link", { name: "Open API Settings" }).click();
      await page.getByRole("heading", { level: 1, name: "API Settings" }).waitFor();
      expect(telnyx.calls).toHaveLength(0);
    },
    TEST_TIMEOUT,
  );
});

describe("SIP provider page with Telnyx", () => {
  beforeAll(async () => {
    const saved = await c.api("POST", "/api/credentials", {
      type: "telnyx",
      name: "Telnyx API",
      apiKey: TELNYX_DEFAULT_KEY,
    });
    expect(saved.status).toBe(200);
    for (const [extension, name] of [
      ["1001", "Alice"],
      ["200", "Bob"],
      ["10", "Carol"],
    ]) {
      const res = await c.api("POST", "/api/extensions", { extension, name, voicemail: false });
      expect(res.status).toBe(201);
    }
  });

  test(
    "server addresses, an empty connection list and no credential form yet",
    async () => {
      const page = await telnyxPage();
      const server = region(page, "SIP Server Information");
      await server.getByText("sip.telnyx.com:5060").waitFor();
      await server.getByText("UDP/TCP").waitFor();
      await server.getByText("sip.telnyx.com:5061").waitFor();
      await connectionsCard(page).getByText("No connections yet. Create one above to get started.").waitFor();
      expect(await connectionsCard(page).getByTestId("connection-count").textContent()).toBe("0");
      expect(await region(page, "Generate Extension Credential").count()).toBe(0);
      expect(await region(page, "Generated Credentials").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "creating a connection: the name is required; username and password are generated when blank",
    async () => {
      const page = await telnyxPage();
      await connectionsCard(page).waitFor();
      const before = callsTo("POST", /credential_connections$/).length;
      await createCard(page).getByRole("button", { name: "Create Connection" }).click();
      await createCard(page).getByText("Connection name is required").waitFor();
      await createCard(page).getByLabel("Connection Name").fill("   ");
      await createCard(page).getByRole("button", { name: "Create Connection" }).click();
      await createCard(page).getByText("Connection name is required").waitFor();
      expect(callsTo("POST", /credential_connections$/)).toHaveLength(before);

      await createConnection(page, "Office PBX");
      await toastListItems(page).getByText("Telnyx connection created successfully", { exact: true }).waitFor();
      const office = telnyx.state.credentialConnections.find((x) => x.connection_name === "Office PBX");
      expect(office?.user_name).toMatch(/^[A-Za-z0-9]{4,32}$/);
      expect(office?.password.length).toBeGreaterThanOrEqual(8);
      const item = connectionsCard(page).getByRole("listitem", { name: "Office PBX" });
      await item.getByText(office?.user_name ?? "?").waitFor();
      expect(await createCard(page).getByLabel("Connection Name").inputValue()).toBe("");

      await createConnection(page, "Branch", "branchuser1", "a-long-password-1");
      // The first creation's toast has the same text and may still show: wait for the new list item instead.
      await connectionsCard(page).getByRole("listitem", { name: "Branch" }).waitFor();
      await toastListItems(page).getByText("Telnyx connection created successfully", { exact: true }).waitFor();
      const branch = telnyx.state.credentialConnections.find((x) => x.connection_name === "Branch");
      expect(branch?.user_name).toBe("branchuser1");
      expect(branch?.password).toBe("a-long-password-1");
      expect(await connectionsCard(page).getByTestId("connection-count").textContent()).toBe("2");
    },
    TEST_TIMEOUT,
  );

  test(
    "deleting a connection needs no confirmation and removes it at Telnyx",
    async () => {
      const page = await telnyxPage();
      await connectionsCard(page).getByRole("button", { name: "Delete Branch", exact: true }).click();
      await toastListItems(page).getByText("Connection deleted successfully", { exact: true }).waitFor();
      await connectionsCard(page).getByRole("listitem", { name: "Branch" }).waitFor({ state: "detached" });
      expect(telnyx.state.credentialConnections.map((x) => x.connection_name)).toEqual(["Office PBX"]);
      expect(await connectionsCard(page).getByTestId("connection-count").textContent()).toBe("1");
    },
    TEST_TIMEOUT,
  );

  test(
    "generating a credential for an extension lists it under Generated Credentials, password masked until revealed",
    async () => {
      const page = await telnyxPage();
      const form = region(page, "Generate Extension Credential");
      await form.getByRole("button", { name: "Generate Credential" }).click();
      await form.getByText("Connection and extension are required").waitFor();

      await choose(page, form.getByLabel("Connection"), "Office PBX");
      await form.getByLabel("Extension").click();
      const options = await page.getByRole("option").allTextContents();
      expect(options).toEqual(["10 - Carol", "200 - Bob", "1001 - Alice"]);
      await page.getByRole("option", { name: "1001 - Alice" }).click();
      await form.getByRole("button", { name: "Generate Credential" }).click();
      await toastListItems(page)
        .getByText("SIP credential generated and linked to extension", { exact: true })
        .waitFor();

      const made = telnyx.state.telephonyCredentials.at(-1);
      const office = telnyx.state.credentialConnections.find((x) => x.connection_name === "Office PBX");
      expect(made?.resource_id).toBe(`connection:${office?.id}`);
      const list = region(page, "Generated Credentials");
      const item = list.getByRole("listitem").first();
      await item.getByText("1001 - Alice").waitFor();
      expect(await item.getByTestId("sip-username").textContent()).toBe(made?.sip_username ?? "?");
      const password = item.getByTestId("sip-password");
      expect(await password.textContent()).toBe(`••••${made?.sip_password.slice(-4)}`);
      expect(await page.content()).not.toContain(made?.sip_password ?? "?");
      await item.getByRole("button", { name: "Reveal password" }).click();
      await password.getByText(made?.sip_password ?? "?", { exact: true }).waitFor();
      await item.getByRole("button", { name: "Hide password" }).click();
      expect(await password.textContent()).toBe(`••••${made?.sip_password.slice(-4)}`);

      const listed = (await (await c.api("GET", "/api/telnyx/credentials")).json()) as SipCredential[];
      expect(listed).toHaveLength(1);
      expect(listed[0]?.extension).toBe("1001");
    },
    TEST_TIMEOUT,
  );

  test(
    "phone numbers: status colours, last update, and routing to a connection and back",
    async () => {
      const page = await telnyxPage();
      const active = numberRow(page, ACTIVE.phone_number);
      const pending = numberRow(page, PENDING.phone_number);
      await active.waitFor();
      expect(await active.getByTestId("number-status").getAttribute("class")).toContain("bg-success");
      expect(await pending.getByTestId("number-status").getAttribute("class")).toContain("bg-warning");
      await pending.getByText("requirement-info-pending").waitFor();
      await active.getByText(`Updated ${new Date(ACTIVE.updated_at).toLocaleString("en-US")}`).waitFor();
      expect(await active.getByTestId("number-connection").count()).toBe(0);
      const elsewhere = numberRow(page, ELSEWHERE.phone_number);
      expect(await elsewhere.getByTestId("number-connection").textContent()).toBe("FQDN trunk");
      expect(await elsewhere.getByLabel("Route to").textContent()).toBe("FQDN trunk");

      const routeTo = active.getByLabel("Route to");
      expect(await routeTo.textContent()).toBe("Not routed");
      await routeTo.click();
      expect(await page.getByRole("option").allTextContents()).toEqual(["Not routed", "Office PBX"]);
      await page.getByRole("option", { name: "Office PBX" }).click();
      await toastListItems(page).getByText("Phone number routing configured successfully", { exact: true }).waitFor();
      const office = telnyx.state.credentialConnections.find((x) => x.connection_name === "Office PBX");
      const patch = callsTo("PATCH", /^\/v2\/phone_numbers\//).at(-1);
      expect(patch?.path).toBe(`/v2/phone_numbers/${ACTIVE.id}`);
      expect(patch?.body).toEqual({ connection_id: office?.id });
      await active.getByTestId("number-connection").getByText("Office PBX").waitFor();
      expect(await routeTo.textContent()).toBe("Office PBX");

      await choose(page, routeTo, "Not routed");
      await active.getByTestId("number-connection").waitFor({ state: "detached" });
      expect(callsTo("PATCH", /^\/v2\/phone_numbers\//).at(-1)?.body).toEqual({ connection_id: null });
      expect(await routeTo.textContent()).toBe("Not routed");
    },
    TEST_TIMEOUT,
  );

  test(
    "the requirements dialog is fetched only when opened and lists Israel's local-number requirements",
    async () => {
      const page = await telnyxPage();
      await numberRow(page, ACTIVE.phone_number).waitFor();
      expect(callsTo("GET", /^\/v2\/requirements$/)).toHaveLength(0);
      await numberRow(page, ACTIVE.phone_number).getByRole("button", { name: "View Requirements" }).click();
      const dialog = page.getByRole("dialog", { name: `Regulatory Requirements for ${ACTIVE.phone_number}` });
      await dialog.getByText("A local address in IL").waitFor();
      const query = callsTo("GET", /^\/v2\/requirements$/).at(-1)?.query;
      expect(query?.["filter[country_code]"]).toBe("IL");
      expect(query?.["filter[phone_number_type]"]).toBe("local");
      await dialog.getByText("Passport or national ID").waitFor();
      await dialog.getByText("Must match: Within IL").waitFor();
      await dialog.getByText("Document must be less than Issued within the last 3 months old").waitFor();
      await dialog.getByText("Field type: address").waitFor();
      await dialog.getByText("Field type: document").first().waitFor();
      expect(await dialog.getByText("Record type: requirement_type").count()).toBe(2);
      expect(await dialog.getByText("A local address in GB").count()).toBe(0);
      await dialog.getByText(/Documents can be uploaded via the Telnyx API/).waitFor();
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });

      // None for this country/type: the dialog says so.
      telnyx.state.requirements = [];
      const fresh = await telnyxPage();
      await numberRow(fresh, PENDING.phone_number).getByRole("button", { name: "View Requirements" }).click();
      await fresh.getByRole("dialog").getByText("No additional requirements needed").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "Telnyx's own error detail is shown in the failure toast; with no message the fallback text",
    async () => {
      const page = await telnyxPage();
      await connectionsCard(page).waitFor();
      telnyx.state.failNext = {
        status: 422,
        path: "/v2/credential_connections",
        body: {
          errors: [
            {
              code: "10015",
              title: "Invalid value",
              detail: "connection_name has already been taken",
              source: { pointer: "/connection_name" },
            },
          ],
        },
      };
      await createConnection(page, "Duplicate");
      await toastListItems(page).getByText("Error", { exact: true }).waitFor();
      await toastListItems(page)
        .getByText(/connection_name has already been taken/)
        .waitFor();
      expect(telnyx.state.credentialConnections.map((x) => x.connection_name)).toEqual(["Office PBX"]);

      telnyx.state.failNext = {
        status: 404,
        path: `/v2/phone_numbers/${PENDING.id}`,
        body: { errors: [{ code: "10005", title: "Resource not found", detail: "Phone number not found at Telnyx" }] },
      };
      await choose(page, numberRow(page, PENDING.phone_number).getByLabel("Route to"), "Office PBX");
      await toastListItems(page)
        .getByText(/Phone number not found at Telnyx/)
        .waitFor();
      expect(await numberRow(page, PENDING.phone_number).getByLabel("Route to").textContent()).toBe("Not routed");

      await page.route("**/api/telnyx/connections/*", (route) => route.fulfill({ status: 500, body: "" }));
      await connectionsCard(page).getByRole("button", { name: "Delete Office PBX" }).click();
      await toastListItems(page).getByText("Failed to delete connection", { exact: true }).waitFor();
      expect(telnyx.state.credentialConnections).toHaveLength(1);
    },
    TEST_TIMEOUT,
  );
});

// The Trunks screen (/trunks) through chromium against the built binary. Tests run in order on one server.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Trunk } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterEach(() => h?.closePages());
afterAll(() => h?.stop());

const listTrunks = () => h.apiJson<Trunk[]>("GET", "/api/trunks");

async function trunksPage(): Promise<Page> {
  const page = await h.signedInPage("/trunks");
  await page.getByRole("heading", { level: 1, name: "Trunks" }).waitFor();
  return page;
}

const card = (page: Page, name: string) =>
  page.getByRole("list", { name: "Trunks" }).getByRole("listitem").filter({ hasText: name });

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Add Trunk" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Trunk" });
  await dialog.waitFor();
  return dialog;
}

test(
  "no trunks: the empty state",
  async () => {
    const page = await trunksPage();
    await page.getByText("No trunks configured").waitFor();
    expect(await page.getByRole("list", { name: "Trunks" }).count()).toBe(0);
  },
  TEST_TIMEOUT,
);

test(
  "Add Trunk sends every field; the card shows name, type, host:port and status; the dialog resets",
  async () => {
    const page = await trunksPage();
    const dialog = await openDialog(page);
    // Form defaults (docs/product/entities-and-validation.md#trunks).
    expect(await dialog.getByLabel("Port", { exact: true }).inputValue()).toBe("5060");
    expect(await dialog.getByLabel("Type", { exact: true }).textContent()).toBe("SIP");
    expect(await dialog.getByLabel("Auth type", { exact: true }).textContent()).toBe("Outbound");
    expect(await dialog.getByRole("radio", { name: /^Username and secret/ }).isChecked()).toBe(true);
    for (const name of ["Registration", "Rewrite contact", "Trust RPID", "Send RPID"]) {
      expect(await dialog.getByRole("switch", { name }).getAttribute("aria-checked")).toBe("false");
    }

    await dialog.getByLabel("Name", { exact: true }).fill("Telnyx");
    await chooseOption(page, dialog, "Type", "IAX");
    await dialog.getByLabel("Host", { exact: true }).fill("sip.telnyx.com");
    await dialog.getByLabel("Port", { exact: true }).fill("4569");
    await dialog.getByLabel("Username", { exact: true }).fill("acme");
    await dialog.getByLabel("Secret", { exact: true }).fill("s3cret-password");
    await chooseOption(page, dialog, "Auth type", "Both");
    await dialog.getByLabel("From domain", { exact: true }).fill("acme.example.com");
    await dialog.getByLabel("From user", { exact: true }).fill("4420");
    await dialog.getByLabel("Contact user", { exact: true }).fill("contact");
    await dialog.getByRole("switch", { name: "Registration" }).click();
    await dialog.getByRole("switch", { name: "Send RPID" }).click();

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/trunks") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create Trunk" }).click();
    expect((await sent).postDataJSON()).toEqual({
      name: "Telnyx",
      type: "iax",
      host: "sip.telnyx.com",
      port: 4569,
      authMode: "credentials",
      providerAddresses: [],
      username: "acme",
      secret: "s3cret-password",
      fromDomain: "acme.example.com",
      fromUser: "4420",
      contactUser: "contact",
      authType: "both",
      registrationEnabled: true,
      rewriteContact: false,
      trustRpid: false,
      sendRpid: true,
    });

    await toasts(page).getByText("Trunk created", { exact: true }).waitFor();
    await dialog.waitFor({ state: "detached" });
    const telnyx = card(page, "Telnyx");
    await telnyx.getByText("IAX", { exact: true }).waitFor();
    await telnyx.getByText("sip.telnyx.com:4569", { exact: true }).waitFor();
    // No manager interface (AMI) here: the live badge says Unknown, never a false "unregistered".
    await telnyx.getByTestId("trunk-live").getByText("Unknown", { exact: true }).waitFor();
    expect(await telnyx.getByText("unregistered", { exact: true }).count()).toBe(0);

    const [saved] = await listTrunks();
    expect(saved).toMatchObject({ name: "Telnyx", type: "iax", port: 4569, authType: "both", hasSecret: true });

    // Opened again, the form is back to its defaults.
    const again = await openDialog(page);
    expect(await again.getByLabel("Name", { exact: true }).inputValue()).toBe("");
    expect(await again.getByLabel("Port", { exact: true }).inputValue()).toBe("5060");
    expect(await again.getByLabel("Type", { exact: true }).textContent()).toBe("SIP");
    expect(await again.getByRole("switch", { name: "Registration" }).getAttribute("aria-checked")).toBe("false");
  },
  TEST_TIMEOUT,
);

test(
  "authentication as a choice: IP-authenticated trunks send no credentials, only the provider's addresses",
  async () => {
    const page = await trunksPage();
    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Carrier IP");
    await dialog.getByLabel("Host", { exact: true }).fill("sip.carrier.example");
    // Credentials first: the shared rule (the deploy's) asks for both.
    await dialog.getByLabel("Username", { exact: true }).fill("acme");
    await dialog.getByRole("button", { name: "Create Trunk" }).click();
    await dialog
      .getByText("Secret is required for authentication with credentials (or choose IP authentication)", {
        exact: true,
      })
      .waitFor();

    await dialog.getByRole("radio", { name: /^IP address/ }).check();
    // No login, no registration: those inputs go; the provider's addresses come.
    expect(await dialog.getByLabel("Username", { exact: true }).count()).toBe(0);
    expect(await dialog.getByLabel("Secret", { exact: true }).count()).toBe(0);
    expect(await dialog.getByRole("switch", { name: "Registration" }).count()).toBe(0);
    const addresses = dialog.getByLabel("Provider addresses", { exact: true });
    await addresses.fill("203.0.113.10\n300.1.1.1");
    await dialog.getByRole("button", { name: "Create Trunk" }).click();
    await dialog
      .getByText('"300.1.1.1" is not an IP address, a network (203.0.113.0/24) or a host name', { exact: true })
      .waitFor();
    expect(await addresses.getAttribute("aria-invalid")).toBe("true");

    await addresses.fill("203.0.113.10\n198.51.100.0/24, sip.carrier.example");
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/trunks") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create Trunk" }).click();
    expect((await sent).postDataJSON()).toMatchObject({
      name: "Carrier IP",
      authMode: "ip",
      providerAddresses: ["203.0.113.10", "198.51.100.0/24", "sip.carrier.example"],
    });
    await toasts(page).getByText("Trunk created", { exact: true }).waitFor();
    const created = card(page, "Carrier IP");
    await created.getByText("IP-authenticated", { exact: true }).waitFor();
    await created.getByText("From 203.0.113.10, 198.51.100.0/24, sip.carrier.example", { exact: true }).waitFor();
    expect((await listTrunks()).find((t) => t.name === "Carrier IP")).toMatchObject({
      authMode: "ip",
      username: null,
      hasSecret: false,
      registrationEnabled: false,
    });

    // Reopened, the form is back to credentials with no addresses.
    const again = await openDialog(page);
    expect(await again.getByRole("radio", { name: /^Username and secret/ }).isChecked()).toBe(true);
    await again.getByRole("radio", { name: /^IP address/ }).check();
    expect(await again.getByLabel("Provider addresses", { exact: true }).inputValue()).toBe("");
  },
  TEST_TIMEOUT,
);

test(
  "a trunk name FreePBX cannot hold is refused under the field, as the deploy would refuse it",
  async () => {
    const before = (await listTrunks()).length;
    const page = await trunksPage();
    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Telnyx [main]");
    await dialog.getByLabel("Host", { exact: true }).fill("sip example.com");
    await dialog.getByRole("radio", { name: /^IP address/ }).check();
    await dialog.getByRole("button", { name: "Create Trunk" }).click();
    await dialog
      .getByText("Trunk name may only contain letters, digits, spaces and . _ @ ( ) + - (at most 50 characters)", {
        exact: true,
      })
      .waitFor();
    await dialog.getByText("Host must be a host name or an IP address", { exact: true }).waitFor();
    expect((await listTrunks()).length).toBe(before);
  },
  TEST_TIMEOUT,
);

test(
  "an empty port is left out of the body and the card shows the host alone; a stored 'registered' is not shown as live",
  async () => {
    await h.apiJson("POST", "/api/trunks", {
      name: "Registered one",
      type: "sip",
      host: "reg.example.com",
      status: "registered",
    });
    const page = await trunksPage();
    // The stored status is not a registration: without AMI the live badge says Unknown.
    await card(page, "Registered one").getByTestId("trunk-live").getByText("Unknown", { exact: true }).waitFor();
    expect(await card(page, "Registered one").getByText("registered", { exact: true }).count()).toBe(0);

    const dialog = await openDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("No port");
    await dialog.getByLabel("Host", { exact: true }).fill("noport.example.com");
    await dialog.getByLabel("Port", { exact: true }).fill("");
    await dialog.getByRole("radio", { name: /^IP address/ }).check();
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/trunks") && r.method() === "POST");
    await dialog.getByRole("button", { name: "Create Trunk" }).click();
    expect("port" in (await sent).postDataJSON()).toBe(false);
    await card(page, "No port").getByText("noport.example.com", { exact: true }).waitFor();
    expect((await listTrunks()).find((t) => t.name === "No port")?.port).toBeNull();
  },
  TEST_TIMEOUT,
);

test(
  "bad input shows errors under the fields and creates nothing",
  async () => {
    const before = (await listTrunks()).length;
    const page = await trunksPage();
    const dialog = await openDialog(page);
    await dialog.getByLabel("Port", { exact: true }).fill("70000");
    await dialog.getByRole("button", { name: "Create Trunk" }).click();

    for (const [label, message] of [
      ["Name", "Name is required"],
      ["Host", "Host is required"],
      ["Port", "Port must be between 1 and 65535"],
    ] as const) {
      const error = dialog.getByText(message, { exact: true });
      await error.waitFor();
      const input = dialog.getByLabel(label, { exact: true });
      expect(await input.getAttribute("aria-invalid")).toBe("true");
      expect(await input.getAttribute("aria-describedby")).toBe(await error.getAttribute("id"));
    }

    // The server's own field error (a name already in use) lands under the field too.
    await dialog.getByLabel("Name", { exact: true }).fill("Telnyx");
    await dialog.getByLabel("Host", { exact: true }).fill("other.example.com");
    await dialog.getByLabel("Port", { exact: true }).fill("5060");
    await dialog.getByRole("radio", { name: /^IP address/ }).check();
    await dialog.getByRole("button", { name: "Create Trunk" }).click();
    await dialog.getByText("Name already in use", { exact: true }).waitFor();
    await toasts(page).getByText("Failed to create trunk.", { exact: true }).waitFor();
    expect(await dialog.isVisible()).toBe(true);
    expect((await listTrunks()).length).toBe(before);
  },
  TEST_TIMEOUT,
);

test(
  "delete removes the card with a toast",
  async () => {
    await h.apiJson("POST", "/api/trunks", { name: "Doomed", type: "sip", host: "doomed.example.com" });
    const page = await trunksPage();
    await card(page, "Doomed").waitFor();
    await page.getByRole("button", { name: "Delete trunk Doomed" }).click();
    // Confirmed first (the dialog itself: safe-delete.test.ts).
    await page
      .getByRole("dialog", { name: "Delete trunk Doomed?" })
      .getByRole("button", { name: "Delete", exact: true })
      .click();
    await toasts(page).getByText("Trunk deleted", { exact: true }).waitFor();
    await card(page, "Doomed").waitFor({ state: "detached" });
    expect((await listTrunks()).some((t) => t.name === "Doomed")).toBe(false);
  },
  TEST_TIMEOUT,
);

test(
  "a trunk that became used after the confirmation opened stays, and the toast says why (the server's 409 message)",
  async () => {
    const trunk = await h.apiJson<Trunk>("POST", "/api/trunks", {
      name: "In use",
      type: "sip",
      host: "inuse.example.com",
    });
    const page = await trunksPage();
    await page.getByRole("button", { name: "Delete trunk In use" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete trunk In use?" });
    await dialog.getByText("Nothing else in the console uses it.").waitFor();
    // Someone else adds a route on it meanwhile: the server refuses the delete.
    await h.apiJson("POST", "/api/outbound-routes", {
      name: "UK Calling",
      dialPatterns: ["07XXXXXXXXX"],
      trunkId: trunk.id,
    });
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    const toast = toasts(page).locator("li");
    await toast.getByText("Failed to delete trunk.", { exact: true }).waitFor();
    await toast
      .getByText("Trunk In use is used by outbound route(s): UK Calling. Delete or change them first.", { exact: true })
      .waitFor();
    await card(page, "In use").waitFor(); // back in the list (the delete was refused)
    expect((await listTrunks()).some((t) => t.id === trunk.id)).toBe(true);
  },
  TEST_TIMEOUT,
);

test(
  "skeletons while the list loads; a failed load offers Retry",
  async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Every read fails until Retry, not only the first: the sync socket's first open refetches what was read
    // before it (ADR 0030), and on a loaded machine it opens after the failed load.
    let failing = true;
    const page = await h.signedInPage("/trunks", {
      before: (p) =>
        p.route("**/api/trunks", async (route) => {
          if (!failing) return route.continue();
          await held;
          return route.fulfill({
            status: 500,
            contentType: "application/json",
            body: '{"error":{"message":"boom"}}',
          });
        }),
    });
    await page.getByRole("status", { name: "Loading" }).waitFor();
    release();
    await page.getByText("Could not load trunks").waitFor();
    await page.getByText("boom", { exact: true }).waitFor();
    failing = false;
    await page.getByRole("button", { name: "Retry" }).click();
    await card(page, "Telnyx").waitFor();
  },
  TEST_TIMEOUT,
);

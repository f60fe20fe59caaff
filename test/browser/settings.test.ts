// API Settings (/settings) through chromium against the built binary, with the Hostinger and TinyMDM fakes
// standing in for the real services. Tests run in order and share one server.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { FakeServer } from "../fakes/common";
import { HOSTINGER_DEFAULT_TOKEN, type HostingerState, startFakeHostinger } from "../fakes/hostinger";
import { startFakeTinyMdm, TINYMDM_DEFAULT_KEYS, type TinyMdmState } from "../fakes/tinymdm";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toastListItems } from "./locators";

const OPENAI_ENV_KEY = "sk-from-the-environment-1234";
const DIALER_ENV_URL = "https://dialer.example.com/hooks/pbx";

let c: Harness;
let hostinger: FakeServer<HostingerState>;
let tinymdm: FakeServer<TinyMdmState>;

beforeAll(async () => {
  hostinger = await startFakeHostinger();
  tinymdm = await startFakeTinyMdm();
  c = await startHarness({
    env: {
      PBX_HOSTINGER_URL: hostinger.baseUrl,
      PBX_TINYMDM_URL: tinymdm.baseUrl,
      OPENAI_API_KEY: OPENAI_ENV_KEY,
      DIALER_PUSH_URL: DIALER_ENV_URL,
    },
    viewport: { width: 1280, height: 900 },
  });
}, 60_000);

afterEach(() => c?.closePages());

afterAll(async () => {
  await c?.stop();
  await hostinger?.stop();
  await tinymdm?.stop();
}, 30_000);

const card = (page: Page, title: string) => page.getByRole("region", { name: title, exact: true });
const badge = (region: Locator) => region.getByTestId("credential-status");
const button = (region: Locator, name: string) => region.getByRole("button", { name, exact: true });

async function settingsPage() {
  const page = await c.signedInPage("/settings");
  await page.getByRole("heading", { level: 1, name: "API Settings" }).waitFor();
  await badge(card(page, "Hostinger VPS API")).waitFor();
  return page;
}

describe("API Settings", () => {
  test(
    "the three original cards come first, all Not Configured, then the others and the security notice",
    async () => {
      const page = await settingsPage();
      const titles = await page
        .locator("[data-service]")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-service")));
      expect(titles).toEqual(["hostinger", "freepbx", "tinymdm", "telnyx", "openai", "dialer", "ssh", "ami", "cdr"]);
      for (const title of ["Hostinger VPS API", "FreePBX GraphQL API", "TinyMDM API"]) {
        expect(await badge(card(page, title)).textContent()).toBe("Not Configured");
      }
      const notice = page.getByRole("region", { name: "Security Notice" });
      await notice.getByText(/stored in the database, encrypted/).waitFor();
      await notice.getByText(/Environment variables take precedence over database-stored credentials/).waitFor();
      // The PBX URL is a url input; the SSH private key a (masked) textarea.
      expect(await card(page, "FreePBX GraphQL API").getByLabel("API URL").getAttribute("type")).toBe("url");
      expect(
        await card(page, "PBX Host (SSH)")
          .getByLabel("Private key (PEM)")
          .evaluate((e) => e.tagName),
      ).toBe("TEXTAREA");
      await card(page, "PBX Host (SSH)").getByText("Not pinned yet: the first successful test pins it.").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "Test and Save stay disabled until the required fields are filled",
    async () => {
      const page = await settingsPage();
      const both = async (region: Locator) => [
        await button(region, "Test Connection").isDisabled(),
        await button(region, "Save Credentials").isDisabled(),
      ];

      const host = card(page, "Hostinger VPS API");
      expect(await both(host)).toEqual([true, true]);
      await host.getByLabel("API Key").fill("something");
      expect(await both(host)).toEqual([false, false]);
      await host.getByLabel("API Key").fill("");
      expect(await both(host)).toEqual([true, true]);

      const pbx = card(page, "FreePBX GraphQL API");
      await pbx.getByLabel("API URL").fill("https://pbx.example.com/admin/api/api");
      await pbx.getByLabel("Client ID").fill("client");
      expect(await both(pbx)).toEqual([true, true]);
      await pbx.getByLabel("Client Secret").fill("secret");
      expect(await both(pbx)).toEqual([false, false]);
      await pbx.getByLabel("Client ID").fill("  ");
      expect(await both(pbx)).toEqual([true, true]);

      const mdm = card(page, "TinyMDM API");
      await mdm.getByLabel("Public API Key").fill("public");
      expect(await both(mdm)).toEqual([true, true]);
      await mdm.getByLabel("Secret API Key").fill("secret");
      expect(await both(mdm)).toEqual([false, false]);
    },
    TEST_TIMEOUT,
  );

  test(
    "a plain-http URL to another machine is saved with the server's warning in the toast",
    async () => {
      const page = await settingsPage();
      const pbx = card(page, "FreePBX GraphQL API");
      await pbx.getByLabel("API URL").fill("http://pbx.example.com/admin/api/api");
      await pbx.getByLabel("Client ID").fill("client");
      await pbx.getByLabel("Client Secret").fill("a-secret-value");
      await button(pbx, "Save Credentials").click();
      const toast = toastListItems(page).filter({ hasText: "FreePBX API credentials saved successfully" });
      await toast.waitFor();
      expect(await toast.textContent()).toMatch(/http/i);
      expect(await toast.textContent()).not.toContain("a-secret-value");
      await c.api("DELETE", "/api/credentials/freepbx");
    },
    TEST_TIMEOUT,
  );

  test(
    "a secret field's toggle shows and hides it",
    async () => {
      const page = await settingsPage();
      const host = card(page, "Hostinger VPS API");
      const key = host.getByLabel("API Key");
      await key.fill("visible-now");
      expect(await key.getAttribute("type")).toBe("password");
      await button(host, "Show").click();
      expect(await key.getAttribute("type")).toBe("text");
      expect(await key.inputValue()).toBe("visible-now");
      await button(host, "Hide").click();
      expect(await key.getAttribute("type")).toBe("password");
      expect(await button(host, "Show").count()).toBe(1);
    },
    TEST_TIMEOUT,
  );

  test(
    "a wrong key: 'Connection Failed' with the server's message, and nothing is marked configured",
    async () => {
      const page = await settingsPage();
      const host = card(page, "Hostinger VPS API");
      await host.getByLabel("API Key").fill("not-the-right-token");
      const answered = page.waitForResponse("**/api/credentials/test");
      await button(host, "Test Connection").click();
      const res = await answered;
      expect(res.request().postDataJSON()).toEqual({ type: "hostinger", apiKey: "not-the-right-token" });
      const result = (await res.json()) as { success: boolean; message: string };
      expect(result.success).toBe(false);
      expect(result.message.length).toBeGreaterThan(0);
      await toastListItems(page).getByText("Connection Failed", { exact: true }).waitFor();
      await toastListItems(page).getByText(result.message, { exact: true }).waitFor();
      expect(hostinger.calls.at(-1)?.headers.authorization).toBe("Bearer not-the-right-token");
      expect(await badge(host).textContent()).toBe("Not Configured");
    },
    TEST_TIMEOUT,
  );

  test(
    "save, then test: 'Configured (Not Active)' and then 'Connected'",
    async () => {
      const page = await settingsPage();
      const host = card(page, "Hostinger VPS API");
      const key = host.getByLabel("API Key");
      await key.fill(HOSTINGER_DEFAULT_TOKEN);

      const saved = page.waitForResponse(
        (r) => r.url().endsWith("/api/credentials") && r.request().method() === "POST",
      );
      await button(host, "Save Credentials").click();
      const saveRes = await saved;
      expect(saveRes.status()).toBe(200);
      expect(saveRes.request().postDataJSON()).toEqual({
        type: "hostinger",
        name: "Hostinger VPS API",
        apiKey: HOSTINGER_DEFAULT_TOKEN,
        vmId: "",
      });
      await toastListItems(page).getByText("Hostinger API credentials saved successfully").waitFor();
      await host.getByText("Configured (Not Active)").waitFor();
      // The secret left the input; its last 4 characters stand in for it, and still count as filled.
      expect(await key.inputValue()).toBe("");
      expect(await key.getAttribute("placeholder")).toBe(`••••${HOSTINGER_DEFAULT_TOKEN.slice(-4)}`);
      expect(await button(host, "Test Connection").isDisabled()).toBe(false);

      const tested = page.waitForResponse("**/api/credentials/test");
      await button(host, "Test Connection").click();
      const result = (await (await tested).json()) as { success: boolean; message: string };
      expect(result.success).toBe(true);
      await toastListItems(page).getByText("Connection Successful", { exact: true }).waitFor();
      await toastListItems(page).getByText(result.message, { exact: true }).waitFor();
      await host.getByText("Connected", { exact: true }).waitFor();
      await host.getByTestId("hostinger-last-test").getByText(result.message, { exact: false }).waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "after a reload the stored secret is nowhere in the page: only its last 4 characters",
    async () => {
      const page = await settingsPage();
      const host = card(page, "Hostinger VPS API");
      await host.getByText("Connected", { exact: true }).waitFor();
      expect(await host.getByLabel("API Key").getAttribute("placeholder")).toBe(
        `••••${HOSTINGER_DEFAULT_TOKEN.slice(-4)}`,
      );
      expect(await page.content()).not.toContain(HOSTINGER_DEFAULT_TOKEN);
      const api = await (await c.api("GET", "/api/credentials")).text();
      expect(api).not.toContain(HOSTINGER_DEFAULT_TOKEN);
      expect(api).not.toContain(OPENAI_ENV_KEY);
    },
    TEST_TIMEOUT,
  );

  test(
    "device management saves clientId/clientSecret and tests with publicKey/secretKey",
    async () => {
      const page = await settingsPage();
      const mdm = card(page, "TinyMDM API");
      await mdm.getByLabel("Public API Key").fill(TINYMDM_DEFAULT_KEYS.publicKey);
      await mdm.getByLabel("Secret API Key").fill(TINYMDM_DEFAULT_KEYS.secretKey);

      const tested = page.waitForResponse("**/api/credentials/test");
      await button(mdm, "Test Connection").click();
      const testRes = await tested;
      expect(testRes.request().postDataJSON()).toEqual({
        type: "tinymdm",
        publicKey: TINYMDM_DEFAULT_KEYS.publicKey,
        secretKey: TINYMDM_DEFAULT_KEYS.secretKey,
      });
      expect(((await testRes.json()) as { success: boolean }).success).toBe(true);
      await toastListItems(page).getByText("Connection Successful", { exact: true }).waitFor();
      // Testing unsaved values does not make the saved ones "connected".
      expect(await badge(mdm).textContent()).toBe("Not Configured");

      const saved = page.waitForResponse(
        (r) => r.url().endsWith("/api/credentials") && r.request().method() === "POST",
      );
      await button(mdm, "Save Credentials").click();
      expect((await saved).request().postDataJSON()).toEqual({
        type: "tinymdm",
        name: "TinyMDM API",
        clientId: TINYMDM_DEFAULT_KEYS.publicKey,
        clientSecret: TINYMDM_DEFAULT_KEYS.secretKey,
      });
      await toastListItems(page).getByText("TinyMDM API credentials saved successfully").waitFor();
      await mdm.getByText("Configured (Not Active)").waitFor();
      expect(await mdm.getByLabel("Public API Key").inputValue()).toBe(TINYMDM_DEFAULT_KEYS.publicKey);
    },
    TEST_TIMEOUT,
  );

  test(
    "values from the environment are marked with the variable and cannot be edited",
    async () => {
      const page = await settingsPage();
      const openai = card(page, "OpenAI API");
      // Each card is read once it shows where its value comes from: until then it may show its form unfilled.
      await openai.getByText("from OPENAI_API_KEY").waitFor();
      const key = openai.getByLabel("API Key");
      expect(await key.isDisabled()).toBe(true);
      expect(await key.getAttribute("placeholder")).toBe(`••••${OPENAI_ENV_KEY.slice(-4)}`);
      expect(await badge(openai).textContent()).toBe("Configured (Not Active)");
      expect(await page.content()).not.toContain(OPENAI_ENV_KEY);

      const dialer = card(page, "Web Dialer Push");
      await dialer.getByText("from DIALER_PUSH_URL").waitFor();
      const url = dialer.getByLabel("Push URL");
      expect(await url.isDisabled()).toBe(true);
      expect(await url.inputValue()).toBe(DIALER_ENV_URL);
      // The URL counts as filled: the signing secret is all that is missing.
      expect(await button(dialer, "Save Credentials").isDisabled()).toBe(true);
      await dialer.getByLabel("Signing secret").fill("whsec_dGVzdA==");
      expect(await button(dialer, "Save Credentials").isDisabled()).toBe(false);
      const saved = page.waitForResponse(
        (r) => r.url().endsWith("/api/credentials") && r.request().method() === "POST",
      );
      await button(dialer, "Save Credentials").click();
      // The environment's value is not sent (it would be ignored anyway).
      expect((await saved).request().postDataJSON()).toEqual({
        type: "dialer",
        name: "Web Dialer Push",
        webhookSecret: "whsec_dGVzdA==",
      });
      await toastListItems(page).getByText("Web dialer push credentials saved successfully").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "a bad URL is refused under the field; a failed save shows 'Error' and the fallback text",
    async () => {
      const page = await settingsPage();
      const pbx = card(page, "FreePBX GraphQL API");
      await pbx.getByLabel("API URL").fill("not a url");
      await pbx.getByLabel("Client ID").fill("client");
      await pbx.getByLabel("Client Secret").fill("secret");
      await button(pbx, "Save Credentials").click();
      await pbx.getByText("Enter a valid URL such as https://pbx.example.com").waitFor();
      expect(await pbx.getByLabel("API URL").getAttribute("aria-invalid")).toBe("true");

      await page.route("**/api/credentials", (route) =>
        route.request().method() === "POST" ? route.fulfill({ status: 500, body: "" }) : route.continue(),
      );
      await pbx.getByLabel("API URL").fill("https://pbx.example.com/admin/api/api");
      await button(pbx, "Save Credentials").click();
      await toastListItems(page).getByText("Error", { exact: true }).waitFor();
      await toastListItems(page).getByText("Failed to save FreePBX credentials", { exact: true }).waitFor();

      await page.unroute("**/api/credentials");
      await page.route("**/api/credentials", (route) =>
        route.request().method() === "POST"
          ? route.fulfill({
              status: 400,
              contentType: "application/json",
              body: JSON.stringify({
                error: { message: "Invalid request: Client ID: too long", fields: { clientId: "Too long" } },
              }),
            })
          : route.continue(),
      );
      await button(pbx, "Save Credentials").click();
      await toastListItems(page).getByText("Invalid request: Client ID: too long", { exact: true }).waitFor();
      await pbx.getByText("Too long", { exact: true }).waitFor();
      expect(await badge(pbx).textContent()).toBe("Not Configured");
    },
    TEST_TIMEOUT,
  );

  test(
    "the pinned SSH host key is shown and 'Forget host key' saves resetHostKey",
    async () => {
      const FINGERPRINT = "SHA256:q3zXHbq0m5bXcYBJwTfX0m8pNnZ2cE1pX6Qk7a9uQ8k";
      const page = await c.signedInPage("/settings", {
        before: async (p) => {
          // Pinning needs a real SSH test; pretend one happened by adding the pin to the first GET only.
          let first = true;
          await p.route("**/api/credentials", async (route) => {
            if (route.request().method() !== "GET" || !first) return route.continue();
            first = false;
            const res = await route.fetch();
            const views = (await res.json()) as { type: string; fields: Record<string, unknown>[] }[];
            for (const f of views.find((v) => v.type === "ssh")?.fields ?? [])
              if (f.name === "hostKeyFingerprint") Object.assign(f, { set: true, value: FINGERPRINT });
            return route.fulfill({ response: res, json: views });
          });
        },
      });
      const ssh = card(page, "PBX Host (SSH)");
      expect(await ssh.getByTestId("ssh-hostKeyFingerprint").textContent()).toBe(FINGERPRINT);
      const saved = page.waitForResponse(
        (r) => r.url().endsWith("/api/credentials") && r.request().method() === "POST",
      );
      await button(ssh, "Forget host key").click();
      expect((await saved).request().postDataJSON()).toEqual({
        type: "ssh",
        name: "PBX Host (SSH)",
        resetHostKey: true,
      });
      await toastListItems(page).getByText("Host key forgotten", { exact: true }).waitFor();
      await ssh.getByText("Not pinned yet: the first successful test pins it.").waitFor();
      expect(await button(ssh, "Forget host key").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "Remove deletes the stored credentials after a confirmation",
    async () => {
      const page = await settingsPage();
      const mdm = card(page, "TinyMDM API");
      await mdm.getByText("Configured (Not Active)").waitFor();
      await button(mdm, "Remove").click();
      const dialog = page.getByRole("dialog", { name: "Remove TinyMDM API credentials?" });
      const removed = page.waitForResponse("**/api/credentials/tinymdm");
      await dialog.getByRole("button", { name: "Remove" }).click();
      expect((await removed).status()).toBe(204);
      await mdm.getByText("Not Configured", { exact: true }).waitFor();
      expect(await mdm.getByLabel("Public API Key").inputValue()).toBe("");
      expect(await mdm.getByLabel("Secret API Key").getAttribute("placeholder")).toBeNull();
      // The Hostinger card is untouched.
      await card(page, "Hostinger VPS API").getByText("Connected", { exact: true }).waitFor();
    },
    TEST_TIMEOUT,
  );
});

// The Configuration Wizard (/wizard) through chromium against the built binary. Tests run in order on one
// server: the first deployment creates 1001-1005, later ones find them.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Extension, Trunk } from "../../src/shared/inventory";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toasts } from "./locators";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterEach(() => h?.closePages());
afterAll(() => h?.stop());

async function wizardPage(): Promise<Page> {
  const page = await h.signedInPage("/wizard");
  await page.getByRole("heading", { level: 1, name: "Configuration Wizard" }).waitFor();
  return page;
}

const back = (page: Page) => page.getByRole("button", { name: "Back" });
const next = (page: Page) => page.getByRole("button", { name: "Next" });
const deployButton = (page: Page) => page.getByRole("button", { name: "Deploy" });
const progress = (page: Page) => page.getByRole("progressbar", { name: "Wizard progress" });

async function expectStep(page: Page, step: number) {
  await page.getByText(`Step ${step} of 4`, { exact: true }).waitFor();
  expect(await progress(page).getAttribute("aria-valuenow")).toBe(String((step / 5) * 100));
}

/** Next through steps 1-3 with whatever the form holds, to the review. */
async function toReview(page: Page) {
  for (const step of [1, 2, 3]) {
    await expectStep(page, step);
    await next(page).click();
  }
  await expectStep(page, 4);
}

test(
  "step 1: Back is disabled, 20% progress; the count falls back to 1 for non-numbers and is limited to 1-100",
  async () => {
    const page = await wizardPage();
    await expectStep(page, 1);
    expect(await back(page).isDisabled()).toBe(true);
    const count = page.getByLabel("Number of extensions");
    const prefix = page.getByLabel("Number prefix");
    expect(await count.inputValue()).toBe("5");
    expect(await prefix.inputValue()).toBe("10");

    await count.fill("");
    await count.blur();
    expect(await count.inputValue()).toBe("1");
    await count.fill("");
    await count.pressSequentially("e"); // a number input's only non-digit: the value reads as not a number
    await count.blur();
    expect(await count.inputValue()).toBe("1");

    await count.fill("150");
    await next(page).click();
    const tooMany = page.getByText("Create at most 100 extensions", { exact: true });
    await tooMany.waitFor();
    expect(await count.getAttribute("aria-describedby")).toBe(await tooMany.getAttribute("id"));
    await count.fill("0");
    await next(page).click();
    await page.getByText("Create at least 1 extension", { exact: true }).waitFor();
    await expectStep(page, 1);

    await count.fill("3");
    await prefix.fill("2a");
    await next(page).click();
    await page.getByText("Prefix must contain digits only", { exact: true }).waitFor();
    await prefix.fill("20");

    // Step 2 checks the host; Back returns with the values kept.
    await next(page).click();
    await expectStep(page, 2);
    expect(await back(page).isDisabled()).toBe(false);
    await page.getByLabel("Trunk provider host").fill("not a host!");
    await next(page).click();
    await page.getByText("Enter a host name such as sip.example.com", { exact: true }).waitFor();
    await page.getByLabel("Trunk provider host").fill("");
    await back(page).click();
    await expectStep(page, 1);
    expect(await count.inputValue()).toBe("3");

    await count.fill("");
    await toReview(page);
    await page.getByTestId("wizard-numbers").getByText("2001", { exact: true }).waitFor();
    expect(await page.getByRole("list", { name: "Extension numbers" }).getByRole("listitem").allTextContents()).toEqual(
      ["2001"],
    );
  },
  TEST_TIMEOUT,
);

test(
  "defaults end to end: review 1001–1005, deploy, 'Configuration Complete!', then the Extensions screen lists them",
  async () => {
    const page = await wizardPage();
    await toReview(page);
    // Step 3 defaults were voicemail on, IVR off; the review says so.
    await page.getByTestId("wizard-numbers").getByText("1001–1005", { exact: true }).waitFor();
    const review = page.locator("dl");
    await review.getByText("Trunk provider").waitFor();
    expect(await review.textContent()).toMatch(/Trunk provider\s*None\s*Voicemail\s*Enabled\s*IVR\s*Disabled/);

    const sent = page.waitForRequest((r) => r.url().endsWith("/api/wizard/deploy") && r.method() === "POST");
    await deployButton(page).click();
    expect((await sent).postDataJSON()).toEqual({
      step: 4,
      extensionCount: 5,
      extensionPrefix: "10",
      trunkProvider: "",
      enableVoicemail: true,
      enableIVR: false,
    });
    await page.getByRole("heading", { name: "Configuration Complete!" }).waitFor();
    await toasts(page).getByText("Configuration deployed", { exact: true }).waitFor();
    expect(await progress(page).getAttribute("aria-valuenow")).toBe("100");
    expect(await page.getByTestId("wizard-created").textContent()).toMatch(/5 extensions\s*1001–1005/);
    expect(await page.getByTestId("wizard-existing").count()).toBe(0);

    await page.getByRole("link", { name: "View Extensions" }).click();
    await page.getByRole("heading", { level: 1, name: "Extensions" }).waitFor();
    for (const n of ["1001", "1002", "1003", "1004", "1005"]) {
      await page.getByRole("main").getByText(n, { exact: true }).first().waitFor();
    }
    const numbers = (await h.apiJson<Extension[]>("GET", "/api/extensions")).map((e) => e.extension).sort();
    expect(numbers).toEqual(["1001", "1002", "1003", "1004", "1005"]);
  },
  TEST_TIMEOUT,
);

test(
  "Run Wizard Again resets to the defaults; a second run creates nothing and lists what existed",
  async () => {
    const page = await wizardPage();
    await toReview(page);
    await deployButton(page).click();
    await page.getByRole("heading", { name: "Configuration Complete!" }).waitFor();
    await page.getByText("Nothing new was needed: everything already existed.").waitFor();
    expect(await page.getByTestId("wizard-created").count()).toBe(0);
    expect(await page.getByTestId("wizard-existing").textContent()).toMatch(/5 extensions\s*1001–1005/);
    expect((await h.apiJson<Extension[]>("GET", "/api/extensions")).length).toBe(5);

    // Change everything, deploy, then reset.
    await page.getByRole("button", { name: "Run Wizard Again" }).click();
    await expectStep(page, 1);
    await page.getByLabel("Number of extensions").fill("6");
    await next(page).click();
    await page.getByLabel("Trunk provider host").fill("sip.telnyx.com");
    await next(page).click();
    await page.getByRole("switch", { name: "Voicemail" }).click();
    await page.getByRole("switch", { name: "IVR" }).click();
    await next(page).click();
    await deployButton(page).click();
    await page.getByRole("heading", { name: "Configuration Complete!" }).waitFor();
    const created = await page.getByTestId("wizard-created").textContent();
    expect(created).toMatch(/Extension\s*1006/);
    expect(created).toMatch(/Trunk\s*sip\.telnyx\.com/);
    expect(created).toMatch(/IVR\s*Main IVR/);
    expect(await page.getByTestId("wizard-existing").textContent()).toMatch(/5 extensions\s*1001–1005/);
    expect((await h.apiJson<Trunk[]>("GET", "/api/trunks")).map((t) => t.host)).toEqual(["sip.telnyx.com"]);

    await page.getByRole("button", { name: "Run Wizard Again" }).click();
    await expectStep(page, 1);
    expect(await back(page).isDisabled()).toBe(true);
    expect(await page.getByLabel("Number of extensions").inputValue()).toBe("5");
    expect(await page.getByLabel("Number prefix").inputValue()).toBe("10");
    await next(page).click();
    expect(await page.getByLabel("Trunk provider host").inputValue()).toBe("");
    await next(page).click();
    expect(await page.getByRole("switch", { name: "Voicemail" }).getAttribute("aria-checked")).toBe("true");
    expect(await page.getByRole("switch", { name: "IVR" }).getAttribute("aria-checked")).toBe("false");
  },
  TEST_TIMEOUT,
);

test(
  "while deploying Back and Deploy are disabled; a failed deploy stays on step 4 with the failure toast",
  async () => {
    const page = await wizardPage();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/wizard/deploy", async (route) => {
      await held;
      await route.fulfill({ status: 500, contentType: "application/json", body: '{"error":{"message":"boom"}}' });
    });
    await toReview(page);
    await deployButton(page).click();
    await page.waitForFunction(() =>
      [...document.querySelectorAll("button")].some((b) => b.textContent === "Back" && b.disabled),
    );
    expect(await deployButton(page).isDisabled()).toBe(true);
    release();

    const toast = toasts(page).locator("li");
    await toast.getByText("Deployment failed", { exact: true }).waitFor();
    await toast.getByText("Failed to deploy configuration. Please try again.", { exact: true }).waitFor();
    await expectStep(page, 4);
    expect(await back(page).isDisabled()).toBe(false);
    expect(await deployButton(page).isDisabled()).toBe(false);
    expect(await page.getByRole("heading", { name: "Configuration Complete!" }).count()).toBe(0);
  },
  TEST_TIMEOUT,
);

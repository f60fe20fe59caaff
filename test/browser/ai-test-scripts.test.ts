// An assistant's test scripts (ADR 0072) through chromium against the built binary, with the fake OpenAI's
// text-mode model as the assistant: a script added in its panel (the server's field messages under the fields
// first), run and seen to pass; then the prompt changed in the assistant's dialog, and the re-run that change
// queues is seen to fail in the history, naming the expected and the actual transfer target, without a reload.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { type FakeOpenAi, generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

const PROMPT = "You are the receptionist of Example Ltd. Billing questions go to extension 2001. Be brief.";
let fake: FakeOpenAi;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  fake.text.textOnly = true;
  h = await startHarness({
    env: {
      PBX_OPENAI_URL: fake.baseUrl,
      OPENAI_API_KEY: OPENAI_DEFAULT_KEY,
      OPENAI_WEBHOOK_SECRET: generateWebhookSecret(),
      OPENAI_PROJECT_ID: "proj_browser",
    },
  });
  await h.apiJson("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: PROMPT,
    voice: "marin",
    extensionId: "2000",
    tools: ["transfer_call", "end_call"],
    status: "active",
  });
});

afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await fake?.stop();
});

const field = (scope: Page | Locator, label: string) => scope.getByLabel(label, { exact: true });
/** The error text under a field, found through the field's aria-describedby. */
async function errorUnder(scope: Locator, label: string): Promise<string> {
  const input = field(scope, label);
  await input.and(scope.locator('[aria-invalid="true"]')).waitFor();
  const id = await input.getAttribute("aria-describedby");
  return (await scope.locator(`[id="${id}"]`).textContent()) ?? "";
}

describe("test scripts", () => {
  test(
    "a script added and run passes; a prompt change re-runs it and the failure shows in the history",
    async () => {
      const page = await h.signedInPage("/ai-assistants");
      const card = page.getByRole("listitem").filter({ hasText: "Front desk" });
      await card.getByRole("button", { name: "Regression suite of Front desk" }).click();
      const panel = page.getByRole("dialog", { name: "Test scripts: Front desk" });
      await panel.getByText("No test scripts yet.").waitFor();

      await panel.getByRole("button", { name: "Add script" }).click();
      const form = panel.getByRole("form", { name: "New test script" });
      await field(form, "Script name").fill("Billing goes to accounts");
      await field(form, "Caller turn 1").fill("Hello");
      await form.getByRole("button", { name: "Add caller turn" }).click();
      await field(form, "Caller turn 2").fill("I have a billing question");
      await field(form, "Transferred to").fill("accounts");
      await form.getByRole("button", { name: "Add script" }).click();
      expect(await errorUnder(form, "Transferred to")).toBe(
        "Transfer target must be digits, optionally starting with +",
      );
      await field(form, "Transferred to").fill("2001");
      await field(form, "Tool called").selectOption("transfer_call");
      await field(form, "With arguments (name=value per line)").fill("extension=2001");
      await form.getByRole("button", { name: "Add script" }).click();
      await form.waitFor({ state: "detached" });

      const script = panel.getByRole("listitem", { name: "Billing goes to accounts" });
      await script.getByText("Not run").waitFor();
      expect(await script.textContent()).toContain("expects transfer_call (extension=2001) · transfer to 2001");
      await script.getByRole("button", { name: "Run Billing goes to accounts" }).click();
      // The run ends in the background; its event brings the result.
      await script.getByText("Passed").waitFor();
      const history = panel.getByRole("region", { name: "History" });
      await history.getByRole("listitem").filter({ hasText: "manual" }).getByText("Passed").waitFor();

      // The prompt changes in the assistant's dialog: billing now goes to 2002.
      await panel.getByRole("button", { name: "Close", exact: true }).click();
      await panel.waitFor({ state: "detached" });
      await card.getByRole("button", { name: "Edit Front desk" }).click();
      const edit = page.getByRole("dialog", { name: "Edit AI Assistant" });
      await field(edit, "System prompt").fill(PROMPT.replace("2001", "2002"));
      await edit.getByRole("button", { name: "Save Changes" }).click();
      await edit.waitFor({ state: "detached" });

      await card.getByRole("button", { name: "Regression suite of Front desk" }).click();
      const rerun = history.getByRole("listitem").filter({ hasText: "prompt change" });
      await rerun.getByText("Failed").waitFor();
      expect(await rerun.getByRole("listitem").allTextContents()).toEqual([
        'Expected a call of transfer_call with {"extension":"2001"}, but the assistant called transfer_call {"extension":"2002"}',
        "Expected a transfer to 2001, but the assistant transferred to 2002",
      ]);
      await script.getByText("Failed").waitFor();
      // Newest first: the failed re-run above the manual pass.
      const states = await history
        .locator(":scope > ol > li")
        .evaluateAll((items) =>
          items.map((li) => (li.textContent?.includes("prompt change") ? "prompt change" : "manual")),
        );
      expect(states).toEqual(["prompt change", "manual"]);
    },
    TEST_TIMEOUT * 2,
  );
});

// Post-call analysis (ADR 0071) through chromium against the built binary, with the fake OpenAI as the call's
// other end and as the text model: the analysis defined in the assistant dialog (field rules shown under the
// field, kept after saving), then a real call whose analysis shows with its transcript, found by the search and
// by the field filter.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { AnalysisConfig } from "../../src/shared/ai/analysis";
import {
  buildSignedIncomingCall,
  type FakeOpenAi,
  generateWebhookSecret,
  OPENAI_DEFAULT_KEY,
  startFakeOpenAi,
} from "../fakes/openai";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { chooseOption, toasts } from "./locators";

const secret = generateWebhookSecret();
let fake: FakeOpenAi;
let h: Harness;
let assistantId = 0;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  h = await startHarness({
    env: {
      PBX_OPENAI_URL: fake.baseUrl,
      OPENAI_API_KEY: OPENAI_DEFAULT_KEY,
      OPENAI_WEBHOOK_SECRET: secret,
      OPENAI_PROJECT_ID: "proj_browser",
    },
  });
  const created = await h.apiJson<{ id: number }>("POST", "/api/ai/assistants", {
    name: "Orders desk",
    model: "gpt-realtime",
    systemPrompt: "You are the order desk of Example Ltd. Be brief.",
    extensionId: "2000",
    tools: ["end_call"],
  });
  assistantId = created.id;
});

afterEach(() => h?.closePages());
afterAll(async () => {
  fake?.releaseChats();
  await h?.stop();
  await fake?.stop();
});

async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

const field = (scope: Page | Locator, label: string) => scope.getByLabel(label, { exact: true });
/** The error text under a field, found through the field's aria-describedby. */
async function errorUnder(scope: Page | Locator, label: string): Promise<string> {
  const input = field(scope, label);
  await input.and(scope.locator('[aria-invalid="true"]')).waitFor();
  const id = await input.getAttribute("aria-describedby");
  return (await scope.locator(`[id="${id}"]`).textContent()) ?? "";
}

interface AssistantView {
  id: number;
  analysis: AnalysisConfig | null;
}

describe("post-call analysis", () => {
  test(
    "defined in the assistant dialog: field rules under the fields, kept after saving",
    async () => {
      const page = await h.signedInPage("/ai-assistants");
      await page.getByRole("button", { name: "Edit Orders desk" }).click();
      const d = page.getByRole("dialog");
      await d.getByRole("heading", { name: "Edit AI Assistant" }).waitFor();
      const section = d.getByRole("region", { name: "Post-call analysis" });
      await section.getByRole("switch", { name: "Post-call analysis" }).click();
      await field(section, "Goal").fill("The caller leaves the order id");
      await section.getByRole("button", { name: "Add field" }).click();
      await section.getByRole("button", { name: "Add field" }).click();
      await section.getByRole("button", { name: "Add field" }).click();
      await field(section, "Name of field 1").fill("Order ID");
      await field(section, "Description of field 1").fill("The order the call is about");
      await field(section, "Name of field 2").fill("notes");
      await field(section, "Description of field 2").fill("Anything");
      await field(section, "Name of field 3").fill("items");
      await chooseOption(page, section, "Type of field 3", "Number");
      await field(section, "Description of field 3").fill("How many items");
      await d.getByRole("button", { name: "Save Changes" }).click();
      expect(await errorUnder(section, "Name of field 1")).toContain("Field name must be lower case letters");

      // A reserved name, then a duplicate (named on its second use).
      await field(section, "Name of field 1").fill("order_id");
      await field(section, "Name of field 2").fill("summary");
      await d.getByRole("button", { name: "Save Changes" }).click();
      expect(await errorUnder(section, "Name of field 2")).toBe("'summary' is reserved");
      await field(section, "Name of field 2").fill("order_id");
      await d.getByRole("button", { name: "Save Changes" }).click();
      expect(await errorUnder(section, "Name of field 2")).toBe("Field name is used twice");

      // The second row removed: the third moves up.
      await section.getByRole("button", { name: "Remove field 2" }).click();
      expect(await field(section, "Name of field 2").inputValue()).toBe("items");
      await d.getByRole("button", { name: "Save Changes" }).click();
      await toasts(page).getByText("AI assistant updated successfully").waitFor();
      await d.waitFor({ state: "hidden" });

      const saved = (await h.apiJson<AssistantView[]>("GET", "/api/ai/assistants")).find((a) => a.id === assistantId);
      expect(saved?.analysis).toEqual({
        enabled: true,
        goal: "The caller leaves the order id",
        fields: [
          { name: "order_id", type: "string", description: "The order the call is about" },
          { name: "items", type: "number", description: "How many items" },
        ],
        model: "gpt-4o-mini",
      });

      // Opened again, the dialog shows what was saved.
      await page.getByRole("button", { name: "Edit Orders desk" }).click();
      await d.getByRole("heading", { name: "Edit AI Assistant" }).waitFor();
      expect(await section.getByRole("switch", { name: "Post-call analysis" }).getAttribute("aria-checked")).toBe(
        "true",
      );
      expect(await field(section, "Name of field 1").inputValue()).toBe("order_id");
      expect(await field(section, "Type of field 2").textContent()).toContain("Number");
      expect(await field(section, "Goal").inputValue()).toBe("The caller leaves the order id");
      expect(await seriousFindings(page)).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  test(
    "a call's analysis shows with its transcript; the search and the field filter find it",
    async () => {
      await h.apiJson("PATCH", `/api/ai/assistants/${assistantId}`, {
        analysis: {
          goal: "The caller leaves the order id",
          fields: [
            { name: "order_id", type: "string", description: "The order the call is about" },
            { name: "items", type: "number", description: "How many items" },
          ],
        },
      });
      const classification = { content: JSON.stringify({ sentiment: "neutral", intent: "order", summary: "Order." }) };
      const analysis = (orderId: string | null, success: boolean) => ({
        content: JSON.stringify({
          summary: orderId ? `The caller asks where order ${orderId} is.` : "The caller asks for opening hours.",
          order_id: orderId,
          items: orderId ? 2 : null,
          reason: orderId ? "The order id was given." : "No order id was given.",
          success,
        }),
      });
      // Each call: its end's classification, then its analysis.
      fake.state.chatScripts = [classification, analysis("ORD-7731", true), classification, analysis(null, false)];
      for (const words of ["Where is my order? It is seven seven three one.", "When are you open?"]) {
        const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>" });
        const callId = d.event.data.call_id;
        const sb = fake.sideband(callId);
        const res = await fetch(`${h.baseUrl}/api/ai/openai/webhook`, {
          method: "POST",
          headers: { ...d.headers, "content-type": "application/json" },
          body: d.body,
        });
        expect(res.status).toBe(200);
        await until(() => sb.open && sb.received.some((e) => e.type === "session.update"));
        sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: words });
        // The sideband keeps the turn before the call ends (the live view lists it).
        await until(async () => {
          const live = await h.apiJson<{ callId: string; turns?: unknown[] }[]>("GET", "/api/ai/calls/live");
          return JSON.stringify(live).includes(words);
        });
        sb.hangup();
        await until(async () => {
          const list = await h.apiJson<{ items: { callId: string; analysis: unknown }[] }>(
            "GET",
            "/api/ai/transcripts?limit=10",
          );
          return list.items.some((t) => t.callId === callId && t.analysis !== null);
        });
      }

      const page = await h.signedInPage("/call-transcripts");
      const count = page.getByTestId("transcript-count");
      await count.getByText("2 / 2 transcripts").waitFor();
      const list = page.getByRole("list", { name: "Call transcripts" });
      const ordered = list.getByRole("listitem").filter({ hasText: "order_id: ORD-7731" });
      await ordered.getByTestId("analysis-verdict").getByText("Goal met").waitFor();
      await ordered.getByText("items: 2").waitFor();
      await list
        .getByRole("listitem")
        .filter({ hasText: "When are you open?" })
        .getByTestId("analysis-verdict")
        .getByText("Goal not met")
        .waitFor();

      // "ord-7731" is only in the analysis (the caller said the digits in words).
      await page.getByRole("searchbox", { name: "Search transcripts" }).fill("ord-7731");
      await count.getByText("1 / 2 transcripts").waitFor();
      expect(await list.getByRole("listitem").count()).toBe(1);
      await page.getByRole("searchbox", { name: "Search transcripts" }).fill("");
      await count.getByText("2 / 2 transcripts").waitFor();

      await page.getByLabel("Analysis field", { exact: true }).fill("order_id=ORD-7731");
      await count.getByText("1 / 2 transcripts").waitFor();
      expect(page.url()).toContain("field=order_id%3DORD-7731");

      // The dialog has the whole analysis.
      await list.getByRole("listitem").first().getByRole("button").click();
      const dialog = page.getByRole("dialog");
      const shown = dialog.getByTestId("transcript-analysis");
      await shown.getByText("The caller asks where order ORD-7731 is.").waitFor();
      await shown.getByText("The order id was given.").waitFor();
      await shown.getByText("order_id: ORD-7731").waitFor();
      expect(await seriousFindings(page)).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

// The Live AI Calls and Messages screens (ADR 0044) through chromium against the
// built binary, with the fake OpenAI as the call's other end: a call appears with its transcript growing
// without a reload, Take over sends the refer, End call hangs up after the confirmation, and a message the
// assistant takes shows on the Messages screen at once.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import {
  buildSignedIncomingCall,
  type FakeOpenAi,
  generateWebhookSecret,
  OPENAI_DEFAULT_KEY,
  startFakeOpenAi,
} from "../fakes/openai";
import { seriousFindings } from "./axe-findings";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";
import { toasts } from "./locators";

const secret = generateWebhookSecret();
let fake: FakeOpenAi;
let h: Harness;

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
  await h.apiJson("PUT", "/api/settings/sip", { publicHost: "pbx.example.org", port: 5060 });
  await h.apiJson("POST", "/api/extensions", { extension: "1001", name: "Sales" });
  await h.apiJson("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    voice: "marin",
    extensionId: "2000",
    tools: ["transfer_call", "end_call", "take_message"],
    status: "active",
  });
});

afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await fake?.stop();
});

/** Polls a condition the system under test will make true (never a fixed sleep as the assertion). */
async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

/** An incoming call for the assistant, delivered to the console as OpenAI does; resolves once the sideband is open. */
async function callIn(from = '"Jane Doe" <sip:+15555550123@pbx.example.com>;tag=1') {
  const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>", from });
  const callId = d.event.data.call_id;
  const sb = fake.sideband(callId);
  const res = await fetch(`${h.baseUrl}/api/ai/openai/webhook`, {
    method: "POST",
    headers: { ...d.headers, "content-type": "application/json" },
    body: d.body,
  });
  expect(res.status).toBe(200);
  await until(() => sb.open && sb.received.some((e) => e.type === "session.update"));
  return { callId, sb };
}

const cardOf = (page: Page, callId: string) => page.locator(`[data-testid="live-ai-call"][data-call-id="${callId}"]`);
const actions = (callId: string) => (fake.state.realtimeCalls[callId]?.history ?? []).map((x) => x.action);

describe("Live AI Calls", () => {
  test(
    "a call appears with its transcript growing without a reload; Take over refers it to the extension",
    async () => {
      const page = await h.signedInPage("/ai-live-calls");
      await page.getByText("No AI calls in progress").waitFor();
      const { callId, sb } = await callIn();
      const card = cardOf(page, callId);
      await card.getByText("Jane Doe (+15555550123)").waitFor();
      await card.getByText("Answered by Front desk", { exact: false }).waitFor();
      const log = card.getByRole("log");
      expect(await log.getAttribute("aria-live")).toBe("polite");
      await log.getByText("No words yet.").waitFor();

      sb.send({
        type: "response.output_audio_transcript.done",
        item_id: "a1",
        transcript: "Example Ltd, how can I help?",
      });
      await log.getByText("Example Ltd, how can I help?").waitFor();
      sb.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: "u1",
        transcript: "Sales, please",
      });
      await log.getByText("Sales, please").waitFor();
      // Newest at the bottom, each turn with its speaker.
      expect(await log.locator("li").evaluateAll((els) => els.map((e) => e.getAttribute("data-speaker")))).toEqual([
        "assistant",
        "caller",
      ]);
      // The duration ticks.
      const duration = card.getByTestId("live-duration");
      const first = await duration.textContent();
      await page.waitForFunction(
        ([sel, before]) => document.querySelector(sel as string)?.textContent !== before,
        [`[data-call-id="${callId}"] [data-testid="live-duration"]`, first],
      );

      await card.getByRole("button", { name: "Take over" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("heading", { name: "Take over this call" }).waitFor();
      await dialog.getByLabel("Extension", { exact: true }).fill("1001 - Sales");
      await dialog.getByRole("button", { name: "Transfer" }).click();
      await toasts(page).getByText("Call transferred to 1001").waitFor();
      expect(fake.state.realtimeCalls[callId]?.referTargetUri).toBe("sip:1001@pbx.example.org");
      // The call leaves OpenAI: its card goes.
      await card.waitFor({ state: "detached" });
      await page.getByText("No AI calls in progress").waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "an unknown extension is refused in the dialog; End call hangs up only after the confirmation",
    async () => {
      const page = await h.signedInPage("/ai-live-calls");
      const { callId } = await callIn('"Bob" <sip:+15555550999@pbx.example.com>;tag=2');
      const card = cardOf(page, callId);
      await card.getByText("Bob (+15555550999)").waitFor();

      await card.getByRole("button", { name: "Take over" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByLabel("Extension", { exact: true }).fill("4242");
      await dialog.getByRole("button", { name: "Transfer" }).click();
      await dialog.getByText("Extension 4242 does not exist").waitFor();
      expect(actions(callId)).toEqual(["accept"]);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });

      await card.getByRole("button", { name: "End call" }).click();
      await dialog.getByRole("heading", { name: "End this call?" }).waitFor();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      expect(actions(callId)).toEqual(["accept"]);

      await card.getByRole("button", { name: "End call" }).click();
      await dialog.getByRole("button", { name: "End call" }).click();
      await toasts(page).getByText("Call ended", { exact: true }).waitFor();
      expect(actions(callId)).toEqual(["accept", "hangup"]);
      await card.waitFor({ state: "detached" });
    },
    TEST_TIMEOUT,
  );
});

describe("Messages", () => {
  test(
    "a message the assistant takes shows at once, with a count and, once the call ends, its transcript",
    async () => {
      const page = await h.signedInPage("/ai-messages");
      await page.getByText("No messages").waitFor();
      const { callId, sb } = await callIn('"Carol" <sip:+15555550777@pbx.example.com>;tag=3');
      sb.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: "u1",
        transcript: "Tell Sam to call me",
      });
      sb.send({
        type: "response.function_call_arguments.done",
        response_id: "resp_1",
        item_id: "fc_item",
        output_index: 0,
        call_id: "fc_msg",
        name: "take_message",
        arguments: JSON.stringify({ recipient: "Sam", message: "Please call Carol back about the order" }),
      });
      const row = page.getByTestId("ai-message").filter({ hasText: "Please call Carol back about the order" });
      await row.waitFor();
      for (const text of ["Carol", "+15555550777", "Sam"]) await row.getByText(text, { exact: true }).waitFor();
      await page.getByTestId("ai-messages-count").getByText("1 message").waitFor();
      await row.getByText("Call in progress or no words").waitFor();

      sb.hangup();
      await row.getByRole("button", { name: "Transcript" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText("Caller: Tell Sam to call me").waitFor();
      expect(callId).toBeTruthy();
    },
    TEST_TIMEOUT,
  );
});

describe("accessibility with data on screen", () => {
  test("a live call with its transcript, its take-over dialog, and the messages table: no serious finding in either theme", async () => {
    const { callId, sb } = await callIn('"Dana" <sip:+15555550444@pbx.example.com>;tag=4');
    sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Hi there" });
    sb.send({ type: "response.output_audio_transcript.done", item_id: "a1", transcript: "Hello, how can I help?" });
    sb.send({
      type: "response.function_call_arguments.done",
      response_id: "resp_2",
      item_id: "fc_item2",
      output_index: 0,
      call_id: "fc_msg2",
      name: "take_message",
      arguments: JSON.stringify({ recipient: "Lee", message: "Dana called", callback_number: "+15555550445" }),
    });
    for (const theme of ["dark", "light"] as const) {
      const before = (p: Page) => p.context().addInitScript(`localStorage.setItem("theme", ${JSON.stringify(theme)})`);
      const live = await h.signedInPage("/ai-live-calls", { before });
      const card = cardOf(live, callId);
      await card.getByText("Hello, how can I help?").waitFor();
      expect({ theme, findings: await seriousFindings(live) }).toEqual({ theme, findings: [] });
      await card.getByRole("button", { name: "Take over" }).click();
      await live.getByRole("dialog").getByLabel("Extension", { exact: true }).waitFor();
      // Scanned once it has faded in (mid-animation colours are not the dialog's).
      await live
        .getByRole("dialog")
        .evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)));
      expect({ theme, dialog: true, findings: await seriousFindings(live) }).toEqual({
        theme,
        dialog: true,
        findings: [],
      });
      const messages = await h.signedInPage("/ai-messages", { before });
      await messages.getByTestId("ai-message").filter({ hasText: "Dana called" }).waitFor();
      expect({ theme, findings: await seriousFindings(messages) }).toEqual({ theme, findings: [] });
      await h.closePages();
    }
    sb.hangup();
  }, 60_000);
});

// An AI call's measures and supervision in the browser (ADR 0070) through chromium against the built binary,
// with the fake OpenAI as the call's other end: the call's page shows the cost and the p50/p95 the server
// computed from the call's own sideband events; the price table saves and refuses a negative price under the
// field; a whisper reaches the assistant as a system item and is shown apart from what the caller hears; the
// take-over goes to the operator's remembered extension in one click; the caps save from the assistant dialog.
// Tests run in order and share one server (the price test runs after the cost test, which uses the defaults).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { AiAssistant } from "../../src/shared/ai/assistants";
import type { AiCallDetail, AiPrices, AssistantStats } from "../../src/shared/ai/measures";
import { formatMs, formatUsd } from "../../src/web/features/ai/measures-format";
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
let assistantId: number;

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
  const a = await h.apiJson<AiAssistant>("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    voice: "marin",
    extensionId: "2000",
    tools: ["transfer_call", "end_call"],
    status: "active",
  });
  assistantId = a.id;
}, 60_000);

afterEach(() => h?.closePages());
afterAll(async () => {
  await h?.stop();
  await fake?.stop();
});

/** Polls a condition the system under test will make true (never a fixed sleep as the assertion). */
async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(25);
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

/** A `response.done` usage as OpenAI reports it (Realtime `response.usage`). */
function usage(u: {
  text: number;
  cachedText: number;
  audio: number;
  cachedAudio: number;
  outText: number;
  outAudio: number;
}) {
  const input = u.text + u.audio;
  const output = u.outText + u.outAudio;
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    input_token_details: {
      text_tokens: u.text,
      audio_tokens: u.audio,
      image_tokens: 0,
      cached_tokens: u.cachedText + u.cachedAudio,
      cached_tokens_details: { text_tokens: u.cachedText, audio_tokens: u.cachedAudio, image_tokens: 0 },
    },
    output_token_details: { text_tokens: u.outText, audio_tokens: u.outAudio },
  };
}

/** One caller turn and the assistant's answer, in the order the Realtime API sends them. */
function turn(
  sb: Awaited<ReturnType<typeof callIn>>["sb"],
  n: number,
  said: string,
  answer: string,
  u: Parameters<typeof usage>[0],
) {
  const responseId = `resp_turn${n}`;
  sb.send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: 1500 * n, item_id: `item_caller${n}` });
  sb.send({
    type: "conversation.item.input_audio_transcription.completed",
    item_id: `item_caller${n}`,
    content_index: 0,
    transcript: said,
  });
  sb.send({
    type: "response.created",
    response: { object: "realtime.response", id: responseId, status: "in_progress", output: [] },
  });
  sb.send({
    type: "response.output_audio.delta",
    response_id: responseId,
    item_id: `item_answer${n}`,
    output_index: 0,
    content_index: 0,
    delta: "UklGRg==",
  });
  sb.send({
    type: "response.output_audio_transcript.done",
    response_id: responseId,
    item_id: `item_answer${n}`,
    output_index: 0,
    content_index: 0,
    transcript: answer,
  });
  sb.send({
    type: "response.done",
    response: { object: "realtime.response", id: responseId, status: "completed", output: [], usage: usage(u) },
  });
}

const cardOf = (page: Page, callId: string) => page.locator(`[data-testid="live-ai-call"][data-call-id="${callId}"]`);
const field = (scope: Page | Locator, label: string) => scope.getByLabel(label, { exact: true });
/** The error text under a field, found through the field's aria-describedby. */
async function errorUnder(scope: Page | Locator, label: string): Promise<string> {
  const input = field(scope, label);
  await input.and(scope.locator('[aria-invalid="true"]')).waitFor();
  const ids = ((await input.getAttribute("aria-describedby")) ?? "").split(" ");
  const texts = await Promise.all(ids.map((id) => scope.locator(`[id="${id}"]`).textContent()));
  return texts.filter(Boolean).join(" ");
}
const themed = (theme: "dark" | "light") => (p: Page) =>
  p.context().addInitScript(`localStorage.setItem("theme", ${JSON.stringify(theme)})`);
/** Waits until a dialog has faded in (mid-animation colours are not the dialog's). */
const settledDialog = (page: Page) =>
  page.getByRole("dialog").evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)));

describe("the AI call page", () => {
  test("shows the cost the server computed from the usage at the table's price, and its p50/p95 latency", async () => {
    const { callId, sb } = await callIn();
    // Two responses; their usage sums to 1000 text in (200 cached), 5000 audio in (1000 cached), 300 text out,
    // 2000 audio out. At gpt-realtime's list prices (4, 0.4, 16, 32, 0.4, 64 USD per 1M):
    // 800×4 + 200×0.4 + 300×16 + 4000×32 + 1000×0.4 + 2000×64 = 264,480 micro-USD.
    turn(sb, 1, "Hello, is the shop open?", "Yes, until six.", {
      text: 600,
      cachedText: 200,
      audio: 2000,
      cachedAudio: 0,
      outText: 100,
      outAudio: 800,
    });
    turn(sb, 2, "Thanks, bye", "Goodbye!", {
      text: 400,
      cachedText: 0,
      audio: 3000,
      cachedAudio: 1000,
      outText: 200,
      outAudio: 1200,
    });
    await until(async () => {
      const live = await h.apiJson<{ callId: string; turns: unknown[] }[]>("GET", "/api/ai/calls/live");
      return (live.find((c) => c.callId === callId)?.turns.length ?? 0) >= 4;
    });
    sb.hangup();
    let detail = {} as AiCallDetail;
    await until(async () => {
      detail = await h.apiJson<AiCallDetail>("GET", `/api/ai/calls/${callId}`);
      return !detail.live && detail.end !== null && detail.transcriptId !== null;
    });
    expect(detail.costUsd).toBe(0.26448);
    expect(detail.price?.model).toBe("gpt-realtime");
    expect(detail.latency.turns).toHaveLength(2);
    expect(detail.latency.p50Ms).not.toBeNull();

    // Reached from the call log on the AI Assistants screen.
    const page = await h.signedInPage("/ai-assistants");
    await page.getByRole("list", { name: "Recent AI calls" }).getByRole("link").first().click();
    await page.waitForURL(`**/ai/calls/${callId}`);
    await page.getByRole("heading", { level: 1, name: "AI call from +15555550123" }).waitFor();

    const total = page.getByTestId("ai-call-cost-total");
    await total.getByText(formatUsd(0.26448), { exact: true }).waitFor();
    expect(await total.getAttribute("data-usd")).toBe("0.26448");
    const usageTable = page.getByTestId("ai-call-usage");
    const row = (kind: string) => usageTable.locator(`tr[data-kind="${kind}"]`);
    expect(await row("inputText").locator("td").allTextContents()).toEqual(["800", "$4.00", "$0.0032"]);
    expect(await row("outputAudio").locator("td").allTextContents()).toEqual(["2,000", "$64.00", "$0.128"]);
    await page.getByTestId("ai-call-cost").getByText("gpt-realtime", { exact: false }).waitFor();

    expect(await page.getByTestId("ai-call-p50").textContent()).toBe(formatMs(detail.latency.p50Ms));
    expect(await page.getByTestId("ai-call-p50").getAttribute("data-ms")).toBe(String(detail.latency.p50Ms));
    expect(await page.getByTestId("ai-call-p95").getAttribute("data-ms")).toBe(String(detail.latency.p95Ms));
    // The per-turn chart reads its numbers out in its hidden table: one row per turn, as the server timed them.
    const cells = await page
      .getByTestId("ai-call-latency")
      .getByTestId("chart-data")
      .locator("tbody td")
      .allTextContents();
    expect(cells).toEqual(detail.latency.turns.map((t) => String(t.ms)));

    // The stored transcript, on demand.
    await page.getByRole("button", { name: "Show the stored transcript" }).click();
    await page.getByTestId("ai-call-transcript-text").getByText("Hello, is the shop open?", { exact: false }).waitFor();

    // The assistant's card counts the call over the last 30 days.
    const stats = await h.apiJson<AssistantStats>("GET", `/api/ai/assistants/${assistantId}/stats?days=30`);
    expect(stats.totals.calls).toBe(1);
    const assistants = await h.signedInPage("/ai-assistants");
    const card = assistants.getByRole("listitem").filter({ hasText: "Front desk" });
    expect(await card.getByTestId("assistant-stats-calls").textContent()).toBe("1");
    expect(await card.getByTestId("assistant-stats-cost").textContent()).toBe(formatUsd(stats.totals.costUsd));

    for (const theme of ["dark", "light"] as const) {
      const p = await h.signedInPage(`/ai/calls/${callId}`, { before: themed(theme) });
      await p.getByTestId("ai-call-cost-total").getByText(formatUsd(0.26448), { exact: true }).waitFor();
      await p.getByTestId("ai-call-latency").getByTestId("chart").waitFor();
      expect({ theme, findings: await seriousFindings(p) }).toEqual({ theme, findings: [] });
    }
  }, 60_000);

  test(
    "a call id the log does not have: not found",
    async () => {
      const page = await h.signedInPage("/ai/calls/rtc_nosuchcall");
      await page.getByTestId("ai-call-not-found").getByText("This AI call is not in the call log").waitFor();
    },
    TEST_TIMEOUT,
  );
});

describe("the price table", () => {
  test("refuses a negative price under its field; saves an edit and a new model", async () => {
    const page = await h.signedInPage("/ai-assistants");
    const card = page.getByRole("region", { name: "Prices" });
    const rows = card.getByTestId("ai-price-row");
    await rows.first().waitFor();
    const before = await h.apiJson<AiPrices>("GET", "/api/ai/prices");
    expect(before.updatedAt).toBeNull();
    const n = before.items.length;
    expect(await field(card, "Model of row 1").inputValue()).toBe(before.items[0]?.model as string);

    await field(card, "Text input of row 1").fill("-1");
    await card.getByRole("button", { name: "Save prices" }).click();
    expect(await errorUnder(card, "Text input of row 1")).toBe("Text input must not be negative");
    expect((await h.apiJson<AiPrices>("GET", "/api/ai/prices")).updatedAt).toBeNull();

    // The server refuses it too, naming the field.
    const refused = await h.api("PUT", "/api/ai/prices", {
      items: [{ ...before.items[0], inputText: -1 }],
    });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { fields: Record<string, string> } };
    expect(body.error.fields["items.0.inputText"]).toBe("Text input must not be negative");

    await field(card, "Text input of row 1").fill("5");
    await card.getByRole("button", { name: "Add model" }).click();
    const r = n + 1;
    await field(card, `Model of row ${r}`).fill("gpt-realtime-2");
    const prices = ["1", "0.1", "2", "3", "0.3", "6.5"];
    for (const [i, label] of [
      "Text input",
      "Cached text input",
      "Text output",
      "Audio input",
      "Cached audio input",
      "Audio output",
    ].entries())
      await field(card, `${label} of row ${r}`).fill(prices[i] as string);
    await card.getByRole("button", { name: "Save prices" }).click();
    await toasts(page).getByText("Prices saved", { exact: true }).waitFor();

    const after = await h.apiJson<AiPrices>("GET", "/api/ai/prices");
    expect(after.updatedAt).not.toBeNull();
    expect(after.items).toHaveLength(n + 1);
    expect(after.items[0]?.inputText).toBe(5);
    expect(after.items.find((p) => p.model === "gpt-realtime-2")).toEqual({
      model: "gpt-realtime-2",
      inputText: 1,
      cachedInputText: 0.1,
      outputText: 2,
      inputAudio: 3,
      cachedInputAudio: 0.3,
      outputAudio: 6.5,
    });
    // The form shows the table as saved.
    await card.getByText("Saved", { exact: false }).waitFor();
    const models = () =>
      rows.evaluateAll((trs) => trs.map((tr) => (tr.querySelector("input") as HTMLInputElement).value));
    await until(async () => (await models()).length === n + 1);
    expect((await models()).sort()).toEqual(after.items.map((p) => p.model).sort());

    for (const theme of ["dark", "light"] as const) {
      const p = await h.signedInPage("/ai-assistants", { before: themed(theme) });
      await p.getByRole("region", { name: "Prices" }).getByTestId("ai-price-row").first().waitFor();
      await p.getByTestId("assistant-stats").first().waitFor();
      expect({ theme, findings: await seriousFindings(p) }).toEqual({ theme, findings: [] });
    }
  }, 60_000);
});

describe("supervising a live call", () => {
  test("a whisper reaches the assistant as a system item and shows apart from the transcript; take-over in one click", async () => {
    const page = await h.signedInPage("/ai-live-calls");
    await page.getByText("No AI calls in progress").waitFor();
    const { callId, sb } = await callIn('"Bob" <sip:+15555550999@pbx.example.com>;tag=2');
    const card = cardOf(page, callId);
    await card.getByText("Bob (+15555550999)").waitFor();

    // Empty: refused in the box, nothing sent.
    await card.getByRole("button", { name: "Whisper" }).click();
    expect(await errorUnder(card, "Whisper to the assistant")).toContain("Text is required");

    const text = "Offer the caller a callback tomorrow morning";
    await field(card, "Whisper to the assistant").fill(text);
    await card.getByRole("button", { name: "Whisper" }).click();
    await until(() =>
      sb.received.some((e) => {
        const item = e.item as { role?: string; content?: { text?: string }[] } | undefined;
        return (
          e.type === "conversation.item.create" &&
          item?.role === "system" &&
          (item.content ?? []).some((c) => (c.text ?? "").includes(text))
        );
      }),
    );
    const whispered = card.getByRole("list", { name: "Whispered to the assistant" });
    await whispered.getByText(text).waitFor();
    await whispered.getByText("not heard by the caller", { exact: false }).waitFor();
    // Never in the transcript, which is what the caller and the assistant said.
    expect(await card.getByRole("log").getByText(text).count()).toBe(0);
    expect(await field(card, "Whisper to the assistant").inputValue()).toBe("");
    for (const theme of ["dark", "light"] as const) {
      const p = await h.signedInPage("/ai-live-calls", { before: themed(theme) });
      await cardOf(p, callId).getByLabel("Whisper to the assistant", { exact: true }).waitFor();
      expect({ theme, findings: await seriousFindings(p) }).toEqual({ theme, findings: [] });
      await p.close();
    }

    // The first take-over asks for the extension and remembers it.
    await card.getByRole("button", { name: "Take over", exact: true }).click();
    const dialog = page.getByRole("dialog");
    await field(dialog, "Extension").fill("1001");
    expect(await dialog.getByRole("checkbox", { name: /Remember as my extension/ }).getAttribute("data-state")).toBe(
      "checked",
    );
    await dialog.getByRole("button", { name: "Transfer" }).click();
    await toasts(page).getByText("Call transferred to 1001").waitFor();
    expect(fake.state.realtimeCalls[callId]?.referTargetUri).toBe("sip:1001@pbx.example.org");
    await card.waitFor({ state: "detached" });

    // The next call: one click.
    const second = await callIn('"Carol" <sip:+15555550777@pbx.example.com>;tag=3');
    const next = cardOf(page, second.callId);
    await next.getByRole("button", { name: "Take over to 1001" }).click();
    await until(() => fake.state.realtimeCalls[second.callId]?.referTargetUri === "sip:1001@pbx.example.org");
    await next.waitFor({ state: "detached" });
  }, 60_000);
});

describe("the assistant's caps", () => {
  test("saved from the assistant dialog; a bad value is refused under its field", async () => {
    const page = await h.signedInPage("/ai-assistants");
    const card = page.getByRole("listitem").filter({ hasText: "Front desk" });
    await card.getByRole("button", { name: "Edit Front desk" }).click();
    const d = page.getByRole("dialog");
    await d.getByRole("heading", { name: "Edit AI Assistant" }).waitFor();
    expect(await field(d, "Cost cap per call (USD)").inputValue()).toBe("");

    await field(d, "Time cap per call (seconds)").fill("10");
    await chooseOption(page, d, "At a cap", "Transfer to an extension");
    await d.getByRole("button", { name: "Save Changes" }).click();
    expect(await errorUnder(d, "Time cap per call (seconds)")).toBe("Time cap per call must be at least 30 seconds");
    await field(d, "Time cap per call (seconds)").fill("300");
    // Transfer at a cap needs its extension (judged once the fields themselves are right).
    await d.getByRole("button", { name: "Save Changes" }).click();
    expect(await errorUnder(d, "Transfer at the cap to")).toBe("Say which extension a capped call is transferred to");

    await field(d, "Cost cap per call (USD)").fill("0.5");
    await field(d, "Daily spend cap (USD)").fill("10");
    await field(d, "Transfer at the cap to").fill("1001");
    await settledDialog(page);
    for (const theme of ["dark", "light"] as const) {
      const p = await h.signedInPage("/ai-assistants", { before: themed(theme) });
      await p
        .getByRole("listitem")
        .filter({ hasText: "Front desk" })
        .getByRole("button", { name: "Edit Front desk" })
        .click();
      await field(p.getByRole("dialog"), "Daily spend cap (USD)").waitFor();
      await settledDialog(p);
      expect({ theme, dialog: true, findings: await seriousFindings(p) }).toEqual({
        theme,
        dialog: true,
        findings: [],
      });
      await p.close();
    }
    await d.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("AI assistant updated successfully").waitFor();

    const saved = (await h.apiJson<AiAssistant[]>("GET", "/api/ai/assistants")).find((a) => a.id === assistantId);
    expect(saved).toMatchObject({
      callCostCapUsd: 0.5,
      callSecondsCap: 300,
      dailySpendCapUsd: 10,
      capAction: "transfer",
      capTransferTo: "1001",
    });
    // The card says what today's calls spent against the daily cap.
    await card.getByTestId("assistant-stats-today").getByText("daily cap", { exact: false }).waitFor();

    // Emptying a cap removes it.
    await card.getByRole("button", { name: "Edit Front desk" }).click();
    expect(await field(d, "Cost cap per call (USD)").inputValue()).toBe("0.5");
    await field(d, "Cost cap per call (USD)").fill("");
    await d.getByRole("button", { name: "Save Changes" }).click();
    await toasts(page).getByText("AI assistant updated successfully").last().waitFor();
    await until(async () => {
      const a = (await h.apiJson<AiAssistant[]>("GET", "/api/ai/assistants")).find((x) => x.id === assistantId);
      return a?.callCostCapUsd === null && a.callSecondsCap === 300;
    });
  }, 60_000);
});

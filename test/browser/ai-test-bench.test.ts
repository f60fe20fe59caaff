// The AI test bench (ADR 0073) through chromium with a fake microphone, against the built binary and the fake
// OpenAI: the page gets a client secret from the console (never the API key), posts its WebRTC offer to the
// configured OpenAI calls URL with that secret, takes the SDP answer, and shows the call's state; a refusal
// reads plainly. The fake answers SDP but carries no media, so the call stays "connecting".
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { type Harness, startHarness, TEST_TIMEOUT } from "./harness";

const fake = await startFakeOpenAi();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    env: { PBX_OPENAI_URL: fake.baseUrl, OPENAI_API_KEY: OPENAI_DEFAULT_KEY },
    chromiumArgs: ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"],
  });
  await h.apiJson("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd.",
    voice: "marin",
    tools: ["transfer_call"],
    extensionId: "1001",
    status: "active",
  });
});
afterEach(async () => {
  await h?.closePages();
  fake.state.clientSecrets = [];
  fake.state.webrtcCalls = [];
  fake.state.rateLimit = null;
  fake.calls.length = 0;
});
afterAll(async () => {
  await h?.stop();
  await fake.stop();
});

/** Every response body the page received, as text (the console's API and pages, and OpenAI's answers). */
function recordBodies(page: Page): string[] {
  const bodies: string[] = [];
  page.on("response", (res) => {
    void res.text().then(
      (t) => bodies.push(t),
      () => {},
    );
  });
  return bodies;
}

async function until(check: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

const openBench = async (page: Page) => {
  await page.getByRole("button", { name: "Talk to Front desk" }).click();
  const dialog = page.getByRole("dialog", { name: "Talk to Front desk" });
  await dialog.waitFor();
  return dialog;
};
const stateBadge = (page: Page) => page.getByRole("status", { name: "Call state" }).locator("[data-state]");

describe("the test bench", () => {
  test(
    "a call: the console mints the secret, the offer goes to the configured URL with it, the answer is taken",
    async () => {
      const page = await h.signedInPage("/ai-assistants");
      const bodies = recordBodies(page);
      const dialog = await openBench(page);
      expect(await stateBadge(page).textContent()).toBe("Not started");
      await dialog.getByRole("button", { name: "Start call" }).click();

      await until(() => fake.state.webrtcCalls.length === 1, "the SDP offer at the fake OpenAI");
      const [minted] = fake.state.clientSecrets;
      const [call] = fake.state.webrtcCalls;
      // The secret the console minted for this assistant, not the API key, opened the call, from the page.
      expect(call?.credential).toEqual({ kind: "client_secret", value: minted?.value ?? "?" });
      expect(call?.origin).toBe(h.baseUrl);
      expect(call?.session).toMatchObject({
        instructions: "You are the receptionist of Example Ltd.",
        audio: { output: { voice: "marin" } },
      });
      expect(call?.offer).toContain("m=audio");
      expect(call?.offer).toContain("webrtc-datachannel");
      const posts = fake.calls.filter((c) => c.method === "POST" && c.path === "/v1/realtime/calls");
      expect(posts.map((c) => c.headers["content-type"])).toEqual(["application/sdp"]);

      // The answer was set (the call's id shows once it is) and the call is connecting, not failed.
      await dialog.getByText(call?.callId ?? "?").waitFor();
      expect(await stateBadge(page).getAttribute("data-state")).toBe("connecting");
      expect(await stateBadge(page).textContent()).toBe("Connecting to OpenAI…");

      // The page received the client secret (from the console) and never the API key.
      await until(() => bodies.some((b) => b.includes(minted?.value ?? "?")), "the mint's answer in the page");
      expect(bodies.filter((b) => b.includes(OPENAI_DEFAULT_KEY))).toEqual([]);

      await dialog.getByRole("button", { name: "Hang up" }).click();
      expect(await stateBadge(page).textContent()).toBe("Call ended");
      await dialog.getByRole("button", { name: "Call again" }).waitFor();
    },
    TEST_TIMEOUT,
  );

  test(
    "OpenAI refusing the mint reads plainly, and no call is opened",
    async () => {
      fake.state.rateLimit = { count: 1, retryAfterSeconds: 20 };
      const page = await h.signedInPage("/ai-assistants");
      const dialog = await openBench(page);
      await dialog.getByRole("button", { name: "Start call" }).click();
      await dialog.getByText(/^OpenAI is rate-limiting requests \(429\): .*retry after 20 s$/).waitFor();
      expect(await stateBadge(page).textContent()).toBe("Call failed");
      expect(fake.state.webrtcCalls).toEqual([]);
      // Tried again once OpenAI lets it: the call opens.
      await dialog.getByRole("button", { name: "Call again" }).click();
      await until(() => fake.state.webrtcCalls.length === 1, "the SDP offer at the fake OpenAI");
    },
    TEST_TIMEOUT,
  );
});

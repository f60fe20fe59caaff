// The console with OpenAI pointed at the fake (`test/fakes/openai.ts`): its key, webhook secret and project,
// signed up, and (when given a list) every event it publishes recorded there. Shared by the AI server tests.
import type { WsEvent } from "../../src/shared/ws-events";
import { OPENAI_DEFAULT_KEY } from "../fakes/openai";
import { startTestServer, type TestServer } from "./server";

export async function startAiServer(
  fake: { baseUrl: string },
  webhookSecret: string,
  published?: WsEvent[],
): Promise<TestServer> {
  const s = await startTestServer({
    PBX_OPENAI_URL: fake.baseUrl,
    OPENAI_API_KEY: OPENAI_DEFAULT_KEY,
    OPENAI_WEBHOOK_SECRET: webhookSecret,
    OPENAI_PROJECT_ID: "proj_test",
  });
  await s.setup();
  if (published) {
    const hub = s.app.events;
    const publish = hub.publish.bind(hub);
    hub.publish = (e: WsEvent) => {
      published.push(e);
      publish(e);
    };
  }
  return s;
}

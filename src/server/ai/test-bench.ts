/**
 * The test bench's credential (ADR 0073): a Realtime client secret minted for one active assistant's session
 * (its model, prompt, voice and tools, as a phone call gets them), for the browser to open a WebRTC call to
 * OpenAI with. The API key stays here; the secret opens only that session and stops working a minute after
 * it is minted, so one copied from the page is worth little.
 */
import { eq } from "drizzle-orm";
import { aiAssistants } from "../../db/schema";
import type { AiClientSecret } from "../../shared/ai/test-bench";
import type { RealtimeSession } from "../clients/openai";
import type { Deps } from "../core/deps";
import { Invalid, NotFound } from "../core/errors";
import { parseId } from "../core/validate";
import { clients } from "../integrations/outside";
import { sessionFor } from "./calls";
import type { AssistantRow } from "./records";
import { TRANSCRIPTION_MODEL } from "./sideband";

/** How long a minted secret can open a call: long enough to allow the microphone and post the offer. */
export const CLIENT_SECRET_TTL_SECONDS = 60;

const WHAT = "AI assistant";

/**
 * The session a phone call to the assistant runs: the one it is accepted with, and the input transcription
 * its sideband turns on (so the bench shows the caller's words as the call's transcript has them).
 */
export function benchSession(row: AssistantRow): RealtimeSession {
  const session = sessionFor(row);
  return { ...session, audio: { ...session.audio, input: { transcription: { model: TRANSCRIPTION_MODEL } } } };
}

/** Mints a client secret for assistant `rawId`: 404 when it does not exist, 400 when inactive or OpenAI is not set up. */
export async function mintTestBenchSecret(
  deps: Pick<Deps, "db" | "config" | "credentials" | "now">,
  rawId: string | undefined,
): Promise<AiClientSecret> {
  const id = parseId(rawId, WHAT);
  const row = deps.db.select().from(aiAssistants).where(eq(aiAssistants.id, id)).get();
  if (!row) throw new NotFound(WHAT);
  if (row.status !== "active") throw new Invalid(`${WHAT} '${row.name}' is inactive: activate it to talk to it`);
  const secret = await clients
    .openai(deps)
    .createClientSecret(benchSession(row), { expiresAfterSeconds: CLIENT_SECRET_TTL_SECONDS });
  return {
    value: secret.value,
    expiresAt: new Date(secret.expiresAt * 1000).toISOString(),
    callsUrl: `${deps.config.endpoints.openai}/realtime/calls`,
  };
}

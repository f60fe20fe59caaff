/**
 * Telegram's Bot API: `POST <base>/bot<token>/sendMessage` with `{chat_id, text}`, answered
 * `{ok: true, result}` or `{ok: false, error_code, description, parameters?: {retry_after}}` (401 for a token
 * Telegram does not accept, 404 for one it cannot read, 400 for a chat it does not know, 403 when the bot
 * was blocked or removed, 429 with `retry_after` seconds). The base URL is PBX_TELEGRAM_URL.
 *
 * The bot token is in the URL's path: it is redacted from every message, and the URL itself is never put
 * into one (a network failure names the host only).
 */
import { expectJson, httpRequest, isObject, redact, ServiceError } from "./http";

const SERVICE = "Telegram";

/** Telegram's longest message text. */
export const TELEGRAM_TEXT_MAX = 4096;

interface TelegramError {
  ok?: boolean;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

/** Sends a plain-text message to a chat; a refusal is a ServiceError saying what Telegram meant. */
export async function sendTelegramMessage(
  baseUrl: string,
  botToken: string,
  chatId: string,
  text: string,
  signal?: AbortSignal,
): Promise<{ messageId: number | null }> {
  let answer: TelegramError | undefined;
  let result: Awaited<ReturnType<typeof httpRequest>>;
  try {
    result = await httpRequest({
      service: SERVICE,
      method: "POST",
      url: `${baseUrl}/bot${botToken}/sendMessage`,
      body: { chat_id: chatId, text: text.slice(0, TELEGRAM_TEXT_MAX), link_preview_options: { is_disabled: true } },
      signal,
      secrets: [botToken],
      errorMessage: (body) => {
        answer = isObject(body) ? (body as TelegramError) : undefined;
        return answer?.description;
      },
    });
  } catch (err) {
    if (!(err instanceof ServiceError) || err.status === undefined) throw err;
    throw new ServiceError(SERVICE, refusal(err.status, answer, botToken), err.status);
  }
  const body = expectJson<{ ok?: boolean; result?: { message_id?: number } }>(SERVICE, result, isObject);
  if (body.ok !== true) throw new ServiceError(SERVICE, "Telegram did not confirm the message (ok is not true)");
  return { messageId: typeof body.result?.message_id === "number" ? body.result.message_id : null };
}

function refusal(status: number, answer: TelegramError | undefined, botToken: string): string {
  // Telegram's own text, which never holds the token; cut and cleaned all the same.
  const said = redact(answer?.description ?? "", [botToken]).slice(0, 200);
  const detail = said ? `: ${said}` : "";
  if (status === 401) return `Telegram refused the bot token (401${detail}). Check the token from @BotFather`;
  if (status === 404) return `Telegram does not know this bot token (404${detail}). Check the token from @BotFather`;
  if (status === 429) {
    const wait = answer?.parameters?.retry_after;
    return `Telegram is rate-limiting messages (429)${typeof wait === "number" ? `: retry after ${wait} s` : detail}`;
  }
  if (status === 403) return `Telegram refused to deliver to the chat (403${detail}). Add the bot to the chat again`;
  if (status === 400) return `Telegram refused the message (400${detail}). Check the chat ID`;
  return `Telegram answered ${status}${detail}`;
}

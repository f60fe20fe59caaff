/**
 * Fake Telegram Bot API (reference: core.telegram.org/bots/api, "Making requests" and `sendMessage`):
 * `https://api.telegram.org/bot<token>/<method>`, GET or POST, parameters as a query string, a form or JSON.
 * Every answer is JSON `{ok: true, result}` or `{ok: false, error_code, description, parameters?}`:
 *
 * - a token Telegram cannot read (not `<digits>:<35+ characters>`), an unknown method: 404 "Not Found"
 * - a well-formed token of no bot: 401 "Unauthorized"
 * - `sendMessage` without `chat_id`: 400 "Bad Request: chat_id is empty"; without text: 400 "Bad Request:
 *   message text is empty"; longer than 4096: 400 "Bad Request: message is too long"; a chat the bot is not
 *   in: 400 "Bad Request: chat not found"; a chat that blocked the bot: 403 "Forbidden: bot was blocked by
 *   the user"
 * - flood control: 429 "Too Many Requests: retry after N" with `parameters.retry_after` N (`state.floodWait`)
 *
 * Also `getMe`. The base URL is the origin (like https://api.telegram.org); the token is in the path only.
 */
import {
  type CommonOptions,
  type CommonState,
  type FakeRequest,
  type FakeServer,
  INVALID,
  isObject,
  json,
  parseJsonBody,
  startFake,
} from "./common";

export const TELEGRAM_TEST_TOKEN = "7000000001:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0";

export interface TelegramChat {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  /** `@name` of a public channel, if any. */
  username?: string;
  blocked?: boolean;
}

export interface TelegramSent {
  token: string;
  chatId: number;
  text: string;
  at: number;
}

export interface TelegramState extends CommonState {
  /** token → the bot's chats by id. */
  bots: Map<string, { id: number; username: string; chats: TelegramChat[] }>;
  sent: TelegramSent[];
  /** When set, every call is answered 429 with this many seconds to wait. */
  floodWait: number | null;
}

const fail = (status: number, description: string, parameters?: Record<string, unknown>) =>
  json(status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

function params(req: FakeRequest): Record<string, unknown> | typeof INVALID {
  const out: Record<string, unknown> = Object.fromEntries(req.params);
  const type = req.headers.get("content-type") ?? "";
  if (req.rawBody === "") return out;
  if (type.includes("application/json")) {
    const body = parseJsonBody(req.rawBody);
    return body === INVALID || !isObject(body) ? INVALID : { ...out, ...body };
  }
  if (type.includes("application/x-www-form-urlencoded"))
    return { ...out, ...Object.fromEntries(new URLSearchParams(req.rawBody)) };
  return out;
}

export function startFakeTelegram(
  options: CommonOptions & { token?: string; chats?: TelegramChat[] } = {},
): FakeServer<TelegramState> & { token: string } {
  const token = options.token ?? TELEGRAM_TEST_TOKEN;
  const state: TelegramState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    bots: new Map([
      [
        token,
        {
          id: Number(token.split(":")[0]),
          username: "pbx_alerts_bot",
          chats: options.chats ?? [{ id: -1001234567890, type: "supergroup" }],
        },
      ],
    ]),
    sent: [],
    floodWait: null,
  };
  let messageId = 0;

  function handle(req: FakeRequest): Response {
    const m = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(req.path);
    if (!m || !/^\d+:[A-Za-z0-9_-]{35,}$/.test(m[1] as string)) return fail(404, "Not Found");
    if (req.method !== "GET" && req.method !== "POST") return fail(404, "Not Found");
    const bot = state.bots.get(m[1] as string);
    if (!bot) return fail(401, "Unauthorized");
    if (state.floodWait !== null)
      return fail(429, `Too Many Requests: retry after ${state.floodWait}`, { retry_after: state.floodWait });
    const p = params(req);
    if (p === INVALID) return fail(400, "Bad Request: can't parse JSON object");
    const me = { id: bot.id, is_bot: true, first_name: "PBX alerts", username: bot.username };
    switch (m[2]) {
      case "getMe":
        return json(200, { ok: true, result: me });
      case "sendMessage": {
        const chatId = p.chat_id === undefined || p.chat_id === "" ? null : String(p.chat_id);
        if (chatId === null) return fail(400, "Bad Request: chat_id is empty");
        const text = typeof p.text === "string" ? p.text : "";
        if (text.trim() === "") return fail(400, "Bad Request: message text is empty");
        if (text.length > 4096) return fail(400, "Bad Request: message is too long");
        const chat = bot.chats.find((c) => String(c.id) === chatId || (c.username && `@${c.username}` === chatId));
        if (!chat) return fail(400, "Bad Request: chat not found");
        if (chat.blocked) return fail(403, "Forbidden: bot was blocked by the user");
        state.sent.push({ token: m[1] as string, chatId: chat.id, text, at: Date.now() });
        return json(200, {
          ok: true,
          result: {
            message_id: ++messageId,
            from: me,
            chat: { id: chat.id, type: chat.type, ...(chat.username ? { username: chat.username } : {}) },
            date: Math.floor(Date.now() / 1000),
            text,
          },
        });
      }
      default:
        return fail(404, "Not Found");
    }
  }

  return { ...startFake(state, "", handle), token };
}

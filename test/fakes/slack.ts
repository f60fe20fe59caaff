/**
 * Fake Slack incoming webhooks (reference: Slack's "Sending messages using incoming webhooks" and its
 * changelog of incoming-webhook errors, 2016-05-17): `POST https://hooks.slack.com/services/T…/B…/<token>`
 * with a JSON body `{text, blocks?}`. Success is `200` with the plain-text body `ok`. Failures are an HTTP
 * status with a short plain-text error code:
 *
 * - 400 `invalid_payload` (not JSON / not an object), `no_text` (neither `text` nor `blocks`),
 *   `invalid_blocks` (`blocks` not a list of objects with a `type`)
 * - 403 `action_prohibited` (the workspace forbids it: `hook.prohibited`)
 * - 404 `no_service` (no such webhook: unknown or revoked URL)
 * - 410 `channel_is_archived` (`hook.archived`)
 * - 429 `rate_limited` with `Retry-After` (seconds) past `limitPerSecond` messages in one second on one hook
 *   (Slack allows about one a second, with short bursts)
 *
 * The fake's own choices (not documented): 405 `invalid_method` for other methods; `text/html` as the
 * content type of every answer, as Slack sends it.
 */
import {
  type CommonOptions,
  type CommonState,
  type FakeRequest,
  type FakeServer,
  INVALID,
  isObject,
  parseJsonBody,
  randomHex,
  startFake,
} from "./common";

export interface SlackHook {
  /** The channel it posts to (for the test to read). */
  channel: string;
  archived: boolean;
  prohibited: boolean;
}

export interface SlackMessageReceived {
  /** "T…/B…/<token>" */
  hook: string;
  channel: string;
  text: string | null;
  blocks: unknown[] | null;
  rawBody: string;
  at: number;
}

export interface SlackState extends CommonState {
  /** "T…/B…/<token>" → the hook. Revoke one by deleting it. */
  hooks: Map<string, SlackHook>;
  messages: SlackMessageReceived[];
  /** Messages one hook takes in any second before 429 (default: no limit). */
  limitPerSecond: number | null;
  /** Retry-After sent with a 429 (seconds). */
  retryAfterSeconds: number;
}

export interface FakeSlack extends FakeServer<SlackState> {
  /** A new webhook and its URL (`<origin>/services/T…/B…/<token>`). */
  addWebhook(hook?: Partial<SlackHook>): { url: string; path: string };
}

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "text/html", ...headers } });

export function startFakeSlack(options: CommonOptions & { limitPerSecond?: number } = {}): FakeSlack {
  const state: SlackState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    hooks: new Map(),
    messages: [],
    limitPerSecond: options.limitPerSecond ?? null,
    retryAfterSeconds: 1,
  };
  const recent = new Map<string, number[]>();

  function handle(req: FakeRequest): Response {
    const m = /^\/services\/(T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+)$/.exec(req.path);
    const hook = m ? state.hooks.get(m[1] as string) : undefined;
    if (!m || !hook) return text(404, "no_service");
    if (req.method !== "POST") return text(405, "invalid_method");
    const key = m[1] as string;
    if (state.limitPerSecond !== null) {
      const now = Date.now();
      const times = (recent.get(key) ?? []).filter((t) => now - t < 1000);
      recent.set(key, times);
      if (times.length >= state.limitPerSecond)
        return text(429, "rate_limited", { "retry-after": String(state.retryAfterSeconds) });
      times.push(now);
    }
    const body = parseJsonBody(req.rawBody);
    if (body === INVALID || !isObject(body)) return text(400, "invalid_payload");
    const hasText = typeof body.text === "string" && body.text.trim() !== "";
    if (
      body.blocks !== undefined &&
      (!Array.isArray(body.blocks) || !body.blocks.every((b) => isObject(b) && typeof b.type === "string"))
    )
      return text(400, "invalid_blocks");
    if (!hasText && !Array.isArray(body.blocks)) return text(400, "no_text");
    if (hook.prohibited) return text(403, "action_prohibited");
    if (hook.archived) return text(410, "channel_is_archived");
    state.messages.push({
      hook: key,
      channel: hook.channel,
      text: hasText ? (body.text as string) : null,
      blocks: Array.isArray(body.blocks) ? body.blocks : null,
      rawBody: req.rawBody,
      at: Date.now(),
    });
    return text(200, "ok");
  }

  const server = startFake(state, "", handle);
  return {
    ...server,
    addWebhook(hook = {}) {
      const path = `T${randomHex(4).toUpperCase()}/B${randomHex(5).toUpperCase()}/${randomHex(12)}`;
      state.hooks.set(path, { channel: "#alerts", archived: false, prohibited: false, ...hook });
      return { url: `${server.url}/services/${path}`, path };
    },
  };
}

/**
 * The fake OpenAI's Realtime session in text mode (`/v1/realtime?model=<model>` without `call_id`, bearer auth):
 * what the assistants' scripted tests talk to (ADR 0072). A scripted, deterministic model stands in for the real
 * one: a function of (instructions, tools, conversation so far, latest user text) that answers text or a function
 * call. The default, `rulesModel`, reads simple rules from the instructions, so a prompt change changes what it
 * does:
 *   - "Billing questions go to extension 2001." → a user text containing "billing" calls
 *     `transfer_call {extension: "2001"}` (when the session offers that tool);
 *   - "End the call when the caller says goodbye." → a user text containing "bye" calls `end_call`;
 *   - "Take messages for Alice." → a user text containing "message" calls `take_message` for Alice;
 *   - otherwise `Reply "…".` lines are said when their first word is in the user's text, else
 *     "How can I help you today?"; after a tool's output it says what it did.
 *
 * Events follow the GA Realtime API, each checked against the official SDK's `RealtimeServerEvent` type:
 * `session.updated`, `conversation.item.added`, `response.created`, `response.output_item.added`,
 * `response.output_text.delta`/`.done`, `response.function_call_arguments.done`, `response.output_item.done`,
 * `response.done` (with `usage`), `error`. With `textOnly` set, a `session.update` that is not text-only
 * (`output_modalities` other than `["text"]`, or audio output configured) is refused with an `error` event, as a
 * test of the runner's session config. Not in the reference, chosen here: the `resp_…`/`item_…`/`event_…` id
 * formats, the token counts (words), and a failed response's `server_error`.
 */
import type { ServerWebSocket } from "bun";
import type { ConversationItem, RealtimeResponseUsage, RealtimeServerEvent } from "openai/resources/realtime/realtime";
import { isObject, randomHex } from "./common";

/** One entry of the conversation as the model sees it. */
export type TextModelItem =
  | { kind: "user" | "assistant"; text: string }
  | { kind: "call"; name: string; args: Record<string, unknown>; callId: string }
  | { kind: "output"; callId: string; output: string };

export interface TextModelInput {
  instructions: string;
  /** The function tools the session offers, by name. */
  tools: string[];
  conversation: TextModelItem[];
  /** The newest user message's text ("" when none). */
  latestUserText: string;
  /** The newest item is a tool's output: the model goes on after its call. */
  afterToolOutput: boolean;
}

export type TextModelReply =
  | { text: string }
  | { call: { name: string; args: Record<string, unknown> } }
  /** The response fails (`response.done` with status `failed` and this message). */
  | { fail: string }
  /** No answer at all (the runner's deadline is what ends it). */
  | { hang: true };

export type TextModel = (input: TextModelInput) => TextModelReply;

/** The default model: rules read from the instructions (see the header). */
export const rulesModel: TextModel = (input) => {
  const user = input.latestUserText.toLowerCase();
  const prompt = input.instructions;
  const last = input.conversation.at(-1);
  if (input.afterToolOutput) {
    const call = [...input.conversation].reverse().find((i) => i.kind === "call");
    if (call?.kind === "call" && call.name === "transfer_call")
      return { text: `Transferring you to extension ${String(call.args.extension)} now.` };
    if (call?.kind === "call" && call.name === "end_call") return { text: "Goodbye!" };
    return { text: "Done. Anything else?" };
  }
  if (last?.kind !== "user") return { text: "How can I help you today?" };
  if (input.tools.includes("transfer_call"))
    for (const m of prompt.matchAll(/\b([A-Za-z]+) (?:questions|calls) go to extension ([0-9*#]+)/gi)) {
      if (user.includes((m[1] as string).toLowerCase()))
        return { call: { name: "transfer_call", args: { extension: m[2] } } };
    }
  if (
    input.tools.includes("end_call") &&
    /end the call when the caller says goodbye/i.test(prompt) &&
    /\bbye\b|goodbye/.test(user)
  )
    return { call: { name: "end_call", args: {} } };
  const msg = /take messages for ([A-Za-z]+)/i.exec(prompt);
  if (msg && input.tools.includes("take_message") && user.includes("message"))
    return { call: { name: "take_message", args: { recipient: msg[1], message: input.latestUserText } } };
  for (const m of prompt.matchAll(/Reply "([^"]+)"/g)) {
    const first = (m[1] as string).split(/\W+/)[0]?.toLowerCase() ?? "";
    if (first && user.includes(first)) return { text: m[1] as string };
  }
  return { text: "How can I help you today?" };
};

/** One text-mode connection as the fake holds it. */
export interface FakeTextSession {
  model: string;
  /** The last accepted `session.update`'s session. */
  session: Record<string, unknown> | null;
  /** Client events as received, parsed, in order. */
  received: Array<Record<string, unknown>>;
  conversation: TextModelItem[];
  open: boolean;
}

export interface TextSocketData {
  text?: FakeTextSession;
}

/** The text sessions of one fake OpenAI (see the header); a test sets `model`, `textOnly`, `mode`. */
export interface FakeTextModels {
  model: TextModel;
  /** Refuse a `session.update` that is not text-only (default false). */
  textOnly: boolean;
  /** "refuse" answers upgrades 503 (the service is down). */
  mode: "open" | "refuse";
  /** Every text session opened, in order. */
  sessions: FakeTextSession[];
  openSessions(): number;
}

type ServerEventOf<T extends RealtimeServerEvent["type"]> = Extract<RealtimeServerEvent, { type: T }>;

const eventId = () => `event_${randomHex(8)}`;

const usageOf = (inText: string, outText: string): RealtimeResponseUsage => {
  const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
  const input = words(inText) + 10;
  const output = Math.max(1, words(outText));
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    input_token_details: { text_tokens: input, audio_tokens: 0, cached_tokens: 0, image_tokens: 0 },
    output_token_details: { text_tokens: output, audio_tokens: 0 },
  };
};

/** The text-mode side of the fake: its state, and the upgrade and socket handlers `openai.ts` delegates to. */
export function fakeTextModels(knownModel: (id: string) => boolean) {
  const sockets = new Set<ServerWebSocket<TextSocketData>>();
  const models: FakeTextModels = {
    model: rulesModel,
    textOnly: false,
    mode: "open",
    sessions: [],
    openSessions: () => sockets.size,
  };

  const send = (ws: ServerWebSocket<TextSocketData>, event: RealtimeServerEvent): void => {
    ws.send(JSON.stringify(event));
  };

  const refuse = (
    ws: ServerWebSocket<TextSocketData>,
    message: string,
    param: string | null,
    code: string,
    clientEventId?: unknown,
  ): void =>
    send(ws, {
      type: "error",
      event_id: eventId(),
      error: {
        type: "invalid_request_error",
        code,
        message,
        param,
        event_id: typeof clientEventId === "string" ? clientEventId : null,
      },
    } satisfies ServerEventOf<"error">);

  /** Why a session config is refused, or null. */
  const sessionProblem = (session: Record<string, unknown>): [string, string] | null => {
    if (session.type !== "realtime") return ["Missing required parameter: 'session.type'.", "session.type"];
    if (!models.textOnly) return null;
    const om = session.output_modalities;
    if (!(Array.isArray(om) && om.length === 1 && om[0] === "text"))
      return ["This session is text-only: 'session.output_modalities' must be ['text'].", "session.output_modalities"];
    const audio = session.audio;
    if (isObject(audio) && audio.output !== undefined)
      return ["This session is text-only: 'session.audio.output' must not be set.", "session.audio.output"];
    return null;
  };

  function respond(ws: ServerWebSocket<TextSocketData>, s: FakeTextSession) {
    const responseId = `resp_${randomHex(8)}`;
    const session = s.session ?? {};
    const tools = Array.isArray(session.tools) ? session.tools.filter(isObject).map((t) => String(t.name ?? "")) : [];
    const latestUser = [...s.conversation].reverse().find((i) => i.kind === "user");
    const reply = models.model({
      instructions: typeof session.instructions === "string" ? session.instructions : "",
      tools,
      conversation: [...s.conversation],
      latestUserText: latestUser?.kind === "user" ? latestUser.text : "",
      afterToolOutput: s.conversation.at(-1)?.kind === "output",
    });
    send(ws, {
      type: "response.created",
      event_id: eventId(),
      response: {
        id: responseId,
        object: "realtime.response",
        status: "in_progress",
        output: [],
        output_modalities: ["text"],
      },
    } satisfies ServerEventOf<"response.created">);
    if ("hang" in reply) return;
    const prompt = s.conversation.map((i) => ("text" in i ? i.text : "")).join(" ");
    if ("fail" in reply) {
      send(ws, {
        type: "response.done",
        event_id: eventId(),
        response: {
          id: responseId,
          object: "realtime.response",
          status: "failed",
          status_details: {
            type: "failed",
            error: { type: "server_error", code: "server_error", message: reply.fail },
          },
          output: [],
          usage: usageOf(prompt, ""),
        },
      } satisfies ServerEventOf<"response.done">);
      return;
    }
    const itemId = `item_${randomHex(8)}`;
    let item: ConversationItem;
    if ("text" in reply) {
      item = {
        id: itemId,
        object: "realtime.item",
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: reply.text }],
      };
      send(ws, {
        type: "response.output_item.added",
        event_id: eventId(),
        response_id: responseId,
        output_index: 0,
        item: { ...item, status: "in_progress", content: [] },
      } satisfies ServerEventOf<"response.output_item.added">);
      send(ws, {
        type: "response.output_text.delta",
        event_id: eventId(),
        response_id: responseId,
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        delta: reply.text,
      } satisfies ServerEventOf<"response.output_text.delta">);
      send(ws, {
        type: "response.output_text.done",
        event_id: eventId(),
        response_id: responseId,
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        text: reply.text,
      } satisfies ServerEventOf<"response.output_text.done">);
      s.conversation.push({ kind: "assistant", text: reply.text });
    } else {
      const callId = `call_${randomHex(8)}`;
      const args = JSON.stringify(reply.call.args);
      item = {
        id: itemId,
        object: "realtime.item",
        type: "function_call",
        status: "completed",
        call_id: callId,
        name: reply.call.name,
        arguments: args,
      };
      send(ws, {
        type: "response.output_item.added",
        event_id: eventId(),
        response_id: responseId,
        output_index: 0,
        item: { ...item, status: "in_progress", arguments: "" },
      } satisfies ServerEventOf<"response.output_item.added">);
      send(ws, {
        type: "response.function_call_arguments.done",
        event_id: eventId(),
        response_id: responseId,
        item_id: itemId,
        output_index: 0,
        call_id: callId,
        name: reply.call.name,
        arguments: args,
      } satisfies ServerEventOf<"response.function_call_arguments.done">);
      s.conversation.push({ kind: "call", name: reply.call.name, args: reply.call.args, callId });
    }
    send(ws, {
      type: "response.output_item.done",
      event_id: eventId(),
      response_id: responseId,
      output_index: 0,
      item,
    } satisfies ServerEventOf<"response.output_item.done">);
    send(ws, {
      type: "response.done",
      event_id: eventId(),
      response: {
        id: responseId,
        object: "realtime.response",
        status: "completed",
        output: [item],
        output_modalities: ["text"],
        usage: usageOf(prompt, "text" in reply ? reply.text : JSON.stringify(reply.call.args)),
      },
    } satisfies ServerEventOf<"response.done">);
  }

  /** A text-mode upgrade (already authenticated by the caller): 404 for an unknown model, 503 when refusing. */
  function upgrade(
    request: Request,
    srv: import("bun").Server<TextSocketData>,
    url: URL,
    error: (status: number, message: string, code: string | null) => Response,
  ): Response | undefined {
    const model = url.searchParams.get("model") ?? "";
    if (!model) return error(400, "Missing required parameter: 'model'.", "missing_required_parameter");
    if (!knownModel(model))
      return error(404, `The model '${model}' does not exist or you do not have access to it.`, "model_not_found");
    if (models.mode === "refuse") return error(503, "The server is overloaded.", null);
    const text: FakeTextSession = { model, session: null, received: [], conversation: [], open: false };
    return srv.upgrade(request, { data: { text } }) ? undefined : new Response("upgrade failed", { status: 400 });
  }

  const handlers = {
    open(ws: ServerWebSocket<TextSocketData>) {
      const s = ws.data.text as FakeTextSession;
      s.open = true;
      sockets.add(ws);
      models.sessions.push(s);
      send(ws, {
        type: "session.created",
        event_id: eventId(),
        session: { type: "realtime", model: s.model, output_modalities: ["audio"] },
      } satisfies ServerEventOf<"session.created">);
    },
    message(ws: ServerWebSocket<TextSocketData>, message: string | Buffer): void {
      const s = ws.data.text as FakeTextSession;
      let event: unknown;
      try {
        event = JSON.parse(String(message));
      } catch {
        refuse(ws, "Invalid JSON", null, "invalid_json");
        return;
      }
      if (!isObject(event)) return;
      s.received.push(event);
      switch (event.type) {
        case "session.update": {
          const session = isObject(event.session) ? event.session : {};
          const problem = sessionProblem(session);
          if (problem) {
            refuse(ws, problem[0], problem[1], "invalid_value", event.event_id);
            return;
          }
          s.session = { ...(s.session ?? {}), ...session };
          send(ws, {
            type: "session.updated",
            event_id: eventId(),
            session: s.session as unknown as ServerEventOf<"session.updated">["session"],
          } satisfies ServerEventOf<"session.updated">);
          return;
        }
        case "conversation.item.create": {
          const item = isObject(event.item) ? event.item : {};
          const id = typeof item.id === "string" ? item.id : `item_${randomHex(8)}`;
          if (item.type === "message" && item.role === "user" && Array.isArray(item.content)) {
            const text = item.content
              .filter(isObject)
              .map((p) => (p.type === "input_text" && typeof p.text === "string" ? p.text : ""))
              .join(" ");
            s.conversation.push({ kind: "user", text });
          } else if (item.type === "function_call_output" && typeof item.call_id === "string") {
            s.conversation.push({ kind: "output", callId: item.call_id, output: String(item.output ?? "") });
          } else {
            refuse(ws, "Invalid 'item': unsupported item.", "item", "invalid_value", event.event_id);
            return;
          }
          send(ws, {
            type: "conversation.item.added",
            event_id: eventId(),
            item: { ...(item as unknown as ConversationItem), id },
          } satisfies ServerEventOf<"conversation.item.added">);
          return;
        }
        case "response.create":
          respond(ws, s);
          return;
        default:
          return;
      }
    },
    close(ws: ServerWebSocket<TextSocketData>) {
      const s = ws.data.text;
      if (s) s.open = false;
      sockets.delete(ws);
    },
  };

  return { models, upgrade, handlers };
}

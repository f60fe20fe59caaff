// Pure pieces of the AI voice work: SIP header parsing, refer targets, webhook verification, display helpers.
import { describe, expect, test } from "bun:test";
import { referTarget } from "../../src/server/ai/calls";
import { conditionsMatch } from "../../src/server/ai/rule-evaluator";
import { calledNumberOf, parseSipAddress } from "../../src/server/ai/sip";
import { verifyStandardWebhook } from "../../src/server/clients/dialer";
import { gaVoice } from "../../src/shared/ai/assistants";
import { formatDuration, jsonEntries } from "../../src/web/features/ai/format";
import { generateWebhookSecret, webhookHeaders } from "../fakes/openai";

describe("SIP addresses", () => {
  test("name-addr, bare URIs, tel:, params and ports", () => {
    expect(parseSipAddress('"Caller" <sip:+15555550100@pbx.example.com:5061;transport=tls>;tag=ab')).toEqual({
      user: "+15555550100",
      host: "pbx.example.com",
    });
    expect(parseSipAddress("sip:1001@10.0.0.5;tag=x")).toEqual({ user: "1001", host: "10.0.0.5" });
    expect(parseSipAddress("<tel:+442071234567;phone-context=x>")).toEqual({ user: "+442071234567", host: null });
    expect(parseSipAddress("<sips:%2B1555@[2001:db8::1]>")).toEqual({ user: "+1555", host: "[2001:db8::1]" });
    expect(parseSipAddress("Anonymous")).toEqual({ user: null, host: null });
    expect(parseSipAddress(null)).toEqual({ user: null, host: null });
  });

  test("the called number: X-Called-Number first, then To; never the project id; compact headers", () => {
    const to = (v: string) => ({ name: "To", value: v });
    expect(calledNumberOf([to("<sip:1001@sip.api.openai.com>")])).toBe("1001");
    expect(calledNumberOf([{ name: "t", value: "<sip:1002@x>" }])).toBe("1002");
    expect(calledNumberOf([to("<sip:proj_abc@sip.api.openai.com>")])).toBeNull();
    expect(
      calledNumberOf([to("<sip:proj_abc@sip.api.openai.com>"), { name: "x-called-number", value: "+15551234567" }]),
    ).toBe("+15551234567");
    expect(calledNumberOf([{ name: "X-Called-Number", value: "<sip:2000@pbx>" }, to("<sip:1001@x>")])).toBe("2000");
  });

  test("refer targets per action; explicit URIs must be tel: or sip:", () => {
    expect(referTarget("route_to_extension", { extensionId: "200" }, "pbx.example.com")).toBe(
      "sip:200@pbx.example.com",
    );
    expect(referTarget("route_to_extension", { extension: 201, host: "10.0.0.2:5060" }, null)).toBe(
      "sip:201@10.0.0.2:5060",
    );
    expect(referTarget("send_voicemail", { extensionId: "200" }, "pbx")).toBe("sip:*200@pbx");
    expect(referTarget("route_to_ivr", { number: "7000" }, "pbx")).toBe("sip:7000@pbx");
    expect(referTarget("route_to_extension", { extensionId: "+15550001" }, null)).toBe("tel:+15550001");
    expect(referTarget("route_to_extension", { extensionId: "200" }, null)).toBeNull();
    expect(referTarget("route_to_extension", { extensionId: "200; drop" }, "pbx")).toBeNull();
    expect(referTarget("route_to_extension", { targetUri: "sip:desk@pbx.example.com" }, null)).toBe(
      "sip:desk@pbx.example.com",
    );
    expect(referTarget("route_to_extension", { targetUri: "http://evil" }, "pbx")).toBeNull();
  });
});

describe("verifyStandardWebhook", () => {
  const secret = generateWebhookSecret();
  const body = '{"type":"realtime.call.incoming"}';
  const now = 1_800_000_000;
  const headers = (h: Record<string, string>) => new Headers(h);

  test("accepts the fake's signature within the tolerance, either side", () => {
    for (const ts of [now, now - 300, now + 300])
      expect(verifyStandardWebhook(secret, headers(webhookHeaders(secret, "wh_1", ts, body)), body, now)).toEqual({
        ok: true,
        id: "wh_1",
        timestamp: ts,
      });
  });

  test("refuses stale, malformed, unsigned and wrongly signed deliveries", () => {
    const ok = webhookHeaders(secret, "wh_1", now, body);
    const reason = (h: Record<string, string>, b = body) => {
      const r = verifyStandardWebhook(secret, headers(h), b, now);
      return r.ok ? "ok" : r.reason;
    };
    expect(reason(webhookHeaders(secret, "wh_1", now - 301, body))).toBe("stale_timestamp");
    expect(reason({ ...ok, "webhook-timestamp": "soon" })).toBe("bad_timestamp");
    expect(reason({ "webhook-id": "wh_1", "webhook-timestamp": String(now) })).toBe("missing_headers");
    expect(reason(ok, `${body} `)).toBe("bad_signature");
    expect(reason({ ...ok, "webhook-id": "wh_2" })).toBe("bad_signature");
    expect(reason({ ...ok, "webhook-signature": ok["webhook-signature"]?.replace("v1,", "v2,") ?? "" })).toBe(
      "bad_signature",
    );
    expect(reason(webhookHeaders(generateWebhookSecret(), "wh_1", now, body))).toBe("bad_signature");
  });
});

describe("display and matching helpers", () => {
  test("durations are m:ss, unknown is N/A", () => {
    expect([0, 5, 59, 60, 125, 3600].map(formatDuration)).toEqual(["0:00", "0:05", "0:59", "1:00", "2:05", "60:00"]);
    expect(formatDuration(null)).toBe("N/A");
  });

  test("conditions: case-insensitive keys and values, lists, missing facts, {}", () => {
    expect(conditionsMatch({ Sentiment: "Negative" }, { sentiment: "negative" })).toBe(true);
    expect(conditionsMatch({ sentiment: ["angry", "negative"] }, { sentiment: "NEGATIVE" })).toBe(true);
    expect(conditionsMatch({ sentiment: "negative" }, {})).toBe(false);
    expect(conditionsMatch({ sentiment: { a: 1 } }, { sentiment: "negative" })).toBe(false);
    expect(conditionsMatch({}, {})).toBe(true);
  });

  test("invalid JSON shows as empty; GA voices for the legacy ones", () => {
    expect(jsonEntries("{oops")).toEqual([]);
    expect(jsonEntries("[1]")).toEqual([]);
    expect(jsonEntries('{"a":"b","n":2}')).toEqual([
      ["a", "b"],
      ["n", "2"],
    ]);
    expect(["alloy", "echo", "fable", "onyx", "nova", "shimmer", "marin"].map(gaVoice)).toEqual([
      "alloy",
      "echo",
      "ballad",
      "ash",
      "coral",
      "shimmer",
      "marin",
    ]);
  });
});

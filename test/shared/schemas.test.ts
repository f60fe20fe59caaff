import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import * as assistants from "../../src/shared/ai/assistants";
import * as routingRules from "../../src/shared/ai/routing-rules";
import * as inventory from "../../src/shared/inventory";

const s = { ...inventory, ...assistants, ...routingRules };

/** The first message zod gives for `field`, or undefined when the input is valid. */
function errorFor(schema: z.ZodType, input: unknown, field: string): string | undefined {
  const r = schema.safeParse(input);
  if (r.success) return undefined;
  return r.error.issues.find((i) => i.path.join(".") === field)?.message ?? r.error.issues[0]?.message;
}

const ext = { extension: "1001", name: "Front desk" };
const trunk = { name: "Telnyx", type: "sip", host: "sip.telnyx.com" };

describe("length limits of the inventory and AI fields", () => {
  const cases: [string, z.ZodType, Record<string, unknown>, string, number][] = [
    ["extension number", s.extensionSchema, ext, "extension", 10],
    // FreePBX's devices.description / users.name hold 50 (the deploy's limit, one rule).
    ["extension name", s.extensionSchema, ext, "name", 50],
    ["extension position", s.extensionSchema, ext, "position", 100],
    ["extension personal phone", s.extensionSchema, ext, "personalPhone", 20],
    ["extension secret", s.extensionSchema, ext, "secret", 255],
    ["trunk name", s.trunkSchema, trunk, "name", 50],
    ["trunk host", s.trunkSchema, trunk, "host", 255],
    ["trunk username", s.trunkSchema, { ...trunk, secret: "s3cret-s3cret" }, "username", 100],
    ["trunk from user", s.trunkSchema, trunk, "fromUser", 100],
    ["trunk contact user", s.trunkSchema, trunk, "contactUser", 100],
    [
      "inbound description",
      s.inboundRouteSchema,
      { description: "d", destination: "1001", destinationType: "extension" },
      "description",
      80,
    ],
    [
      "inbound DID",
      s.inboundRouteSchema,
      { description: "d", destination: "1001", destinationType: "extension" },
      "didNumber",
      20,
    ],
    ["outbound name", s.outboundRouteSchema, { name: "o", dialPatterns: ["9X."], trunkId: 1 }, "name", 40],
    ["PTT name", s.pttGroupSchema, { name: "p", extension: "8000", members: ["1001"] }, "name", 50],
    ["PTT extension", s.pttGroupSchema, { name: "p", extension: "8000", members: ["1001"] }, "extension", 10],
  ];
  for (const [label, schema, base, field, max] of cases) {
    test(`${label}: ${max} accepted, ${max + 1} refused`, () => {
      const fill =
        field === "extension" || field === "didNumber" || field === "personalPhone"
          ? "1"
          : field === "host"
            ? "a."
            : "a";
      const value = (n: number) => fill.repeat(n).slice(0, n);
      expect(errorFor(schema, { ...base, [field]: value(max) }, field)).toBeUndefined();
      expect(errorFor(schema, { ...base, [field]: value(max + 1) }, field)).toMatch(`at most ${max}`);
    });
  }
});

describe("enums and validation rules", () => {
  test("trunk type is sip, iax or dahdi; authType defaults to outbound", () => {
    expect(errorFor(s.trunkSchema, { ...trunk, type: "pjsip" }, "type")).toBe("Type must be sip, iax or dahdi");
    expect(s.trunkSchema.parse({ ...trunk, username: "u", secret: "s" }).authType).toBe("outbound");
    expect(errorFor(s.trunkSchema, { ...trunk, authType: "any" }, "authType")).toBeDefined();
  });

  test("extension: digits only, optional email must be valid, empty email means none", () => {
    expect(errorFor(s.extensionSchema, { ...ext, extension: "10a1" }, "extension")).toBe(
      "Extension must contain digits only",
    );
    expect(errorFor(s.extensionSchema, { ...ext, email: "nope" }, "email")).toBe("Enter a valid email address");
    expect(s.extensionSchema.parse({ ...ext, email: "" }).email).toBeNull();
    expect(errorFor(s.extensionSchema, { extension: "1001", name: "  " }, "name")).toBe("Name is required");
  });

  test("inbound destinationType is one of the destination kinds", () => {
    const r = { description: "d", destination: "1001", destinationType: "fax" };
    expect(errorFor(s.inboundRouteSchema, r, "destinationType")).toBe(
      "Destination type must be one of extension, voicemail, ring-group, queue, ivr, time-condition, announcement, page-group, hangup",
    );
  });

  test("dial patterns: FreePBX characters only, upper-cased, at least one", () => {
    const base = { name: "o", trunkId: 1 };
    expect(s.outboundRouteSchema.parse({ ...base, dialPatterns: ["1nxxnxxxxxx"] }).dialPatterns).toEqual([
      "1NXXNXXXXXX",
    ]);
    expect(errorFor(s.outboundRouteSchema, { ...base, dialPatterns: ["9'; DROP"] }, "dialPatterns.0")).toContain(
      "may only contain",
    );
    expect(errorFor(s.outboundRouteSchema, { ...base, dialPatterns: [] }, "dialPatterns")).toBe(
      "Add at least one dial pattern",
    );
  });

  test("PTT group needs at least one member", () => {
    expect(errorFor(s.pttGroupSchema, { name: "p", extension: "8000", members: [] }, "members")).toBe(
      "Choose at least one member",
    );
  });

  test("assistant validation messages", () => {
    const a = { name: "", model: "", systemPrompt: "short" };
    expect(errorFor(s.aiAssistantSchema, a, "name")).toBe("Name is required");
    expect(errorFor(s.aiAssistantSchema, a, "model")).toBe("Model is required");
    expect(errorFor(s.aiAssistantSchema, a, "systemPrompt")).toBe("System prompt must be at least 10 characters");
    expect(
      errorFor(
        s.aiAssistantSchema,
        { name: "n", model: "m", systemPrompt: "long enough", provider: "anthropic" },
        "provider",
      ),
    ).toBe("Provider must be openai");
    const ok = s.aiAssistantSchema.parse({ name: "n", model: "m", systemPrompt: "long enough" });
    expect(ok).toMatchObject({ voice: "alloy", temperature: 80, status: "active", provider: "openai" });
    expect(errorFor(s.aiAssistantSchema, { ...ok, temperature: 101 }, "temperature")).toBe("Temperature must be 0-100");
  });

  test("routing rule validation messages", () => {
    const r = { name: "", conditions: "", action: "", actionParams: "" };
    expect(errorFor(s.aiRoutingRuleSchema, r, "name")).toBe("Name is required");
    expect(errorFor(s.aiRoutingRuleSchema, r, "conditions")).toBe("Conditions are required");
    expect(errorFor(s.aiRoutingRuleSchema, r, "action")).toBe("Action is required");
    expect(errorFor(s.aiRoutingRuleSchema, r, "actionParams")).toBe("Action parameters are required");
    expect(
      s.aiRoutingRuleSchema.parse({ name: "n", conditions: "{}", action: "hangup", actionParams: "{}" }),
    ).toMatchObject({
      priority: 0,
      enabled: true,
    });
  });
});

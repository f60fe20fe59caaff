// One validator: what a form (the shared zod schema) refuses is what the deploy
// (ownership.ts, on the stored row) refuses, with the same message; what the form accepts, the deploy
// takes. Checked as a property over hostile and edge inputs, field by field. Limits that are the
// console's own and stricter than FreePBX's (extension numbers of at most 10 digits, a DID of at most
// 20 characters, usernames of at most 100…) are not in these lists: there the form refuses more.
import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import {
  extensionObject,
  inboundObject,
  type OutboundRow,
  outboundObject,
  type PbxObject,
  type PttRow,
  pttObject,
  type QueueRow,
  queueObject,
  type TrunkRow,
  trunkObject,
} from "../../src/server/pbx/objects/ownership";
import type { RefBook } from "../../src/server/pbx/objects/refs";
import { DESTINATION_KINDS } from "../../src/shared/destinations";
import {
  extensionSchema,
  inboundRouteSchema,
  outboundRouteSchema,
  pttGroupSchema,
  queueSchema,
  trunkSchema,
} from "../../src/shared/inventory";

/** Text that is hostile to SQL, config files or the shell, and the edges of FreePBX's limits. */
const HOSTILE_TEXT = [
  "Alice",
  "Zoë Ångström",
  `O'Brien "Bob"`,
  "Robert'); DROP TABLE users;--",
  "<script>alert(1)</script>",
  "$(reboot) `id`",
  "semi;colon",
  "[section]",
  "back\\slash",
  "line\nbreak",
  "carriage\rreturn",
  "tab\there",
  "nul\u0000byte",
  "del\u007f",
  "  padded  ",
  "%s %n {}",
  "😀",
];
const lengths = (max: number) => [
  "x".repeat(max),
  "x".repeat(max + 1),
  "é".repeat(max),
  "😀".repeat(max), // max characters, twice as many UTF-16 units: MariaDB counts characters
  "😀".repeat(max + 1),
];
const NUMBERS = ["1001", "0", "1", "10a1", "+1001", "1001 ", "1 001", "١٠٠١", "1e3", "0x10", "1001;", "-1"];

const trim = (v: unknown): unknown => (typeof v === "string" ? v.trim() : Array.isArray(v) ? v.map(trim) : v);

/** The form's verdict: the first message, or null when it accepts. */
function formVerdict(schema: z.ZodType, input: Record<string, unknown>) {
  const r = schema.safeParse(input);
  return r.success
    ? { message: null, data: r.data as Record<string, unknown> }
    : { message: r.error.issues[0]?.message ?? "?", data: null };
}

/** The deploy's verdict on the row as it would be stored: the message it is refused with, or null. */
function deployVerdict(build: () => PbxObject): string | null {
  try {
    build();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const stored = { id: 1, createdAt: new Date(0) };

function property(
  schema: z.ZodType,
  base: Record<string, unknown>,
  field: string,
  inputs: unknown[],
  deploy: (row: Record<string, unknown>) => PbxObject,
) {
  const rows: { input: unknown; form: string | null; deploy: string | null }[] = [];
  for (const input of inputs) {
    const body = { ...base, [field]: input };
    const form = formVerdict(schema, body);
    // Accepted: the parsed body is what is stored. Refused: a row stored before the rule (trimmed, as forms send it).
    const row = { ...stored, ...(form.data ?? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, trim(v)]))) };
    rows.push({ input, form: form.message, deploy: deployVerdict(() => deploy(row)) });
  }
  // Equal verdicts, input by input (a mismatch names the input).
  expect(rows.map((r) => ({ input: r.input, deploy: r.deploy }))).toEqual(
    rows.map((r) => ({ input: r.input, deploy: r.form })),
  );
  // The list is hostile enough to exercise both sides.
  expect(rows.some((r) => r.form === null)).toBe(true);
  expect(rows.some((r) => r.form !== null)).toBe(true);
}

const extension = {
  extension: "1001",
  name: "Alice",
  voicemail: false,
  email: null,
  position: null,
  personalPhone: null,
  status: "available",
  userId: null,
  secret: null,
};
const trunk = {
  name: "Telnyx",
  type: "sip",
  host: "sip.telnyx.com",
  port: 5060,
  authMode: "credentials",
  username: "user1",
  secret: "trunk-secret-1",
  providerAddresses: [],
  fromDomain: null,
  fromUser: null,
  contactUser: null,
  authType: "outbound",
  registrationEnabled: true,
  rewriteContact: false,
  trustRpid: false,
  sendRpid: false,
  status: "unregistered",
};
const trunkRow = { ...stored, ...trunk } as TrunkRow;
const inbound = {
  description: "Main",
  didNumber: "5551234",
  trunkId: null,
  destination: "1001",
  destinationType: "extension",
};
const outbound = { name: "Local", dialPatterns: ["9NXXXXXX"], trunkId: 1, routeOrder: 0 };
const ptt = { name: "Floor", extension: "8000", description: null, members: ["1001"], duplex: false, autoAnswer: true };
const queue = { number: "400", name: "Support", strategy: "ringall", agents: ["1001"], maxWait: 0 };

describe("the form refuses exactly what the deploy refuses, with the same message", () => {
  const ext = (row: Record<string, unknown>) => extensionObject(row as Parameters<typeof extensionObject>[0]);
  test("extension names", () => property(extensionSchema, extension, "name", [...HOSTILE_TEXT, ...lengths(50)], ext));
  test("extension numbers", () => property(extensionSchema, extension, "extension", NUMBERS, ext));
  test("extension secrets", () =>
    property(
      extensionSchema,
      extension,
      "secret",
      [
        "good-secret-123",
        "with a space 123",
        "semi;colon12345",
        "brackets[1]2345",
        "unicodé-secret-1",
        "tab\tsecret-12345",
        "quote'\"secret12",
      ],
      ext,
    ));

  const trk = (row: Record<string, unknown>) => trunkObject(row as TrunkRow);
  test("trunk names (spaces are fine: FreePBX's channel id has _ for them)", () =>
    property(
      trunkSchema,
      trunk,
      "name",
      [...HOSTILE_TEXT, ...lengths(50), "My Trunk", "Telnyx (main)", "a@b.c+d-e_f", "trunk/1", "trunk:1"],
      trk,
    ));
  test("trunk hosts", () =>
    property(
      trunkSchema,
      trunk,
      "host",
      [
        "sip.telnyx.com",
        "203.0.113.5",
        "[2001:db8::1]",
        "2001:db8::1",
        "sip example.com",
        "-bad.example",
        "host;evil",
        "host]",
        "a".repeat(255),
        "a".repeat(256),
        ...HOSTILE_TEXT,
      ],
      trk,
    ));
  for (const field of ["username", "secret", "fromDomain", "fromUser", "contactUser"]) {
    test(`trunk ${field} (written as key=value into pjsip.conf)`, () =>
      property(
        trunkSchema,
        trunk,
        field,
        [
          "user-1",
          "user@example.com",
          "with space",
          "semi;colon",
          "[x]",
          "tab\tx",
          "ü",
          "quote'x",
          ...HOSTILE_TEXT.filter((t) => t.trim().length > 0),
        ],
        trk,
      ));
  }
  test("trunk credentials when authenticating with them", () =>
    property(trunkSchema, trunk, "secret", [null, "", "  ", "s3cret"], trk));
  test("IP-authenticated trunks: the provider's addresses", () =>
    property(
      trunkSchema,
      { ...trunk, authMode: "ip", username: null, secret: null },
      "providerAddresses",
      [
        [],
        ["203.0.113.10"],
        ["198.51.100.0/24", "2001:db8::/32"],
        ["sip.provider.example"],
        ["300.1.1.1"],
        ["10.0.0.1/33"],
        ["a b"],
        ["x;y"],
        ["10.0.0.1,10.0.0.2"],
        ["1.2.3"],
      ],
      trk,
    ));

  // Every IVR and announcement a console id can name exists here: whether one does is the API's check, not the form's.
  const book: RefBook = {
    get: (kind, id) =>
      /^[1-9]\d{0,14}$/.test(id) ? { kind, consoleId: Number(id), name: `${kind} ${id}` } : undefined,
  };
  const inb = (row: Record<string, unknown>) => inboundObject(row as Parameters<typeof inboundObject>[0], book);
  test("inbound descriptions", () =>
    property(inboundRouteSchema, inbound, "description", [...HOSTILE_TEXT, ...lengths(80)], inb));
  test("inbound DIDs", () =>
    property(
      inboundRouteSchema,
      inbound,
      "didNumber",
      ["", null, "5551234", "+15551234567", "555-1234", "555 1234", "1".repeat(20), "abc", "+1+2"],
      inb,
    ));
  for (const type of DESTINATION_KINDS) {
    test(`inbound destinations of type ${type}: numbers, never names`, () =>
      property(
        inboundRouteSchema,
        { ...inbound, destinationType: type },
        "destination",
        [
          // A console id is a SQLite row id: 0 and 20 digits name no IVR or announcement (the API answers it is unknown).
          ...(["ivr", "announcement", "time-condition"].includes(type) ? NUMBERS.filter((n) => n !== "0") : NUMBERS),
          "",
          "Main IVR",
          "sales",
          ...(["ivr", "announcement", "time-condition"].includes(type) ? [] : ["12345678901234567890"]),
          "123456789012345678901",
          "ivr-1,s,1",
          "1001,1",
        ],
        inb,
      ));
  }

  const out = (row: Record<string, unknown>) => outboundObject(row as OutboundRow, trunkRow);
  test("outbound route names", () =>
    property(outboundRouteSchema, outbound, "name", [...HOSTILE_TEXT, ...lengths(40)], out));
  test("dial patterns", () =>
    property(
      outboundRouteSchema,
      outbound,
      "dialPatterns",
      [
        ["9NXXXXXX"],
        ["1nxxnxxxxxx"],
        ["9'; DROP"],
        ["X".repeat(60)],
        ["X".repeat(61)],
        ["_9X."],
        ["9 X"],
        ["+44[1-9]X."],
        ["9NXX", "bad!"],
      ],
      out,
    ));

  const pg = (row: Record<string, unknown>) => pttObject(row as PttRow);
  test("page group names", () => property(pttGroupSchema, ptt, "name", HOSTILE_TEXT, pg));
  test("page group numbers", () => property(pttGroupSchema, ptt, "extension", NUMBERS, pg));
  test("page group members", () =>
    property(
      pttGroupSchema,
      ptt,
      "members",
      [["1001"], ["1001", "10a1"], ["+1001"], [" 1002 "], ["1001;"], ["1001", "1001"]],
      pg,
    ));

  const qu = (row: Record<string, unknown>) => queueObject(row as QueueRow);
  test("queue names", () => property(queueSchema, queue, "name", [...HOSTILE_TEXT, ...lengths(254)], qu));
  test("queue numbers", () => property(queueSchema, queue, "number", NUMBERS, qu));
  test("queue strategies", () =>
    property(queueSchema, queue, "strategy", ["ringall", "rrordered", "wrandom", "hunt", "RINGALL", ""], qu));
  test("queue agents: extensions only", () =>
    property(
      queueSchema,
      queue,
      "agents",
      [["1001"], ["1001", "1002"], ["5551234#"], ["1001", "10a1"], ["+1001"], [" 1002 "], ["1001;"], []],
      qu,
    ));
  test("queue max waits: FreePBX's form's choices", () =>
    property(
      queueSchema,
      queue,
      "maxWait",
      [0, 1, 29, 30, 31, 55, 56, 60, 70, 280, 300, 330, 1140, 1200, 1500, 7200, 7500, -1],
      qu,
    ));
});

// FreePBX 17's tables are utf8mb3 (test/fixtures/freepbx/schema.sql, recorded from a real FreePBX 17): MariaDB
// refuses a character beyond U+FFFF there ("Incorrect string value"), so the form and the deploy refuse it first.
describe("text FreePBX stores: characters within U+FFFF only", () => {
  const emoji = "Desk 😀";
  const bmp = "Zoë Ångström ☎ 中文";
  const cases: [
    string,
    z.ZodType,
    Record<string, unknown>,
    string,
    string,
    (row: Record<string, unknown>) => PbxObject,
  ][] = [
    ["extension name", extensionSchema, extension, "name", "Name", (r) => extensionObject(r as never)],
    [
      "inbound description",
      inboundRouteSchema,
      inbound,
      "description",
      "Description",
      (r) => inboundObject(r as never),
    ],
    ["outbound route name", outboundRouteSchema, outbound, "name", "Name", (r) => outboundObject(r as never, trunkRow)],
    ["page group name", pttGroupSchema, ptt, "name", "Name", (r) => pttObject(r as never)],
  ];
  for (const [label, schema, base, field, what, deploy] of cases) {
    test(`${label}: an emoji is refused by the form and the deploy with one message; other non-ASCII is taken`, () => {
      const message = `${what} contains a character FreePBX cannot store (an emoji or another character beyond U+FFFF)`;
      expect(formVerdict(schema, { ...base, [field]: emoji }).message).toBe(message);
      expect(deployVerdict(() => deploy({ ...stored, ...base, [field]: emoji }))).toBe(message);
      expect(formVerdict(schema, { ...base, [field]: bmp }).message).toBeNull();
      expect(deployVerdict(() => deploy({ ...stored, ...base, [field]: bmp }))).toBeNull();
    });
  }
});

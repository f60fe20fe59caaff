// The Call Transcripts filters and exports (ADR 0041), over real HTTP: each filter,
// combinations, search beyond ASCII case, hostile values as plain values, CSV/JSON export = the matches.
import { describe, expect, test } from "bun:test";
import type { CallTranscript, TranscriptPage } from "../../src/shared/ai/transcripts";
import type { AuditEntry } from "../../src/shared/audit";
import { signedInServer } from "../helpers/server";

const s = signedInServer({ clean: ["ai_call_logs", "call_transcripts", "ai_assistants"] });

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 10, 12, 0, 0);

interface Seed {
  callId: string;
  phone: string;
  sentiment: string | null;
  day: number;
  text: string;
  summary?: string;
}

const SEEDS: Seed[] = [
  { callId: "c1", phone: "+15550001111", sentiment: "positive", day: 0, text: "Hello, I want to book a room." },
  { callId: "c2", phone: "+15550002222", sentiment: "Negative", day: 1, text: "Die Rechnung ist FALSCH, Ärger!" },
  { callId: "c3", phone: "+4930123456", sentiment: "neutral", day: 2, text: "Bonjour, je suis à l'ÉCOLE." },
  { callId: "c4", phone: "+15550001111", sentiment: "negative", day: 3, text: '=HYPERLINK("http://x") please' },
  { callId: "c5", phone: "+4930999999", sentiment: null, day: 4, text: "Quiet call 100% done_ok" },
];

/** The seeds straight in the table; c1, c2 and c4 routed to assistant A, c3 to B. */
async function seed() {
  const mk = async (name: string, extensionId: string) => {
    const res = await s.call("POST", "/api/ai/assistants", {
      name,
      model: "gpt-realtime",
      systemPrompt: "Answer calls politely.",
      extensionId,
    });
    expect(res.status).toBe(201);
    return res.json.id as number;
  };
  const a = await mk("Front desk", "5001");
  const b = await mk("Billing", "5002");
  const insert = s.db.$client.prepare(
    "INSERT INTO call_transcripts (call_id, phone_number, extension_id, transcript, summary, sentiment, keywords, created_at) VALUES (?, ?, '1001', ?, ?, ?, '[]', ?)",
  );
  const log = s.db.$client.prepare(
    "INSERT INTO ai_call_logs (call_id, assistant_id, outcome, created_at) VALUES (?, ?, 'accept', ?)",
  );
  for (const t of SEEDS) {
    insert.run(t.callId, t.phone, t.text, t.summary ?? null, t.sentiment, START + t.day * DAY);
  }
  for (const [callId, assistant] of [
    ["c1", a],
    ["c2", a],
    ["c4", a],
    ["c3", b],
  ] as const) {
    log.run(callId, assistant, START);
  }
  return { a, b };
}

const page = async (query: string) => {
  const res = await s.call("GET", `/api/ai/transcripts?limit=100&${query}`);
  expect(res.status).toBe(200);
  return res.json as TranscriptPage;
};
/** The call ids a filter matches, newest first. */
const calls = async (query: string) => (await page(query)).items.map((t) => t.callId);
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe("transcript filters", () => {
  test("each filter alone", async () => {
    const { a, b } = await seed();
    const iso = (day: number) => new Date(START + day * DAY).toISOString();
    expect(await calls(q({ from: iso(2) }))).toEqual(["c5", "c4", "c3"]);
    expect(await calls(q({ to: iso(2) }))).toEqual(["c2", "c1"]);
    expect(await calls(q({ sentiment: "negative" }))).toEqual(["c4", "c2"]);
    expect(await calls(q({ sentiment: "NEUTRAL" }))).toEqual(["c3"]);
    expect(await calls(q({ assistant: String(a) }))).toEqual(["c4", "c2", "c1"]);
    expect(await calls(q({ assistant: String(b) }))).toEqual(["c3"]);
    expect(await calls(q({ caller: "+1555000111" }))).toEqual(["c4", "c1"]);
    expect(await calls(q({ caller: "4930" }))).toEqual(["c5", "c3"]);
    const counted = await page(q({ sentiment: "negative" }));
    expect([counted.total, counted.matched]).toEqual([5, 2]);
  });

  test("combinations narrow each other; the page's counts follow", async () => {
    const { a } = await seed();
    const iso = (day: number) => new Date(START + day * DAY).toISOString();
    expect(await calls(q({ assistant: String(a), sentiment: "negative" }))).toEqual(["c4", "c2"]);
    expect(await calls(q({ assistant: String(a), sentiment: "negative", from: iso(2) }))).toEqual(["c4"]);
    expect(await calls(q({ caller: "+1555", from: iso(1), to: iso(3) }))).toEqual(["c2"]);
    expect(await calls(q({ q: "falsch", caller: "+1555" }))).toEqual(["c2"]);
    const p = await page(q({ caller: "+1555", sentiment: "positive" }));
    expect([p.matched, p.items.map((t) => t.callId)]).toEqual([1, ["c1"]]);
  });

  test("the search ignores case beyond ASCII and takes %, _, * and ? literally", async () => {
    await seed();
    expect(await calls(q({ q: "école" }))).toEqual(["c3"]);
    expect(await calls(q({ q: "ärger" }))).toEqual(["c2"]);
    expect(await calls(q({ q: "ÄRGER" }))).toEqual(["c2"]);
    expect(await calls(q({ q: "HELLO" }))).toEqual(["c1"]);
    expect(await calls(q({ q: "100%" }))).toEqual(["c5"]);
    expect(await calls(q({ q: "done_ok" }))).toEqual(["c5"]);
    expect(await calls(q({ q: "_" }))).toEqual(["c5"]);
    expect(await calls(q({ q: "%" }))).toEqual(["c5"]);
    expect(await calls(q({ q: "*" }))).toEqual([]);
    expect(await calls(q({ q: "?" }))).toEqual([]);
    expect(await calls(q({ q: "[" }))).toEqual([]);
  });

  test("SQL in any value is a value: no rows, nothing changed", async () => {
    await seed();
    const before = s.snapshot("call_transcripts");
    const hostile = [
      "' OR '1'='1",
      "1; DROP TABLE call_transcripts; --",
      '" OR 1=1 --',
      "') UNION SELECT * FROM users --",
    ];
    for (const value of hostile) {
      for (const key of ["q", "sentiment", "caller"]) {
        const p = await page(q({ [key]: value }));
        expect([key, value, p.items.length, p.matched]).toEqual([key, value, 0, 0]);
      }
      // Not a number or not a time: refused by the shared schema, never reaching SQL.
      expect((await s.call("GET", `/api/ai/transcripts?limit=5&${q({ assistant: value })}`)).status).toBe(400);
      expect((await s.call("GET", `/api/ai/transcripts?limit=5&${q({ from: value })}`)).status).toBe(400);
      const csv = await fetch(`${s.base}/api/ai/transcripts/export.csv?${q({ q: value })}`, {
        headers: { cookie: s.cookie },
      });
      expect((await csv.text()).trim().split("\r\n")).toHaveLength(1);
    }
    expect(s.snapshot("call_transcripts")).toBe(before);
  });

  test("bad filter values are 400 with the field", async () => {
    for (const [key, value, field] of [
      ["from", "yesterday", "from"],
      ["to", "2026-13-45", "to"],
      ["assistant", "-1", "assistant"],
      ["sentiment", "x".repeat(101), "sentiment"],
      ["caller", "1".repeat(51), "caller"],
    ] as const) {
      const res = await s.call("GET", `/api/ai/transcripts?limit=5&${q({ [key]: value })}`);
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.error.fields ?? {})).toContain(field);
    }
  });
});

describe("transcript export", () => {
  const download = async (format: "csv" | "json", query: string) => {
    const res = await fetch(`${s.base}/api/ai/transcripts/export.${format}?${query}`, {
      headers: { cookie: s.cookie },
    });
    expect(res.status).toBe(200);
    return res;
  };

  test("CSV and JSON carry exactly the filter's matches with their text; formula cells are prefixed; audited", async () => {
    const { a } = await seed();
    const filter = q({ assistant: String(a) });
    const matched = await page(filter);

    const csv = await download("csv", filter);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.headers.get("content-disposition")).toContain("call-transcripts.csv");
    const text = await csv.text();
    const lines = text.trim().split("\r\n");
    expect(lines[0]?.split(",")[0]).toBe("id");
    expect(lines).toHaveLength(1 + matched.matched);
    expect(lines.slice(1).map((l) => Number(l.split(",")[0]))).toEqual(matched.items.map((t) => t.id));
    // The formula is written as text, not something a spreadsheet runs.
    expect(text).toContain(`"'=HYPERLINK(""http://x"") please"`);
    expect(text).toContain("Die Rechnung ist FALSCH");

    const json = await download("json", filter);
    expect(json.headers.get("content-type")).toContain("application/json");
    const rows = (await json.json()) as CallTranscript[];
    expect(rows.map((t) => t.id)).toEqual(matched.items.map((t) => t.id));
    expect(rows[0]?.transcript).toContain("HYPERLINK");

    const audit = (await s.call("GET", "/api/audit?action=ai.transcripts.export&limit=2")).json.items as AuditEntry[];
    expect(audit).toHaveLength(2);
    expect(audit.every((e) => e.outcome === "ok")).toBe(true);
  });

  test("an export larger than one batch streams every match once; an empty match is a header or []", async () => {
    const insert = s.db.$client.prepare(
      "INSERT INTO call_transcripts (call_id, phone_number, transcript, sentiment, keywords, created_at) VALUES (?, ?, ?, ?, '[]', ?)",
    );
    s.db.$client.transaction(() => {
      for (let i = 0; i < 1234; i++)
        insert.run(`b${i}`, "+1555", `Line ${i}`, i % 2 ? "positive" : "negative", START + i);
    })();
    const rows = (await (await download("json", q({ sentiment: "positive" }))).json()) as CallTranscript[];
    expect(rows).toHaveLength(617);
    expect(new Set(rows.map((t) => t.id)).size).toBe(617);
    const lines = (await (await download("csv", q({ sentiment: "positive" }))).text()).trim().split("\r\n");
    expect(lines).toHaveLength(618);
    expect(await (await download("json", q({ sentiment: "angry" }))).json()).toEqual([]);
  });
});

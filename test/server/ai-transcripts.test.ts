// GET /api/ai/transcripts paged by a keyset cursor (ADR 0033), the bare list outside callers keep, the
// search, and GET /api/ai/transcripts/:id, over real HTTP.
import { describe, expect, test } from "bun:test";
import type { CallTranscript, TranscriptPage } from "../../src/shared/ai/transcripts";
import { signedInServer } from "../helpers/server";

const s = signedInServer({ clean: ["call_transcripts"] });

/**
 * Stores `n` transcripts straight in the table, `perInstant` of them sharing one created_at (a bridge
 * posting several calls in the same millisecond), so the cursor must break ties by id.
 */
function seed(n: number, perInstant = 3, text = (i: number) => `Caller ${i}: hello. Agent: hi.`) {
  const insert = s.db.$client.prepare(
    "INSERT INTO call_transcripts (call_id, phone_number, extension_id, transcript, summary, keywords, created_at) VALUES (?, ?, ?, ?, ?, '[]', ?)",
  );
  const start = 1_700_000_000_000;
  s.db.$client.transaction(() => {
    for (let i = 0; i < n; i++)
      insert.run(
        `c${i}`,
        `+1555000${String(i).padStart(4, "0")}`,
        String(1000 + (i % 7)),
        text(i),
        `Summary ${i}`,
        start + Math.floor(i / perInstant) * 1000,
      );
  })();
}

const page = async (query: string) => {
  const res = await s.call("GET", `/api/ai/transcripts?${query}`);
  expect(res.status).toBe(200);
  return res.json as TranscriptPage;
};

/** Every page of a query, following nextCursor. */
async function walk(query: string) {
  const pages: TranscriptPage[] = [];
  let cursor: string | null = null;
  do {
    const p: TranscriptPage = await page(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    pages.push(p);
    cursor = p.nextCursor;
  } while (cursor && pages.length < 100);
  return pages;
}

describe("transcript pages", () => {
  test("newest first, no duplicate and no gap across pages when timestamps are equal", async () => {
    seed(250, 4);
    const bare = (await s.call("GET", "/api/ai/transcripts")).json as CallTranscript[];
    const pages = await walk("limit=30");
    expect(pages).toHaveLength(9);
    expect(pages.slice(0, -1).every((p) => p.items.length === 30 && p.nextCursor !== null)).toBe(true);
    expect(pages.at(-1)?.nextCursor).toBeNull();
    const ids = pages.flatMap((p) => p.items.map((t) => t.id));
    // The same order as the whole list: every transcript once.
    expect(ids).toEqual(bare.map((t) => t.id));
    expect(new Set(ids).size).toBe(250);
    const times = pages.flatMap((p) => p.items.map((t) => Date.parse(t.createdAt)));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(pages.every((p) => p.total === 250 && p.matched === 250)).toBe(true);
  });

  test("a page item carries the start of the text, not the text; the detail has all of it", async () => {
    const long = (i: number) => `Caller ${i}: ${"the line is bad and ".repeat(200)}END`;
    seed(3, 1, long);
    const first = await page("limit=2");
    expect(first.items).toHaveLength(2);
    const item = first.items[0] as TranscriptPage["items"][number];
    expect(item).not.toHaveProperty("transcript");
    expect(item.preview).toBe(long(2).slice(0, 300));
    expect(item).toMatchObject({ callId: "c2", summary: "Summary 2", keywords: [] });
    const detail = await s.call("GET", `/api/ai/transcripts/${item.id}`);
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ id: item.id, transcript: long(2), callId: "c2" });
    expect((await s.call("GET", "/api/ai/transcripts/99999")).status).toBe(404);
    expect((await s.call("GET", "/api/ai/transcripts/abc")).status).toBe(404);
  });

  test("without limit or cursor the answer is still the whole list with the text (outside callers)", async () => {
    seed(130, 2);
    const res = await s.call("GET", "/api/ai/transcripts");
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    expect(res.json).toHaveLength(130);
    expect(res.json[0]).toMatchObject({ callId: "c129", transcript: "Caller 129: hello. Agent: hi." });
  });

  test("search: text and summary case-insensitive, number and extension as substrings, counted and paged", async () => {
    seed(60, 1, (i) => (i % 10 === 0 ? `Caller: I want a REFUND 100%_ off (${i})` : `Caller ${i}: hello`));
    const refunds = await walk("limit=4&q=refund");
    expect(refunds.flatMap((p) => p.items.map((t) => t.callId))).toEqual(["c50", "c40", "c30", "c20", "c10", "c0"]);
    expect(refunds[0]).toMatchObject({ total: 60, matched: 6 });
    // LIKE's wildcards are searched as text.
    expect((await page("limit=50&q=100%25_")).matched).toBe(6);
    expect((await page("limit=50&q=_o")).matched).toBe(0);
    expect((await page("limit=50&q=summary%2042")).items.map((t) => t.callId)).toEqual(["c42"]);
    expect((await page("limit=50&q=%2B15550000059")).items.map((t) => t.callId)).toEqual(["c59"]);
    expect((await page("limit=50&q=1006")).matched).toBe(8);
    expect((await page("limit=50&q=%20%20")).matched).toBe(60);
    const bare = (await s.call("GET", "/api/ai/transcripts?q=Refund")).json as CallTranscript[];
    expect(bare.map((t) => t.callId)).toEqual(["c50", "c40", "c30", "c20", "c10", "c0"]);
  });

  test("a bad limit or cursor is a 400 with the field's message", async () => {
    seed(5);
    const cases: [string, string, string][] = [
      ["cursor=abc", "cursor", "The cursor is not one this console gave out"],
      ["cursor=1700000000000", "cursor", "The cursor is not one this console gave out"],
      ["cursor=1.0", "cursor", "The cursor is not one this console gave out"],
      ["limit=0", "limit", "The limit is at least 1"],
      ["limit=501", "limit", "The limit is at most 500"],
      ["limit=ten", "limit", "The limit must be a number"],
      [`q=${"x".repeat(201)}`, "q", "The search is at most 200 characters"],
    ];
    for (const [query, field, message] of cases) {
      const res = await s.call("GET", `/api/ai/transcripts?${query}`);
      expect({ query, status: res.status, message: res.json.error?.fields?.[field] }).toEqual({
        query,
        status: 400,
        message,
      });
    }
  });

  test("a viewer reads pages and one transcript", async () => {
    seed(12);
    expect(
      (await s.call("POST", "/api/users", { username: "tviewer", password: "viewer password 123", role: "viewer" }))
        .status,
    ).toBe(201);
    const login = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "tviewer", password: "viewer password 123" }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const res = await fetch(`${s.base}/api/ai/transcripts?limit=5`, { headers: { cookie } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as TranscriptPage;
    expect(body.items).toHaveLength(5);
    const one = await fetch(`${s.base}/api/ai/transcripts/${body.items[0]?.id}`, { headers: { cookie } });
    expect(one.status).toBe(200);
    const del = await fetch(`${s.base}/api/ai/transcripts/${body.items[0]?.id}`, {
      method: "DELETE",
      headers: { cookie, "content-type": "application/json" },
    });
    expect(del.status).toBe(403);
  });
});

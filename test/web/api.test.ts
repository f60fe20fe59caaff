// The fetch helper (src/web/lib/api.ts) and the query-client defaults, with a fake fetch: no DOM.
import { afterEach, describe, expect, mock, test } from "bun:test";
import { ApiError, apiRequest, getJson, sendJson, setUnauthorizedHandler } from "../../src/web/lib/api";
import { createQueryClient } from "../../src/web/lib/query-client";
import { installSessionGuard, ME_KEY } from "../../src/web/lib/session";

const realFetch = globalThis.fetch;
let calls: { url: string; init: RequestInit }[] = [];

function fakeFetch(status: number, body = "", statusText = "") {
  calls = [];
  globalThis.fetch = mock(async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return new Response(status === 204 ? null : body, { status, statusText });
  }) as unknown as typeof fetch;
}

afterEach(() => {
  globalThis.fetch = realFetch;
  setUnauthorizedHandler(null);
});

describe("apiRequest", () => {
  test("GET: cookies, no content-type, no body", async () => {
    fakeFetch(200, "[]");
    expect(await getJson<unknown[]>("/api/extensions")).toEqual([]);
    const { init } = calls[0] as { init: RequestInit };
    expect(init.method).toBe("GET");
    expect(init.credentials).toBe("include");
    expect((init.headers as Record<string, string>)["Content-Type"]).toBeUndefined();
    expect(init.body).toBeUndefined();
  });

  test("POST without a body still sends the JSON content-type", async () => {
    fakeFetch(200, '{"count":3}');
    expect(await sendJson<{ count: number }>("POST", "/api/dialer/push-all")).toEqual({ count: 3 });
    const { init } = calls[0] as { init: RequestInit };
    expect((init.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
    expect(init.body).toBeUndefined();
  });

  test("a body is sent as JSON when given; 204 reads as undefined", async () => {
    fakeFetch(204);
    expect(await sendJson("DELETE", "/api/trunks/1", { a: 1 })).toBeUndefined();
    expect((calls[0] as { init: RequestInit }).init.body).toBe('{"a":1}');
  });

  test("a non-ok response throws '<status>: <body>' and keeps the parsed fields", async () => {
    const body = '{"error":{"message":"Invalid request: Name is required","fields":{"name":"Name is required"}}}';
    fakeFetch(400, body);
    const err = (await apiRequest("POST", "/api/trunks", {}).catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.message).toBe(`400: ${body}`);
    expect(err.fields).toEqual({ name: "Name is required" });
    expect(err.serverMessage).toBe("Invalid request: Name is required");
  });

  test("an empty error body falls back to the status text", async () => {
    fakeFetch(503, "", "Service Unavailable");
    const err = (await getJson("/api/vps/status").catch((e) => e)) as ApiError;
    expect(err.message).toBe("503: Service Unavailable");
    expect(err.body).toBeNull();
  });

  test("a 401 calls the unauthorized handler except for sign-in, set-up, me and sign-out", async () => {
    const seen: string[] = [];
    setUnauthorizedHandler(() => seen.push("401"));
    fakeFetch(401, '{"error":{"message":"Sign in required"}}');
    await getJson("/api/info").catch(() => {});
    await sendJson("POST", "/api/auth/login", { username: "a", password: "b" }).catch(() => {});
    await getJson("/api/auth/me").catch(() => {});
    await sendJson("POST", "/api/auth/logout").catch(() => {});
    expect(seen).toEqual(["401"]);
    // The session routes need a session: their 401 means it is gone.
    await getJson("/api/auth/sessions").catch(() => {});
    expect(seen).toEqual(["401", "401"]);
  });
});

describe("query client", () => {
  test("defaults: no retry, no focus refetch, no interval, never stale", () => {
    const q = createQueryClient().getDefaultOptions();
    expect(q.queries?.retry).toBe(false);
    expect(q.queries?.refetchOnWindowFocus).toBe(false);
    expect(q.queries?.refetchInterval).toBe(false);
    expect(q.queries?.staleTime).toBe(Number.POSITIVE_INFINITY);
    expect(q.mutations?.retry).toBe(false);
  });

  test("the default query function GETs the key segments joined with '/'", async () => {
    fakeFetch(200, '{"qrCode":"data:"}');
    const client = createQueryClient();
    expect(await client.fetchQuery({ queryKey: ["/api/extensions", 7, "provisioning"] })).toEqual({ qrCode: "data:" });
    expect(calls[0]?.url).toBe("/api/extensions/7/provisioning");
  });

  test("a 401 on a signed-in session flips /me to signed out", async () => {
    const client = createQueryClient();
    installSessionGuard(client);
    client.setQueryData(ME_KEY, { authenticated: true, user: { id: "1", username: "admin" }, setupRequired: false });
    fakeFetch(401, '{"error":{"message":"Sign in required"}}');
    await getJson("/api/extensions").catch(() => {});
    expect(client.getQueryData<{ authenticated: boolean }>(ME_KEY)?.authenticated).toBe(false);
  });
});

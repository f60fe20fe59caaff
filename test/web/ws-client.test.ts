// The sync socket client (src/web/lib/ws.ts) with a fake WebSocket and fake timers: no browser, no DOM.
import { beforeEach, describe, expect, test } from "bun:test";
import {
  coalesceInvalidations,
  EVENT_QUERY_KEYS,
  MAX_RECONNECT_ATTEMPTS,
  reconnectDelay,
  SyncSocket,
  syncSocketUrl,
  type WebSocketLike,
} from "../../src/web/lib/ws";

class FakeSocket implements WebSocketLike {
  static instances: FakeSocket[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }
  close() {
    this.closed = true;
    this.onclose?.({});
  }
  open() {
    this.onopen?.({});
  }
  drop(code?: number) {
    this.onclose?.(code === undefined ? {} : { code });
  }
  send(data: unknown) {
    this.onmessage?.({ data: typeof data === "string" ? data : JSON.stringify(data) });
  }
}

function setup() {
  FakeSocket.instances = [];
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const invalidated: string[][] = [];
  const logs: unknown[][] = [];
  const client = new SyncSocket({
    url: "ws://pbx.test/ws?type=sync",
    WebSocket: FakeSocket,
    setTimeout: (fn, ms) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return t;
    },
    clearTimeout: (t) => {
      (t as { cancelled: boolean }).cancelled = true;
    },
    invalidate: (key) => invalidated.push([...key]),
    log: (...args) => logs.push(args),
  });
  const last = () => FakeSocket.instances.at(-1) as FakeSocket;
  /** Runs the newest pending timer (the scheduled reconnect). */
  const fire = () => {
    const t = timers.at(-1);
    if (!t || t.cancelled) throw new Error("no pending timer");
    t.cancelled = true;
    t.fn();
  };
  return { client, timers, invalidated, logs, last, fire };
}

describe("reconnectDelay", () => {
  test("doubles from 1 s and is capped at 30 s", () => {
    expect([0, 1, 2, 3, 4].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(reconnectDelay(5)).toBe(30_000);
    expect(reconnectDelay(10)).toBe(30_000);
  });
});

describe("syncSocketUrl", () => {
  test("uses wss on https and ws otherwise", () => {
    expect(syncSocketUrl({ protocol: "https:", host: "pbx.example:8443" })).toBe("wss://pbx.example:8443/ws?type=sync");
    expect(syncSocketUrl({ protocol: "http:", host: "127.0.0.1:3000" })).toBe("ws://127.0.0.1:3000/ws?type=sync");
  });
});

describe("SyncSocket reconnects", () => {
  let s: ReturnType<typeof setup>;
  beforeEach(() => {
    s = setup();
  });

  test("connects to the given URL on start", () => {
    s.client.start();
    expect(FakeSocket.instances.length).toBe(1);
    expect(s.last().url).toBe("ws://pbx.test/ws?type=sync");
  });

  test("waits 1, 2, 4, 8, 16 s between attempts, then gives up after 5 and says to refresh", () => {
    s.client.start();
    s.last().open();
    s.last().drop();
    for (let i = 0; i < MAX_RECONNECT_ATTEMPTS; i++) {
      s.fire();
      s.last().drop(); // every attempt fails
    }
    expect(s.timers.map((t) => t.ms)).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(FakeSocket.instances.length).toBe(1 + MAX_RECONNECT_ATTEMPTS);
    expect(s.timers.filter((t) => !t.cancelled).length).toBe(0); // nothing more scheduled
    expect(s.logs.length).toBe(1);
    expect(String(s.logs[0]?.[0])).toMatch(/refresh the page/i);
  });

  test("a successful open resets the attempt counter", () => {
    s.client.start();
    s.last().drop();
    s.fire();
    s.last().drop();
    s.fire();
    expect(s.client.reconnectAttempts).toBe(2);
    s.last().open();
    expect(s.client.reconnectAttempts).toBe(0);
    s.last().drop();
    expect(s.timers.at(-1)?.ms).toBe(1000);
  });

  test("a reconnect refetches every key an event can make stale (events sent while down were missed)", () => {
    s.client.start();
    s.last().open();
    expect(s.invalidated).toEqual([]); // the first open: the queries are fresh anyway
    s.last().drop();
    s.fire();
    s.last().open();
    const keys = s.invalidated.map((k) => k.join("/"));
    expect(keys).toContain("/api/pbx/status");
    expect(keys).toContain("/api/calls/active");
    expect(keys).toContain("/api/extensions");
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("a close for an ended session (4001) stops for good and reports it; no reconnect", () => {
    FakeSocket.instances = [];
    const timers: unknown[] = [];
    let ended = 0;
    const client = new SyncSocket({
      url: "ws://pbx.test/ws?type=sync",
      WebSocket: FakeSocket,
      setTimeout: (fn) => timers.push(fn),
      clearTimeout: () => {},
      invalidate: () => {},
      onSessionEnded: () => ended++,
    });
    client.start();
    (FakeSocket.instances.at(-1) as FakeSocket).open();
    (FakeSocket.instances.at(-1) as FakeSocket).drop(4001);
    expect(ended).toBe(1);
    expect(timers).toHaveLength(0);
    expect(FakeSocket.instances).toHaveLength(1);
  });

  test("close() stops for good: no reconnect and a pending one is cancelled", () => {
    s.client.start();
    s.last().open();
    s.client.close();
    expect(s.last().closed).toBe(true);
    expect(s.timers.length).toBe(0);

    const t = setup();
    t.client.start();
    t.last().drop();
    expect(t.timers.length).toBe(1);
    t.client.close();
    expect(t.timers[0]?.cancelled).toBe(true);
    expect(FakeSocket.instances.length).toBe(1);
  });
});

describe("SyncSocket messages", () => {
  test.each([
    // Each list, the destinations a picker offers, and the Dashboard's counts (GET /api/dashboard/summary, ADR 0031).
    [
      "extensions-updated",
      [["/api/extensions"], ["/api/destinations"], ["/api/routing/flows"], ["/api/dashboard/summary"]],
    ],
    ["trunks-updated", [["/api/trunks"], ["/api/dashboard/summary"]]],
    [
      "routes-updated",
      [["/api/inbound-routes"], ["/api/outbound-routes"], ["/api/routing/flows"], ["/api/dashboard/summary"]],
    ],
    [
      "ptt-groups-updated",
      [["/api/ptt-groups"], ["/api/destinations"], ["/api/routing/flows"], ["/api/dashboard/summary"]],
    ],
    ["ai-assistants-updated", [["/api/ai/assistants"], ["/api/dashboard/summary"]]],
    // The PBX's recordings, read over SSH: nothing else shows them.
    ["recordings-updated", [["/api/recordings"]]],
    ["sync-status", []],
  ] as const)("%s invalidates the matching list queries", (type, keys) => {
    const s = setup();
    s.client.start();
    s.last().open();
    s.last().send({ type, data: { n: 1 } });
    expect(s.invalidated).toEqual(keys.map((k) => [...k]));
    expect(EVENT_QUERY_KEYS[type].map((k) => [...k])).toEqual(keys.map((k) => [...k]));
  });

  test("sync-status is only logged", () => {
    const s = setup();
    s.client.start();
    s.last().send({ type: "sync-status", data: { state: "running" } });
    expect(s.invalidated).toEqual([]);
    expect(s.logs.length).toBe(1);
  });

  test("junk is logged and ignored", () => {
    const s = setup();
    s.client.start();
    s.last().open();
    s.last().send("not json {");
    s.last().send({ type: "something-else" });
    s.last().send({ data: 1 });
    s.last().send("42");
    expect(s.invalidated).toEqual([]);
    expect(s.logs.length).toBe(4);
    expect(FakeSocket.instances.length).toBe(1); // the socket stays up
  });
});

describe("coalesceInvalidations", () => {
  test("a burst of events refetches each query once, after the delay", () => {
    const scheduled: (() => void)[] = [];
    const done: string[] = [];
    const invalidate = coalesceInvalidations((k) => done.push(k.join("/")), 200, { set: (fn) => scheduled.push(fn) });
    for (let i = 0; i < 1000; i++) invalidate(["/api/extensions"]);
    invalidate(["/api/trunks"]);
    expect(done).toEqual([]);
    expect(scheduled).toHaveLength(1);
    scheduled[0]?.();
    expect(done).toEqual(["/api/extensions", "/api/trunks"]);
    invalidate(["/api/extensions"]);
    expect(scheduled).toHaveLength(2);
  });
});

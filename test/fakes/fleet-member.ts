/**
 * A fake member console for the fleet hub's tests: Bun.serve over TLS (a self-signed certificate made by
 * `makeCertificate`) answering GET /api/fleet/self and /api/fleet/self/search as a pbx-console does
 * (src/shared/fleet.ts), with a Bearer token check. It records every request's headers (so a test sees
 * whether a token arrived), can be slowed (`state.delayMs`) and restarted on the same port with another
 * certificate (a changed certificate at a pinned address).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { FleetSearchItem, FleetSelf } from "../../src/shared/fleet";

export interface Certificate {
  certFile: string;
  keyFile: string;
  fingerprint: string;
}

/** A self-signed certificate for localhost and 127.0.0.1 (openssl), written into `dir` as `<name>.pem`. */
export function makeCertificate(dir: string, name: string): Certificate {
  const certFile = join(dir, `${name}.crt.pem`);
  const keyFile = join(dir, `${name}.key.pem`);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyFile,
      "-out",
      certFile,
      "-days",
      "2",
      "-subj",
      `/CN=${name}`,
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  const out = execFileSync("openssl", ["x509", "-in", certFile, "-noout", "-fingerprint", "-sha256"], {
    encoding: "utf8",
  });
  const fingerprint = (out.split("=")[1] ?? "").trim().toUpperCase();
  return { certFile, keyFile, fingerprint };
}

export interface FakeMemberState {
  token: string;
  self: FleetSelf;
  items: FleetSearchItem[];
  delayMs: number;
  /** Answer this status (with an error body) instead, until cleared. */
  failWith: number | null;
  /** What POST /api/config/plan answers (the shape of the console's plan); `refuse` makes it a 400 at paths. */
  plan: { fingerprint: string; counts: Record<string, number>; items: unknown[] };
  refuse: Record<string, string> | null;
  /** Bodies of the plans and applies received. */
  received: { path: string; body: unknown }[];
}

export interface FakeMemberCall {
  path: string;
  headers: Record<string, string>;
  at: number;
}

export function sampleSelf(name: string): FleetSelf {
  return {
    name,
    version: "9.9.9",
    pbx: { reachable: true, ami: "connected" },
    registrations: { registered: 3, total: 5 },
    activeCalls: 1,
    alertsFiring: 0,
    lastDeployAt: "2026-12-01T10:00:00.000Z",
    backupAgeSeconds: 3600,
  };
}

export async function startFakeMember(opts: { cert: Certificate; token?: string; name?: string; port?: number }) {
  const state: FakeMemberState = {
    token: opts.token ?? "pbxt_fakeMemberToken0123456789",
    self: sampleSelf(opts.name ?? "fake-member"),
    items: [],
    delayMs: 0,
    failWith: null,
    plan: {
      fingerprint: "f".repeat(64),
      counts: { create: 1, update: 0, delete: 0, unchanged: 0 },
      items: [
        {
          id: "outboundRoutes:Intl",
          kind: "outboundRoutes",
          key: "Intl",
          label: "Outbound route Intl",
          action: "create",
          consoleId: null,
          changes: [{ field: "pattern", from: null, to: "00." }],
        },
      ],
    },
    refuse: null,
    received: [],
  };
  const calls: FakeMemberCall[] = [];
  let cert = opts.cert;

  const handler = async (req: Request) => {
    const url = new URL(req.url);
    calls.push({ path: url.pathname + url.search, headers: Object.fromEntries(req.headers), at: Date.now() });
    if (state.delayMs) await Bun.sleep(state.delayMs);
    if (state.failWith) return Response.json({ error: { message: "Forced failure" } }, { status: state.failWith });
    if (req.headers.get("authorization") !== `Bearer ${state.token}`)
      return Response.json(
        { error: { message: "API token not accepted: unknown, revoked, expired or not allowed from this address" } },
        { status: 401 },
      );
    if (url.pathname === "/api/fleet/self") return Response.json(state.self);
    if (req.method === "POST" && url.pathname.startsWith("/api/config/")) {
      const body = (await req.json()) as { fingerprint?: string };
      state.received.push({ path: url.pathname, body });
      if (url.pathname === "/api/config/plan") {
        if (state.refuse)
          return Response.json(
            { error: { message: "The document cannot be applied", fields: state.refuse } },
            { status: 400 },
          );
        return Response.json({
          ...state.plan,
          prune: false,
          kinds: ["outboundRoutes"],
          readAt: new Date().toISOString(),
        });
      }
      if (url.pathname === "/api/config/apply") {
        if (body.fingerprint !== state.plan.fingerprint)
          return Response.json(
            { error: { message: "The console changed since this plan: review the new plan" }, plan: state.plan },
            { status: 409 },
          );
        return Response.json({
          fingerprint: body.fingerprint,
          counts: state.plan.counts,
          appliedAt: new Date().toISOString(),
        });
      }
    }
    if (url.pathname === "/api/fleet/self/search") {
      const q = (url.searchParams.get("q") ?? "").toLowerCase();
      return Response.json({
        items: state.items.filter((i) => i.label.toLowerCase().includes(q) || i.key.includes(q)),
        truncated: false,
      });
    }
    return Response.json({ error: { message: "Not found" } }, { status: 404 });
  };

  const serve = (port: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      tls: { cert: Bun.file(cert.certFile), key: Bun.file(cert.keyFile) },
      fetch: handler,
    });
  let server: ReturnType<typeof serve> | null = serve(opts.port ?? 0);
  const port = server.port as number;

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    state,
    calls,
    /** Stops answering (connections are refused) until `start`. */
    async stop() {
      await server?.stop(true);
      server = null;
    },
    /** Serves again on the same port, with another certificate when given. */
    start(next?: Certificate) {
      if (next) cert = next;
      server ??= serve(port);
    },
  };
}

export type FakeMember = Awaited<ReturnType<typeof startFakeMember>>;

/**
 * Browser-test harness: runs the compiled binary (dist/pbx-console, built by
 * `npm run build` beforehand) on a free loopback port with a fresh DATA_DIR,
 * and drives Debian's chromium through playwright-core.
 */
import { afterAll, afterEach, beforeAll } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";

/** A cookie as `BrowserContext.addCookies` takes it. */
type Cookie = Parameters<BrowserContext["addCookies"]>[0][number];

export const BINARY = resolve(import.meta.dir, "../../dist/pbx-console");
export const CHROMIUM = "/usr/bin/chromium";
/** Chromium's flags for a machine without a sandbox, a GPU or the internet. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
export const ADMIN = { username: "admin", password: "correct horse battery staple" };
/** Per-test timeout for browser tests. */
export const TEST_TIMEOUT = 30_000;

export interface Credentials {
  username: string;
  password: string;
}

export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}

export async function waitForHealth(baseUrl: string, proc: Subprocess, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`pbx-console exited early with code ${proc.exitCode}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  throw new Error(`pbx-console did not answer ${baseUrl}/healthz within ${ms} ms`);
}

export interface HarnessOptions {
  /** Extra environment for the binary (service URLs pointing at fakes, credentials, …). */
  env?: Record<string, string>;
  /** The viewport of every page unless one is asked for (default 1280×800). */
  viewport?: { width: number; height: number };
  /** Chromium flags on top of `CHROMIUM_ARGS` (e.g. a fake microphone). */
  chromiumArgs?: string[];
}

export async function startHarness(opts: HarnessOptions = {}) {
  if (!existsSync(BINARY)) {
    throw new Error(`${BINARY} is missing: run \`npm run build\` before the browser tests.`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), "pbx-browser-"));
  const port = freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([BINARY], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      // The PBX host's own files are absent unless the test gives them (see test/helpers/server.ts).
      ASTERISK_MANAGER_CONF: join(dataDir, "absent-manager.conf"),
      FREEPBX_CONF: join(dataDir, "absent-freepbx.conf"),
      ...opts.env,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  let browser: Browser | null = null;
  const contexts: BrowserContext[] = [];

  async function stop() {
    await browser?.close().catch(() => {});
    proc.kill("SIGTERM");
    await Promise.race([proc.exited, Bun.sleep(5000)]);
    if (proc.exitCode === null) proc.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }

  try {
    await waitForHealth(baseUrl, proc);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, ...(opts.chromiumArgs ?? [])],
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const launched = browser;
  const defaultViewport = opts.viewport ?? { width: 1280, height: 800 };
  let adminCreated = false;
  let apiCookie = "";

  /** POSTs JSON like the web app does (content-type always set). */
  async function post(path: string, body: unknown) {
    return fetch(baseUrl + path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  /**
   * The file's administrator context, shared by the pages of `signedInPage`. On the 2-core machine the
   * Extensions screen of a page in a new context (a context, a sign-in, every script loaded and compiled
   * cold) showed after ~2.3 s; in this context ~1.1 s, since a page on the console's origin (`keeper`,
   * /healthz) stays open for the file's length and keeps the site's renderer and its compiled scripts warm
   * (~1.65 s without it). Browser tests are bound by Chromium's CPU, so this is most of their time.
   * Each test finds it as a new context would be but for the HTTP cache: at its first use after `closePages`
   * its cookies are only the administrator's session, its permissions none, and the origin's storage
   * (local, session, IndexedDB, caches) empty. Pages of one test share it, like tabs of one browser.
   * Whenever a page is asked for, a session a test ended (signing out) is replaced by a new one.
   */
  interface Shared {
    context: BrowserContext;
    cookie: Cookie;
    /** A test has used it since its last reset. */
    dirty: boolean;
    /** A page on the console's origin kept open for the file's length (see `adminPage`). */
    keeper: Page;
  }
  let shared: Shared | null = null;

  async function adminPage(viewport: { width: number; height: number }): Promise<Page> {
    if (!shared) {
      const context = await launched.newContext({ viewport: defaultViewport });
      const cookie = await harness.signInViaApi(context);
      const keeper = await context.newPage();
      await keeper.goto(`${baseUrl}/healthz`);
      const entry: Shared = { context, cookie, dirty: false, keeper };
      context.on("close", () => {
        if (shared === entry) shared = null;
      });
      shared = entry;
    }
    const { context } = shared;
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const me = await fetch(`${baseUrl}/api/auth/me`, {
      headers: { Cookie: `${shared.cookie.name}=${shared.cookie.value}` },
    });
    const signedIn = me.ok && ((await me.json()) as { authenticated?: boolean }).authenticated === true;
    if (shared.dirty) {
      shared.dirty = false;
      await context.clearCookies();
      await context.clearPermissions();
      if (signedIn) await context.addCookies([shared.cookie]);
      const cdp = await context.newCDPSession(page);
      await cdp.send("Storage.clearDataForOrigin", {
        origin: baseUrl,
        storageTypes: "local_storage,session_storage,indexeddb,cache_storage,service_workers,file_systems",
      });
      await cdp.detach();
    }
    // A test signed out (or its session was ended): the administrator signs in again.
    if (!signedIn) shared.cookie = await harness.signInViaApi(context);
    if (viewport.width !== defaultViewport.width || viewport.height !== defaultViewport.height) {
      await page.setViewportSize(viewport);
    }
    return page;
  }

  /** The `Cookie` header of the administrator's API session (signed in at first use). */
  async function apiSession(): Promise<string> {
    if (!apiCookie) {
      await ensureAdmin();
      const res = await post("/api/auth/login", ADMIN);
      apiCookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    }
    return apiCookie;
  }

  /** Creates the administrator unless one exists. */
  async function ensureAdmin() {
    if (adminCreated) return;
    const me = (await (await fetch(`${baseUrl}/api/auth/me`)).json()) as { setupRequired: boolean };
    if (me.setupRequired) await harness.createAdminViaApi();
    adminCreated = true;
  }

  const harness = {
    baseUrl,
    dataDir,
    browser: launched,

    /** A page in a fresh context (its own cookies and storage). */
    async newPage(o: { viewport?: { width: number; height: number } } = {}): Promise<Page> {
      const context = await launched.newContext({ viewport: o.viewport ?? defaultViewport });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      return page;
    },

    /** A page of the administrator signed in, in the file's shared context (see `adminPage` above), not navigated. */
    async adminPage(o: { viewport?: { width: number; height: number } } = {}): Promise<Page> {
      await ensureAdmin();
      return adminPage(o.viewport ?? defaultViewport);
    },

    /** Creates the first administrator through the API (no browser involved). */
    async createAdminViaApi(user: Credentials = ADMIN): Promise<void> {
      const res = await post("/api/auth/setup", { ...user, confirmPassword: user.password });
      if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${await res.text()}`);
    },

    /** Signs in through the API and hands the session cookie to the browser context (and answers it). */
    async signInViaApi(context: BrowserContext, user: Credentials = ADMIN): Promise<Cookie> {
      const res = await post("/api/auth/login", user);
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
      const pair = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      if (eq < 1) throw new Error("login answered without a session cookie");
      const cookie: Cookie = {
        name: pair.slice(0, eq),
        value: pair.slice(eq + 1),
        url: baseUrl,
        httpOnly: true,
        sameSite: "Strict",
      };
      await context.addCookies([cookie]);
      return cookie;
    },

    /**
     * A signed-in administrator's page at `path` (the administrator is created on first use).
     * The page opens in the file's shared administrator context (see `adminPage`) unless `before` is given:
     * then in a context of its own (a cold HTTP cache, no other tab), and `before` runs before navigation,
     * e.g. to install routes, a fake clock or an init script (context-wide things, hence its own context).
     */
    async signedInPage(
      path: string,
      o: {
        viewport?: { width: number; height: number };
        before?: (page: Page) => Promise<unknown>;
      } = {},
    ): Promise<Page> {
      await ensureAdmin();
      let page: Page;
      if (o.before) {
        page = await harness.newPage({ viewport: o.viewport });
        await harness.signInViaApi(page.context());
        await o.before?.(page);
      } else {
        page = await harness.adminPage(o);
      }
      await page.goto(baseUrl + path);
      return page;
    },

    /**
     * The console's API with a fresh administrator session (JSON in, Response out).
     * `headers` go last, e.g. `{ Cookie: "", Authorization: "Bearer …" }` to call as a token instead.
     */
    async api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
      return fetch(baseUrl + path, {
        method,
        headers: {
          Cookie: await apiSession(),
          ...(method === "GET" ? {} : { "Content-Type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },

    /** `api`, answered with the parsed JSON (undefined for an empty body); a non-2xx answer throws. */
    async apiJson<T = unknown>(
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
    ): Promise<T> {
      const res = await harness.api(method, path, body, headers);
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      const text = await res.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },

    /**
     * Adds many extensions in one request, through the Bulk Handler CSV import (`extension,name` rows;
     * ADR 0038): 5,000 one `POST /api/extensions` at a time took ~25 s of a test here, the import ~1 s.
     */
    async importExtensions(rows: { extension: string; name: string }[]): Promise<void> {
      const csv = `extension,name\n${rows.map((r) => `${r.extension},${r.name}`).join("\n")}\n`;
      const res = await fetch(`${baseUrl}/api/extensions/import`, {
        method: "POST",
        headers: { Cookie: await apiSession(), "Content-Type": "text/csv" },
        body: csv,
      });
      if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
      const { counts } = (await res.json()) as { counts: { new: number } };
      if (counts.new !== rows.length) throw new Error(`import: created ${counts.new} of ${rows.length}`);
    },

    /**
     * Starts a job (a deploy or import `POST`, which answers 202 `{ jobId }`; ADR 0024) and waits until
     * it has ended; answers with the job (GET /api/jobs/:id).
     */
    async runJob<T = { id: number; state: string; summary: unknown }>(path: string, body?: unknown): Promise<T> {
      const { jobId } = await harness.apiJson<{ jobId: number }>("POST", path, body);
      for (;;) {
        const job = await harness.apiJson<T & { state: string }>("GET", `/api/jobs/${jobId}`);
        if (job.state !== "running") return job;
        await Bun.sleep(100);
      }
    },

    /** Closes the pages opened so far (so their polling stops); the shared context is reset at its next use. */
    async closePages(): Promise<void> {
      const sharedPages = (shared?.context.pages() ?? []).filter((p) => p !== shared?.keeper);
      if (shared) shared.dirty = true;
      const closing = Promise.all([
        ...contexts.splice(0).map((ctx) => ctx.close().catch(() => {})),
        ...sharedPages.map((p) => p.close().catch(() => {})),
      ]);
      // Called from afterEach hooks, which have 5 s: a context still closing after 4 (a loaded machine;
      // it happened) is left to close with the browser at the end of the file.
      await Promise.race([closing, Bun.sleep(4000)]);
    },

    /** Fills and submits the sign-in form on the current page. */
    async signInViaUi(page: Page, user: Credentials = ADMIN): Promise<void> {
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      await page.getByLabel("Username").fill(user.username);
      await page.getByLabel("Password").fill(user.password);
      await page.getByRole("button", { name: "Sign in" }).click();
    },

    stop,
  };
  return harness;
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/**
 * Waits until the button is enabled (or, with `false`, disabled). A click's re-render may follow its
 * request, so a single `isDisabled()` right after the click can read the old state.
 */
export async function waitEnabled(locator: Locator, enabled = true) {
  await locator
    .page()
    .waitForFunction(([el, want]) => (el as HTMLButtonElement).disabled !== want, [
      await locator.elementHandle(),
      enabled,
    ] as const);
}

/**
 * One harness for the whole test file (hooks registered here; pages closed after each test). The
 * returned handle forwards to the running harness, so tests write `c.signedInPage(...)` as usual.
 */
export function harnessPerFile(opts: HarnessOptions = {}): Harness {
  let current: Harness | null = null;
  beforeAll(async () => {
    current = await startHarness(opts);
  }, 60_000);
  afterEach(() => current?.closePages());
  afterAll(async () => {
    await current?.stop();
  }, 30_000);
  return new Proxy({} as Harness, {
    get(_target, prop) {
      if (!current) throw new Error("the harness is not started yet (use it inside a test or hook)");
      const value = Reflect.get(current, prop, current);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}

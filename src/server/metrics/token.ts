/**
 * The scrape token of GET /metrics (ADR 0066). Two may be in force at once: METRICS_TOKEN from the
 * environment and one made in the UI, shown once and kept as its SHA-256 in `console_settings`
 * (`metricsToken`; a new one replaces it, revoking deletes it). A presented token is hashed and compared
 * in constant time with each.
 *
 * Failed scrapes are throttled per client address (an IPv6 address by its /64, as the sign-in throttle
 * keys it): after `SCRAPE_FAILURES_ALLOWED` failures within `SCRAPE_WINDOW_MS` the address is answered 429
 * until the window ends, whatever token it sends, so the endpoint cannot be used to try tokens quickly. A
 * good scrape clears its address. Kept in memory, bounded; a restart forgets it.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { consoleSettings } from "../../db/schema";
import type { SessionUser } from "../../shared/auth";
import { type CreatedMetricsToken, METRICS_TOKEN_PREFIX, type MetricsTokenView } from "../../shared/metrics";
import { addressKey } from "../accounts/throttle";
import type { Deps } from "../core/deps";
import { NotFound, RateLimited, Unauthenticated } from "../core/errors";
import { nodeCrypto } from "../lazy-node";

const KEY = "metricsToken";

interface StoredToken {
  hash: string;
  prefix: string;
  last4: string;
  createdAt: string;
  createdBy: string;
}

const sha256 = (text: string) => nodeCrypto().createHash("sha256").update(text).digest();

function isStored(v: unknown): v is StoredToken {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    ["hash", "prefix", "last4", "createdAt", "createdBy"].every((k) => typeof r[k] === "string") &&
    /^[0-9a-f]{64}$/.test(r.hash as string)
  );
}

function stored(db: Db): StoredToken | null {
  const row = db
    .select({ value: consoleSettings.value })
    .from(consoleSettings)
    .where(eq(consoleSettings.key, KEY))
    .get();
  return isStored(row?.value) ? row.value : null;
}

/** GET /api/settings/metrics-token */
export function metricsTokenView(deps: Pick<Deps, "db" | "config">): MetricsTokenView {
  const s = stored(deps.db);
  return {
    fromEnvironment: deps.config.metricsToken !== null,
    token: s ? { prefix: s.prefix, last4: s.last4, createdAt: s.createdAt, createdBy: s.createdBy } : null,
  };
}

/** Makes a new UI token (replacing the one before, which stops working at once); the answer is its only copy. */
export function createMetricsToken(
  deps: Pick<Deps, "db" | "config" | "events" | "now">,
  user: Pick<SessionUser, "username">,
): CreatedMetricsToken {
  const secret = `${METRICS_TOKEN_PREFIX}${nodeCrypto().randomBytes(32).toString("base64url")}`;
  const at = new Date(deps.now());
  const value: StoredToken = {
    hash: sha256(secret).toString("hex"),
    prefix: secret.slice(0, METRICS_TOKEN_PREFIX.length + 4),
    last4: secret.slice(-4),
    createdAt: at.toISOString(),
    createdBy: user.username,
  };
  deps.db
    .insert(consoleSettings)
    .values({ key: KEY, value, updatedAt: at })
    .onConflictDoUpdate({ target: consoleSettings.key, set: { value, updatedAt: at } })
    .run();
  deps.events.publish({ type: "metrics-token-updated", data: { action: "created" } });
  return { ...metricsTokenView(deps), secret };
}

/** Deletes the UI token (404 when there is none); METRICS_TOKEN, when set, goes on working. */
export function revokeMetricsToken(deps: Pick<Deps, "db" | "config" | "events">): MetricsTokenView {
  if (!stored(deps.db)) throw new NotFound("Metrics token", "No scrape token was made in the console");
  deps.db.delete(consoleSettings).where(eq(consoleSettings.key, KEY)).run();
  deps.events.publish({ type: "metrics-token-updated", data: { action: "revoked" } });
  return metricsTokenView(deps);
}

export const SCRAPE_FAILURES_ALLOWED = 10;
export const SCRAPE_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED = 10_000;

/** Failed scrapes per address in a fixed window (see the module comment). */
export class ScrapeThrottle {
  private readonly failures = new Map<string, { since: number; count: number }>();

  /** Seconds until the address may try again, or 0. */
  retryAfter(ip: string | null, now: number): number {
    const f = this.failures.get(addressKey(ip));
    if (!f) return 0;
    if (now - f.since >= SCRAPE_WINDOW_MS) {
      this.failures.delete(addressKey(ip));
      return 0;
    }
    return f.count >= SCRAPE_FAILURES_ALLOWED ? Math.ceil((f.since + SCRAPE_WINDOW_MS - now) / 1000) : 0;
  }

  fail(ip: string | null, now: number): void {
    const key = addressKey(ip);
    const f = this.failures.get(key);
    if (f && now - f.since < SCRAPE_WINDOW_MS) f.count++;
    else {
      this.failures.delete(key);
      // The oldest entry goes first: a flood from many addresses forgets old counts, never grows memory.
      if (this.failures.size >= MAX_TRACKED) {
        const oldest = this.failures.keys().next().value;
        if (oldest !== undefined) this.failures.delete(oldest);
      }
      this.failures.set(key, { since: now, count: 1 });
    }
  }

  succeed(ip: string | null): void {
    this.failures.delete(addressKey(ip));
  }
}

const equalDigests = (a: Buffer, b: Buffer) => nodeCrypto().timingSafeEqual(a, b);

/**
 * Checks a scrape's `Authorization` header: 404 when no token is configured at all (metrics are off),
 * 429 while its address is throttled, 401 without a token or with a wrong one.
 */
export function authorizeScrape(
  deps: Pick<Deps, "db" | "config">,
  throttle: ScrapeThrottle,
  authorization: string | null,
  ip: string | null,
  now: number,
): void {
  const ui = stored(deps.db);
  const env = deps.config.metricsToken;
  if (!ui && env === null) {
    throw new NotFound("Metrics", "Metrics are off: set METRICS_TOKEN or create a scrape token in Settings");
  }
  const wait = throttle.retryAfter(ip, now);
  if (wait > 0) throw new RateLimited("Too many failed scrapes from this address; try again later", wait);
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (presented) {
    const digest = sha256(presented);
    const okUi = ui !== null && equalDigests(digest, Buffer.from(ui.hash, "hex"));
    const okEnv = env !== null && equalDigests(digest, sha256(env));
    if (okUi || okEnv) {
      throttle.succeed(ip);
      return;
    }
  }
  throttle.fail(ip, now);
  throw new Unauthenticated(
    presented ? "Wrong scrape token" : "Scrape token required: send Authorization: Bearer <token>",
    "Bearer",
  );
}

import type { Statement } from "bun:sqlite";
import { and, eq, inArray, lt, ne, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sessions } from "../../db/schema";
import { AUTH_TABLES, tableVersions } from "../../db/table-versions";
import type { SessionUser } from "../../shared/auth";
import type { Role } from "../../shared/users";

/** The session cookie over plain HTTP (loopback, or behind a proxy that terminates TLS). */
export const SESSION_COOKIE = "pbx_session";
/**
 * The session cookie under TLS: the `__Host-` prefix makes the browser accept it only with `Secure`,
 * `Path=/` and no `Domain`, so no sibling host can set or shadow it.
 */
export const HOST_SESSION_COOKIE = "__Host-pbx_session";
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** lastSeenAt is written at most this often, so reads do not turn into writes. */
const TOUCH_EVERY_MS = 60 * 1000;
/** Most sessions whose lookup is kept between writes (ADR 0035); past it the kept lookups start again. */
const KEPT_LOOKUPS_MAX = 1000;
/** Longest user agent kept for the sessions list. */
const USER_AGENT_MAX = 256;

/** The cookie name a console with (or without) TLS sets. */
export const sessionCookieName = (tls: boolean) => (tls ? HOST_SESSION_COOKIE : SESSION_COOKIE);

const sha256 = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");
const randomId = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");

/** Where a session was started from (shown in the sessions list). */
export interface SessionClient {
  ip?: string | null;
  userAgent?: string | null;
}

/** A stored session as the sessions list shows it (no token, no hash). */
export interface SessionRow {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  clientIp: string | null;
  userAgent: string | null;
}

/** A session and its user, as the per-request lookup reads them (timestamps in ms). */
interface SessionLookupRow {
  id: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  username: string;
  role: Role;
  disabled: number;
}

/** Every request's session check: one prepared statement (the columns of `sessions` and `users` in src/db/schema.ts). */
const LOOKUP_SQL = `SELECT s.id AS id, s.user_id AS userId, s.created_at AS createdAt, s.last_seen_at AS lastSeenAt,
  u.username AS username, u.role AS role, u.disabled AS disabled
  FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?`;

/** The open sockets, by session: the hub closes a session's sockets when the session ends. */
export interface SessionSockets {
  closeSessions(ids: readonly string[]): void;
  openSessionIds(): string[];
}

/**
 * Server-side sessions: a random 256-bit token in the cookie, only its hash stored, and a separate
 * random id for the sessions list. Whatever ends a session (sign-out, expiry, password change,
 * "sign out" from another browser) closes its sockets through `sockets`.
 */
export class SessionStore {
  /** Prepared on first use (the store may be built before the tables exist, e.g. by the CLI). */
  private lookup: Statement<SessionLookupRow, [string]> | null = null;
  /**
   * Lookups kept while no session, user, two-factor secret or setting was written by anyone (the stamp of
   * their table versions, kept by SQLite triggers: ADR 0035). Only found sessions are kept; the time rules
   * (absolute and idle expiry) are applied to a kept row at every request like to a fresh one.
   */
  private kept = new Map<string, SessionLookupRow>();
  private keptStamp: string | null = null;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly sockets?: SessionSockets,
  ) {}

  create(userId: string, client: SessionClient = {}): string {
    const token = randomId(32);
    const at = new Date(this.now());
    this.db
      .insert(sessions)
      .values({
        tokenHash: sha256(token),
        id: randomId(16),
        userId,
        createdAt: at,
        lastSeenAt: at,
        clientIp: client.ip ?? null,
        userAgent: client.userAgent ? client.userAgent.slice(0, USER_AGENT_MAX) : null,
      })
      .run();
    return token;
  }

  /** The signed-in user and the session's id for a token, or null when unknown or expired. */
  current(token: string | null | undefined): { user: SessionUser; sessionId: string } | null {
    if (!token || token.length > 200) return null;
    const hash = sha256(token);
    const row = this.find(hash);
    if (!row) return null;
    const now = this.now();
    const times = { createdAt: new Date(row.createdAt), lastSeenAt: new Date(row.lastSeenAt) };
    // A disabled user's sessions are ended when they are disabled; this is the backstop.
    if (row.disabled || this.expired(times, now)) {
      this.db.delete(sessions).where(eq(sessions.tokenHash, hash)).run();
      this.ended([row.id]);
      return null;
    }
    if (now - row.lastSeenAt >= TOUCH_EVERY_MS) {
      this.db
        .update(sessions)
        .set({ lastSeenAt: new Date(now) })
        .where(eq(sessions.tokenHash, hash))
        .run();
    }
    return { user: { id: row.userId, username: row.username, role: row.role }, sessionId: row.id };
  }

  /** The session row of a token's hash: kept from an earlier request while nothing it depends on was written. */
  private find(hash: string): SessionLookupRow | null {
    const stamp = tableVersions(this.db).stamp(AUTH_TABLES);
    if (stamp === null || stamp !== this.keptStamp) {
      this.kept.clear();
      this.keptStamp = stamp;
    }
    const kept = this.kept.get(hash);
    if (kept) return kept;
    this.lookup ??= this.db.$client.prepare<SessionLookupRow, [string]>(LOOKUP_SQL);
    const row = this.lookup.get(hash);
    if (!row) return null;
    if (stamp !== null) {
      if (this.kept.size >= KEPT_LOOKUPS_MAX) this.kept.clear();
      this.kept.set(hash, row);
    }
    return row;
  }

  /** The signed-in user for a token, or null when unknown or expired (absolute or idle). */
  validate(token: string | null | undefined): SessionUser | null {
    return this.current(token)?.user ?? null;
  }

  /** Whether a session (by id) still exists and has not expired; does not count as activity. */
  isLive(id: string): boolean {
    const row = this.db.select().from(sessions).where(eq(sessions.id, id)).get();
    return Boolean(row && !this.expired(row, this.now()));
  }

  /** The user's sessions that have not expired, newest first. */
  list(userId: string): SessionRow[] {
    const now = this.now();
    return this.db
      .select()
      .from(sessions)
      .where(eq(sessions.userId, userId))
      .all()
      .filter((s) => !this.expired(s, now))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map(({ id, createdAt, lastSeenAt, clientIp, userAgent }) => ({
        id,
        createdAt,
        lastSeenAt,
        clientIp,
        userAgent,
      }));
  }

  /** Ends the session of this token; returns its id (null when there was none). */
  revoke(token: string | null | undefined): string | null {
    if (!token) return null;
    const row = this.db
      .delete(sessions)
      .where(eq(sessions.tokenHash, sha256(token)))
      .returning({ id: sessions.id })
      .get();
    if (row) this.ended([row.id]);
    return row?.id ?? null;
  }

  /** Ends one of the user's sessions by id; false when the user has no such session. */
  revokeById(userId: string, id: string): boolean {
    const rows = this.db
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), eq(sessions.id, id)))
      .returning({ id: sessions.id })
      .all();
    this.ended(rows.map((r) => r.id));
    return rows.length > 0;
  }

  /** Ends every session of the user except `exceptId` (the caller's own); returns how many ended. */
  revokeAllFor(userId: string, exceptId?: string): number {
    const rows = this.db
      .delete(sessions)
      .where(exceptId ? and(eq(sessions.userId, userId), ne(sessions.id, exceptId)) : eq(sessions.userId, userId))
      .returning({ id: sessions.id })
      .all();
    this.ended(rows.map((r) => r.id));
    return rows.length;
  }

  /**
   * Deletes expired sessions and closes every open socket whose session is gone (expired here, or
   * ended by another process such as `pbx-console create-admin`). Called periodically.
   */
  sweep(): void {
    const now = this.now();
    const gone = this.db
      .delete(sessions)
      .where(
        or(
          lt(sessions.createdAt, new Date(now - SESSION_ABSOLUTE_MS + 1)),
          lt(sessions.lastSeenAt, new Date(now - SESSION_IDLE_MS + 1)),
        ),
      )
      .returning({ id: sessions.id })
      .all()
      .map((r) => r.id);
    const open = this.sockets?.openSessionIds() ?? [];
    if (open.length) {
      const alive = new Set(
        this.db
          .select({ id: sessions.id })
          .from(sessions)
          .where(inArray(sessions.id, open))
          .all()
          .map((r) => r.id),
      );
      gone.push(...open.filter((id) => !alive.has(id)));
    }
    this.ended(gone);
  }

  private expired(s: { createdAt: Date; lastSeenAt: Date }, now: number): boolean {
    return now - s.createdAt.getTime() >= SESSION_ABSOLUTE_MS || now - s.lastSeenAt.getTime() >= SESSION_IDLE_MS;
  }

  private ended(ids: readonly string[]): void {
    if (ids.length) this.sockets?.closeSessions(ids);
  }
}

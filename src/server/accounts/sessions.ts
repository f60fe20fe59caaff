import { eq, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sessions, users } from "../../db/schema";
import type { SessionUser } from "../../shared/auth";

export const SESSION_COOKIE = "pbx_session";
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** lastSeenAt is written at most this often, so reads do not turn into writes. */
const TOUCH_EVERY_MS = 60 * 1000;

const sha256 = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

/** Server-side sessions: a random 256-bit token in the cookie, only its hash stored. */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  create(userId: string): string {
    const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    const at = new Date(this.now());
    this.db
      .insert(sessions)
      .values({ tokenHash: sha256(token), userId, createdAt: at, lastSeenAt: at })
      .run();
    return token;
  }

  /** The signed-in user for a token, or null when unknown or expired (absolute or idle). */
  validate(token: string | null | undefined): SessionUser | null {
    if (!token || token.length > 200) return null;
    const hash = sha256(token);
    const row = this.db
      .select({ s: sessions, username: users.username })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.tokenHash, hash))
      .get();
    if (!row) return null;
    const now = this.now();
    const expired =
      now - row.s.createdAt.getTime() >= SESSION_ABSOLUTE_MS || now - row.s.lastSeenAt.getTime() >= SESSION_IDLE_MS;
    if (expired) {
      this.db.delete(sessions).where(eq(sessions.tokenHash, hash)).run();
      return null;
    }
    if (now - row.s.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      this.db
        .update(sessions)
        .set({ lastSeenAt: new Date(now) })
        .where(eq(sessions.tokenHash, hash))
        .run();
    }
    return { id: row.s.userId, username: row.username };
  }

  revoke(token: string | null | undefined): void {
    if (token)
      this.db
        .delete(sessions)
        .where(eq(sessions.tokenHash, sha256(token)))
        .run();
  }

  revokeAllFor(userId: string): void {
    this.db.delete(sessions).where(eq(sessions.userId, userId)).run();
  }

  /** Deletes expired sessions; called periodically. */
  sweep(): void {
    const now = this.now();
    this.db
      .delete(sessions)
      .where(
        or(
          lt(sessions.createdAt, new Date(now - SESSION_ABSOLUTE_MS)),
          lt(sessions.lastSeenAt, new Date(now - SESSION_IDLE_MS)),
        ),
      )
      .run();
  }
}

import { count, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { users } from "../../db/schema";
import type { Role } from "../../shared/users";

/** argon2id via Bun.password (async: hashing runs off the event loop). */
export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

// Verified against when the username is unknown, so both paths take the same time.
let dummyHash: Promise<string> | null = null;

export function userCount(db: Db): number {
  return db.select({ n: count() }).from(users).get()?.n ?? 0;
}

export function findUser(db: Db, username: string) {
  return db.select().from(users).where(eq(users.username, username)).get();
}

/** The user when the password matches, otherwise null (constant work either way). */
export async function checkPassword(db: Db, username: string, password: string) {
  const user = findUser(db, username);
  if (!user) {
    dummyHash ??= hashPassword("not-a-real-password-000");
    await Bun.password.verify(password, await dummyHash);
    return null;
  }
  return (await Bun.password.verify(password, user.password)) ? user : null;
}

/** Inserts a user with an already hashed password; throws on a duplicate username. */
export function insertUser(db: Db, username: string, passwordHash: string) {
  return db.insert(users).values({ username, password: passwordHash }).returning().get();
}

export function updatePasswordHash(
  db: Db,
  userId: string,
  passwordHash: string,
  also: { role?: Role; disabled?: boolean } = {},
) {
  db.update(users)
    .set({ password: passwordHash, ...also })
    .where(eq(users.id, userId))
    .run();
}

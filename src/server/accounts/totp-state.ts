/** A user's stored two-factor state (the `user_totp` row): read by sign-in, the security settings and set-up. */
import { eq } from "drizzle-orm";
import { userTotp } from "../../db/schema";
import type { Deps } from "../core/deps";

export const totpRowOf = (db: Deps["db"], userId: string) =>
  db.select().from(userTotp).where(eq(userTotp.userId, userId)).get();

/** Whether the user signs in with a second factor. */
export function totpEnabled(db: Deps["db"], userId: string): boolean {
  return Boolean(totpRowOf(db, userId)?.secret);
}

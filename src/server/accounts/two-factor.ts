/**
 * Two-factor sign-in of a console user (TOTP, RFC 6238; the algorithm is in `totp.ts`).
 *
 * - Set up: a new secret is stored sealed as *pending* and returned once (with its otpauth link and QR).
 * - Enable: a current code of the pending secret turns it on and returns ten single-use recovery codes,
 *   once; only their SHA-256 is stored.
 * - Sign-in: a code is accepted within one step of clock skew and only for a time step after the last
 *   accepted one (no replay inside its window); a recovery code works once.
 * - Disable: needs the current password (checked under the sign-in throttle, like a password change),
 *   and is refused while the console requires two-factor sign-in for everyone (`settings.ts`).
 */
import { eq } from "drizzle-orm";
import { userTotp } from "../../db/schema";
import {
  type SessionUser,
  TOTP_CODE_WRONG,
  type TotpDisableInput,
  type TotpEnabled,
  type TotpEnableInput,
  type TotpSetup,
  type TotpStatus,
} from "../../shared/auth";
import { TOTP_REQUIRED_CANNOT_DISABLE } from "../../shared/settings";
import type { Deps } from "../core/deps";
import { Conflict, Invalid } from "../core/errors";
import { nodeCrypto } from "../lazy-node";
import { qrDataUrl } from "../qr";
import type { AccountDeps, ClientInfo } from "./account-deps";
import { confirmPassword } from "./confirm-password";
import { securitySettings } from "./settings";
import { matchTotp, newTotpSecret, otpauthUrl } from "./totp";
import { totpRowOf as rowOf, totpEnabled } from "./totp-state";

export { totpEnabled };

export const RECOVERY_CODE_COUNT = 10;

/** A recovery code as typed: case, spaces and dashes do not matter. */
const normalizeRecovery = (code: string) => code.toLowerCase().replace(/[\s-]/g, "");
const hashRecovery = (code: string) => nodeCrypto().createHash("sha256").update(normalizeRecovery(code)).digest("hex");

/** Ten codes like `k3j9a-x2p7q` (50 random bits each). */
function newRecoveryCodes(): string[] {
  const alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = nodeCrypto().randomBytes(10);
    const chars = Array.from(bytes, (b) => alphabet[b & 31]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** Turns two-factor sign-in off without a code (the shell's `create-admin`, for an owner who lost the device). */
export function removeTotp(db: Deps["db"], userId: string): boolean {
  return db.delete(userTotp).where(eq(userTotp.userId, userId)).returning({ userId: userTotp.userId }).all().length > 0;
}

export function totpStatus(deps: Pick<Deps, "db">, user: SessionUser): TotpStatus {
  const row = rowOf(deps.db, user.id);
  return {
    enabled: Boolean(row?.secret),
    pending: Boolean(row?.pendingSecret),
    recoveryCodesLeft: row?.secret ? row.recoveryCodes.length : 0,
  };
}

/** Starts setting up: a new secret, stored sealed as pending (a previous pending one is replaced). */
export async function setupTotp(deps: Pick<Deps, "db" | "events" | "box">, user: SessionUser): Promise<TotpSetup> {
  if (totpEnabled(deps.db, user.id)) throw new Conflict("Two-factor sign-in is already on; turn it off first");
  const secret = newTotpSecret();
  const sealed = deps.box.seal(secret);
  deps.db
    .insert(userTotp)
    .values({ userId: user.id, pendingSecret: sealed })
    .onConflictDoUpdate({ target: userTotp.userId, set: { pendingSecret: sealed } })
    .run();
  deps.events.publish({ type: "accounts-updated", data: { id: user.id, action: "totp-setup" } });
  const url = otpauthUrl(user.username, secret);
  return { secret, otpauthUrl: url, qrDataUrl: await qrDataUrl(url) };
}

/** Turns two-factor sign-in on with a current code of the pending secret; returns the recovery codes once. */
export function enableTotp(
  deps: Pick<Deps, "db" | "events" | "box" | "now">,
  user: SessionUser,
  input: TotpEnableInput,
): TotpEnabled {
  const row = rowOf(deps.db, user.id);
  if (row?.secret) throw new Conflict("Two-factor sign-in is already on");
  if (!row?.pendingSecret) throw new Invalid("Set up two-factor sign-in first", { code: "Set up first" });
  const step = matchTotp(deps.box.open(row.pendingSecret), input.code, deps.now());
  if (step === null) throw new Invalid(TOTP_CODE_WRONG, { code: TOTP_CODE_WRONG });
  const recoveryCodes = newRecoveryCodes();
  deps.db
    .update(userTotp)
    .set({
      secret: row.pendingSecret,
      pendingSecret: null,
      enabledAt: new Date(deps.now()),
      lastStep: step,
      recoveryCodes: recoveryCodes.map(hashRecovery),
    })
    .where(eq(userTotp.userId, user.id))
    .run();
  deps.events.publish({ type: "accounts-updated", data: { id: user.id, action: "totp-enabled" } });
  return { recoveryCodes };
}

/**
 * The second factor at sign-in, after the password was right: "off" when the user has no TOTP, "missing"
 * without a code, "wrong" for a wrong, expired or replayed code or a used recovery code, "ok" otherwise
 * (the step or the recovery code is consumed). Synchronous: the check and the consumption cannot
 * interleave with another sign-in.
 */
export function checkSecondFactor(
  deps: Pick<Deps, "db" | "box" | "now">,
  userId: string,
  code: string | undefined,
): "off" | "missing" | "wrong" | "ok" {
  const row = rowOf(deps.db, userId);
  if (!row?.secret) return "off";
  if (!code) return "missing";
  const step = matchTotp(deps.box.open(row.secret), code, deps.now(), row.lastStep);
  if (step !== null) {
    deps.db.update(userTotp).set({ lastStep: step }).where(eq(userTotp.userId, userId)).run();
    return "ok";
  }
  const hash = hashRecovery(code);
  if (!/^\d{6}$/.test(code) && row.recoveryCodes.includes(hash)) {
    const rest = row.recoveryCodes.filter((h) => h !== hash);
    deps.db.update(userTotp).set({ recoveryCodes: rest }).where(eq(userTotp.userId, userId)).run();
    return "ok";
  }
  return "wrong";
}

/**
 * Turns two-factor sign-in off; the current password must be given (throttled and logged like a sign-in).
 * `Conflict` while the console requires it for everyone (checked first, and again after the password).
 */
export async function disableTotp(
  deps: Pick<Deps, "db" | "events"> & Pick<AccountDeps, "throttle">,
  user: SessionUser,
  input: TotpDisableInput,
  client: ClientInfo = { ip: null },
): Promise<void> {
  const refuseWhileRequired = () => {
    if (securitySettings(deps.db).requireTotp) throw new Conflict(TOTP_REQUIRED_CANNOT_DISABLE);
  };
  refuseWhileRequired();
  await confirmPassword(deps, user, input.password, client.ip, {
    field: "password",
    message: "The password is wrong",
  });
  // The policy may have been turned on while the password was checked.
  refuseWhileRequired();
  deps.db.delete(userTotp).where(eq(userTotp.userId, user.id)).run();
  deps.events.publish({ type: "accounts-updated", data: { id: user.id, action: "totp-disabled" } });
}

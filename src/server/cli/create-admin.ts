import { parseArgs } from "node:util";
import type { Db } from "../../db/client";
import { AUDIT_MASK } from "../../shared/audit";
import { passwordSchema, usernameSchema } from "../../shared/auth";
import { CLI_ACTOR, cliDeps, recordAudit } from "../accounts/audit";
import { SessionStore } from "../accounts/sessions";
import { removeTotp } from "../accounts/two-factor";
import { findUser, hashPassword, insertUser, updatePasswordHash } from "../accounts/users";
import { readPassword } from "./prompt";

/**
 * `pbx-console create-admin --username NAME`: asks for the password (twice on a
 * terminal, hidden; one line from stdin otherwise). On an existing username it
 * resets that user's password and signs out its sessions (the recovery path).
 */
export async function createAdminCommand(openDb: () => Db, argv: string[]): Promise<number> {
  let username: string | undefined;
  try {
    ({
      values: { username },
    } = parseArgs({ args: argv, options: { username: { type: "string", short: "u" } } }));
  } catch (err) {
    console.error(`${(err as Error).message}\nUsage: pbx-console create-admin --username NAME`);
    return 2;
  }
  const name = usernameSchema.safeParse(username ?? "");
  if (!name.success) {
    console.error(`--username: ${name.error.issues[0]?.message}\nUsage: pbx-console create-admin --username NAME`);
    return 2;
  }
  const interactive = Boolean(process.stdin.isTTY);
  const password = await readPassword("Password: ", interactive);
  if (password === null) {
    console.error("No password given on standard input.");
    return 2;
  }
  const checked = passwordSchema.safeParse(password);
  if (!checked.success) {
    console.error(checked.error.issues[0]?.message);
    return 2;
  }
  if (interactive) {
    const again = await readPassword("Repeat password: ", true);
    if (again !== password) {
      console.error("Passwords do not match.");
      return 2;
    }
  }
  const hash = await hashPassword(password);
  const db = openDb();
  const existing = findUser(db, name.data);
  if (existing) {
    // The way back in: the account is also made an enabled administrator.
    updatePasswordHash(db, existing.id, hash, { role: "admin", disabled: false });
    new SessionStore(db, Date.now).revokeAllFor(existing.id);
    // Whoever runs this has the PBX host's shell: a lost authenticator must not keep the owner out.
    const totpOff = removeTotp(db, existing.id) ? " Two-factor sign-in was turned off." : "";
    recordAudit(cliDeps(db), {
      actor: CLI_ACTOR,
      action: "user.reset-by-cli",
      outcome: "ok",
      objectType: "user",
      objectId: existing.id,
      objectLabel: name.data,
      changes: [
        { field: "password", to: AUDIT_MASK },
        { field: "role", to: "admin" },
        { field: "disabled", to: "false" },
      ],
      detail: `Sessions signed out.${totpOff}`,
    });
    console.log(`Password of ${name.data} reset; its sessions were signed out.${totpOff}`);
  } else {
    insertUser(db, name.data, hash);
    recordAudit(cliDeps(db), {
      actor: CLI_ACTOR,
      action: "user.create-by-cli",
      outcome: "ok",
      objectType: "user",
      objectLabel: name.data,
      changes: [{ field: "role", to: "admin" }],
    });
    console.log(`Administrator ${name.data} created. Sign in at the console's address.`);
  }
  db.$client.close();
  return 0;
}

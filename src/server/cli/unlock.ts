import { parseArgs } from "node:util";
import type { Db } from "../../db/client";
import { CLI_ACTOR, cliDeps, recordAudit } from "../accounts/audit";
import { LoginThrottle } from "../accounts/throttle";

const USAGE = "Usage: pbx-console unlock [--username NAME] [--address IP]";

/**
 * `pbx-console unlock [--username NAME] [--address IP]`: forgets the sign-in throttle's failures
 * (docs/decisions/0016): all of them, or those of one account (at every address) and/or of one
 * client address. The state is in the database, so a running console sees it at the next attempt.
 */
export function unlockCommand(openDb: () => Db, argv: string[]): number {
  let username: string | undefined;
  let address: string | undefined;
  try {
    ({
      values: { username, address },
    } = parseArgs({
      args: argv,
      options: { username: { type: "string", short: "u" }, address: { type: "string", short: "a" } },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (username !== undefined && !username.trim()) {
    console.error(`--username needs a name\n${USAGE}`);
    return 2;
  }
  if (address !== undefined && !/^[0-9A-Fa-f.:]{2,45}$/.test(address)) {
    console.error(`--address needs an IP address\n${USAGE}`);
    return 2;
  }
  const db = openDb();
  try {
    const cleared = new LoginThrottle(db, Date.now).clear({ username, address });
    const what = [username && `account ${username.trim()}`, address && `address ${address}`].filter(Boolean);
    recordAudit(cliDeps(db), {
      actor: CLI_ACTOR,
      action: "auth.unlock-by-cli",
      outcome: "ok",
      detail: `Sign-in throttle cleared for ${what.length ? what.join(" and ") : "every account and address"}`,
    });
    console.log(
      `Sign-in throttle cleared for ${what.length ? what.join(" and ") : "every account and address"} (${cleared} record(s)).`,
    );
  } finally {
    db.$client.close();
  }
  return 0;
}

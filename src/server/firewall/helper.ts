/**
 * The root helper between the console and fail2ban (ADR 0067): `pbx-console fail2ban-helper`.
 *
 * fail2ban's socket is root's (it runs with umask 077) and whoever may write to it may also define actions
 * that fail2ban runs as root, so the console's own user gets neither. install.sh --fail2ban installs a
 * systemd socket (`pbx-console-fail2ban.socket`, a Unix socket only the console's group may open) whose
 * every connection starts this command as root with the connection as its standard input and output
 * (`Accept=yes`). It reads one operation as a JSON line, checks it exactly as the console's client does
 * (`checkOp`: the fixed operations, the jail name, the address or network through `node:net`), and more:
 * only the jails of FAIL2BAN_JAILS, and no trusted network wider than the console allows. It then runs
 * fail2ban-client directly with the fixed argv and writes one JSON answer. Nothing else is reachable
 * through it: not `set <jail> action…`, not another jail, not a shell.
 */
import { WIDEST_TRUSTED_PREFIX } from "../../shared/firewall";
import { parseNetwork } from "../../shared/ip";
import { checkOp, Fail2banError, type HelperAnswer, runFail2banClient } from "../clients/fail2ban";
import type { Config } from "../config";

/** One request line is a few dozen bytes; more is not a request. */
const MAX_REQUEST = 4096;
const READ_TIMEOUT_MS = 5_000;

/** The answer to one request line (never throws: every failure is an answer). */
export async function answerHelperRequest(line: string, config: Pick<Config, "fail2ban">): Promise<HelperAnswer> {
  try {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Fail2banError("refused", "Not a fail2ban operation");
    }
    const op = await checkOp(value);
    if ("jail" in op && !config.fail2ban.jails.includes(op.jail)) {
      throw new Fail2banError(
        "refused",
        `The helper acts only in the jails of FAIL2BAN_JAILS (${config.fail2ban.jails.join(", ")})`,
      );
    }
    if (op.op === "trust") {
      const net = parseNetwork(op.network);
      if (!net || net.prefix < WIDEST_TRUSTED_PREFIX[net.version])
        throw new Fail2banError("refused", "Network too wide");
    }
    const out = await runFail2banClient({ ...config.fail2ban, helper: null }, op);
    return { ok: true, out };
  } catch (err) {
    if (err instanceof Fail2banError) return { ok: false, kind: err.kind, message: err.message };
    return { ok: false, kind: "failed", message: "The helper failed" };
  }
}

/** Reads standard input up to the first newline (bounded, with a deadline). */
async function readRequestLine(): Promise<string> {
  const reader = Bun.stdin.stream().getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const timer = setTimeout(() => void reader.cancel(), READ_TIMEOUT_MS);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      chunks.push(value);
      size += value.length;
      if (value.includes(10) || size > MAX_REQUEST) break;
    }
  } catch {
    // Cancelled by the deadline: what was read is judged as is.
  } finally {
    clearTimeout(timer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  const newline = text.indexOf("\n");
  return size > MAX_REQUEST ? "" : newline < 0 ? text : text.slice(0, newline);
}

/** `pbx-console fail2ban-helper`: one request from standard input, one answer on standard output. */
export async function fail2banHelperCommand(config: Pick<Config, "fail2ban">): Promise<number> {
  const answer = await answerHelperRequest(await readRequestLine(), config);
  await Bun.write(Bun.stdout, `${JSON.stringify(answer)}\n`);
  return answer.ok ? 0 : 1;
}

/**
 * fail2ban through its own client, `fail2ban-client` (ADR 0067). Every command is one fixed argv array
 * (`Bun.spawn([...])`, never a shell): a subcommand the console names, a jail name and an address or network
 * that were parsed and checked again here with `node:net` right before they become arguments. fail2ban's
 * socket is root's; the installed console reaches it through a root helper that takes the same operations
 * (`FAIL2BAN_HELPER`, a Unix socket; `firewall/helper.ts`), and tests and root installs run the client
 * directly against `FAIL2BAN_SOCKET`.
 *
 * Failures are one `Fail2banError` with a kind the domain maps: not installed, not running, permission
 * denied, unknown jail, timed out, refused (bad input), failed.
 */
import { JAIL_NAME } from "../../shared/firewall";
import { parseIp, parseNetwork } from "../../shared/ip";

export type Fail2banFailure =
  | "not-installed"
  | "not-running"
  | "permission-denied"
  | "unknown-jail"
  | "timeout"
  | "refused"
  | "failed";

export class Fail2banError extends Error {
  constructor(
    readonly kind: Fail2banFailure,
    message: string,
  ) {
    super(message);
  }
}

/** One thing fail2ban is asked; the helper takes exactly these (as JSON) and nothing else. */
export type Fail2banOp =
  | { op: "status" }
  | { op: "banned" | "ignored"; jail: string }
  | { op: "ban" | "unban"; jail: string; address: string }
  | { op: "trust" | "untrust"; jail: string; network: string };

export interface Fail2banOptions {
  /** The fail2ban-client program (FAIL2BAN_CLIENT). */
  client: string;
  /** fail2ban's socket (FAIL2BAN_SOCKET). */
  socket: string;
  /** The root helper's socket (FAIL2BAN_HELPER); when set, every operation goes through it. */
  helper?: string | null;
  timeoutMs?: number;
}

export interface Fail2banBan {
  address: string;
  /** Epoch ms of the ban (fail2ban's local time), null when not said. */
  bannedAt: number | null;
  /** Epoch ms the ban ends, null when permanent or not said. */
  expiresAt: number | null;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** What one answer may hold: a jail's ban list with times is ~70 bytes a line. */
const MAX_OUTPUT = 4 * 1024 * 1024;

/** The argv after `fail2ban-client -s <socket>` of an operation (checked first). */
export function argvOf(op: Fail2banOp): string[] {
  switch (op.op) {
    case "status":
      return ["status"];
    case "banned":
      return ["get", op.jail, "banip", "--with-time"];
    case "ignored":
      return ["get", op.jail, "ignoreip"];
    case "ban":
      return ["set", op.jail, "banip", op.address];
    case "unban":
      return ["set", op.jail, "unbanip", op.address];
    case "trust":
      return ["set", op.jail, "addignoreip", op.network];
    case "untrust":
      return ["set", op.jail, "delignoreip", op.network];
  }
}

const refused = (message: string) => new Fail2banError("refused", message);

/**
 * The operation as it may reach argv, or a `refused` error: a known op, a jail name of letters, digits,
 * `._-`, an address `node:net` calls an IP (and that the shared parser writes the same way), a network whose
 * address part is one and whose prefix is a number in range. Also what the helper checks a request with.
 */
export async function checkOp(value: unknown): Promise<Fail2banOp> {
  const { isIP } = await import("node:net");
  if (!value || typeof value !== "object" || Array.isArray(value)) throw refused("Not a fail2ban operation");
  const v = value as Record<string, unknown>;
  const keys = Object.keys(v).sort().join(",");
  const jail = () => {
    if (typeof v.jail !== "string" || !JAIL_NAME.test(v.jail)) throw refused("Not a jail name");
    return v.jail;
  };
  switch (v.op) {
    case "status":
      if (keys !== "op") break;
      return { op: "status" };
    case "banned":
    case "ignored":
      if (keys !== "jail,op") break;
      return { op: v.op, jail: jail() };
    case "ban":
    case "unban": {
      if (keys !== "address,jail,op") break;
      const ip = typeof v.address === "string" ? parseIp(v.address) : null;
      if (!ip || ip.text !== v.address || isIP(v.address as string) === 0) throw refused("Not an IP address");
      return { op: v.op, jail: jail(), address: ip.text };
    }
    case "trust":
    case "untrust": {
      if (keys !== "jail,network,op") break;
      const net = typeof v.network === "string" ? parseNetwork(v.network) : null;
      const base = typeof v.network === "string" ? v.network.split("/")[0] : "";
      if (!net || net.text !== v.network || isIP(base ?? "") === 0) throw refused("Not a network");
      return { op: v.op, jail: jail(), network: net.text };
    }
  }
  throw refused("Not a fail2ban operation");
}

/** The meaning of a failed run from what fail2ban-client printed. */
function failureOf(code: number | null, out: string, err: string, op: Fail2banOp): Fail2banError {
  const text = `${out}\n${err}`;
  if (/Permission denied to socket|you must be root/i.test(text)) {
    return new Fail2banError(
      "permission-denied",
      "fail2ban refused the console: its socket is root's (install the console with --fail2ban for its helper, ADR 0067)",
    );
  }
  if (
    /Failed to access socket path|Is fail2ban running|No such file or directory.*sock|Connection refused/i.test(text)
  ) {
    return new Fail2banError("not-running", "fail2ban is not running (start it: systemctl start fail2ban)");
  }
  if ("jail" in op && (text.includes(`jail '${op.jail}' does not exist`) || text.includes(`NOK: ('${op.jail}',)`))) {
    return new Fail2banError("unknown-jail", `fail2ban has no jail "${op.jail}"`);
  }
  const line =
    text
      .split("\n")
      .map((l) => l.replace(/^\S+ \S+ fail2ban\S*\s+\[\d+\]:\s+/, "").trim())
      .filter((l) => l !== "" && !/^WARNING\b/.test(l))
      .pop() ?? "";
  return new Fail2banError(
    "failed",
    `fail2ban-client failed (exit ${code ?? "?"})${line ? `: ${line.slice(0, 300)}` : ""}`,
  );
}

async function readCapped(stream: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_OUTPUT) {
      await reader.cancel();
      throw new Fail2banError("failed", "fail2ban-client printed more than expected");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Runs fail2ban-client once with the operation's fixed argv; its standard output, or a `Fail2banError`. */
export async function runFail2banClient(opts: Fail2banOptions, input: Fail2banOp): Promise<string> {
  const op = await checkOp(input);
  const argv = [opts.client, "-s", opts.socket, ...argvOf(op)];
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn(argv, {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      // A fixed, small environment: no locale surprises in the text parsed below, nothing of the console's.
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C.UTF-8" },
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOENT" || /ENOENT|not found/i.test(String(err))) {
      throw new Fail2banError(
        "not-installed",
        `fail2ban is not installed (${opts.client} not found; apt-get install fail2ban)`,
      );
    }
    if (code === "EACCES") throw new Fail2banError("permission-denied", `${opts.client} may not be run by the console`);
    throw new Fail2banError("failed", `fail2ban-client could not be started: ${(err as Error).message}`);
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const [out, err, code] = await Promise.all([readCapped(proc.stdout), readCapped(proc.stderr), proc.exited]);
    if (timedOut) throw new Fail2banError("timeout", "fail2ban did not answer in time");
    if (code !== 0) throw failureOf(code, out, err, op);
    return out;
  } finally {
    clearTimeout(timer);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  }
}

/** The helper's answer: fail2ban-client's output, or the failure it met. */
export type HelperAnswer = { ok: true; out: string } | { ok: false; kind: Fail2banFailure; message: string };

/** Sends one operation to the root helper over its Unix socket and reads its one answer. */
async function viaHelper(path: string, op: Fail2banOp, timeoutMs: number): Promise<string> {
  const answer = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new Fail2banError("timeout", "the fail2ban helper did not answer in time"))),
      timeoutMs,
    );
    Bun.connect({
      unix: path,
      socket: {
        open(socket) {
          socket.write(`${JSON.stringify(op)}\n`);
        },
        data(socket, data) {
          size += data.length;
          if (size > MAX_OUTPUT) {
            socket.end();
            finish(() => reject(new Fail2banError("failed", "the fail2ban helper answered more than expected")));
            return;
          }
          chunks.push(Buffer.from(data));
        },
        close() {
          finish(() => resolve(Buffer.concat(chunks).toString("utf8")));
        },
        error(_socket, err) {
          finish(() => reject(new Fail2banError("failed", `the fail2ban helper failed: ${err.message}`)));
        },
      },
    }).catch((err: Error & { code?: string }) => {
      const missing = err.code === "ENOENT" || err.code === "ECONNREFUSED" || /ENOENT|ECONNREFUSED/.test(String(err));
      finish(() =>
        reject(
          missing
            ? new Fail2banError(
                "not-running",
                `the fail2ban helper is not there (${path}; install the console with --fail2ban)`,
              )
            : err.code === "EACCES" || /EACCES/.test(String(err))
              ? new Fail2banError("permission-denied", `the console may not use the fail2ban helper (${path})`)
              : new Fail2banError("failed", `the fail2ban helper could not be reached: ${err.message}`),
        ),
      );
    });
  });
  let parsed: HelperAnswer;
  try {
    parsed = JSON.parse(answer) as HelperAnswer;
  } catch {
    throw new Fail2banError("failed", "the fail2ban helper's answer was not understood");
  }
  if (parsed.ok === true && typeof parsed.out === "string") return parsed.out;
  if (parsed.ok === false) throw new Fail2banError(parsed.kind, String(parsed.message));
  throw new Fail2banError("failed", "the fail2ban helper's answer was not understood");
}

/** `Jail list:\tone, two` → the names. */
export function parseJailList(out: string): string[] {
  const line = out.split("\n").find((l) => /Jail list:/.test(l));
  if (!line) return [];
  return line
    .replace(/^.*Jail list:\s*/, "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** fail2ban prints times in the server's local time, `2026-12-07 03:17:34`. */
function localTime(text: string): number | null {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const t = new Date(y as number, (mo as number) - 1, d, h, mi, s).getTime();
  return Number.isFinite(t) ? t : null;
}

/** `get <jail> banip --with-time`: `<ip> \t<start> + <seconds> = <end>` per line (`+ -1`: permanent). */
export function parseBans(out: string): Fail2banBan[] {
  const bans: Fail2banBan[] = [];
  for (const line of out.split("\n")) {
    const m =
      /^\s*(\S+)\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*\+\s*(-?\d+)\s*=\s*(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$/.exec(
        line,
      );
    const bare = m ? null : /^\s*(\S+)\s*$/.exec(line);
    const address = m?.[1] ?? bare?.[1];
    if (!address) continue;
    const ip = parseIp(address);
    if (!ip) continue;
    const permanent = m ? Number(m[3]) < 0 : true;
    bans.push({
      address: ip.text,
      bannedAt: m ? localTime(m[2] as string) : null,
      expiresAt: m && !permanent ? localTime(m[4] as string) : null,
    });
  }
  return bans;
}

/** `get <jail> ignoreip`: `No IP address/network is ignored`, or a tree of entries (`|- a`, `` `- b ``). */
export function parseIgnoreList(out: string): string[] {
  return out
    .split("\n")
    .map((l) => /^\s*[|`]-\s*(.+?)\s*$/.exec(l)?.[1])
    .filter((v): v is string => v !== undefined && v !== "");
}

/** The typed operations over fail2ban-client (directly or through the helper). */
export class Fail2banClient {
  constructor(private readonly opts: Fail2banOptions) {}

  /** One operation's output (fail2ban-client's standard output). */
  async run(op: Fail2banOp): Promise<string> {
    const timeout = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (this.opts.helper) return viaHelper(this.opts.helper, await checkOp(op), timeout);
    return runFail2banClient(this.opts, op);
  }

  /** The jails fail2ban runs. */
  async jails(): Promise<string[]> {
    return parseJailList(await this.run({ op: "status" }));
  }

  async banned(jail: string): Promise<Fail2banBan[]> {
    return parseBans(await this.run({ op: "banned", jail }));
  }

  async ignored(jail: string): Promise<string[]> {
    return parseIgnoreList(await this.run({ op: "ignored", jail }));
  }

  /** Bans; true when it was not banned in this jail before. */
  async ban(jail: string, address: string): Promise<boolean> {
    return (await this.run({ op: "ban", jail, address })).trim() !== "0";
  }

  /** Unbans; true when it was banned in this jail. */
  async unban(jail: string, address: string): Promise<boolean> {
    return (await this.run({ op: "unban", jail, address })).trim() !== "0";
  }

  async trust(jail: string, network: string): Promise<void> {
    await this.run({ op: "trust", jail, network });
  }

  async untrust(jail: string, network: string): Promise<void> {
    await this.run({ op: "untrust", jail, network });
  }
}

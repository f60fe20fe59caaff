/**
 * The first-run set-up code. While no user exists, whoever reaches the console can create the
 * administrator; when it listens beyond loopback that could be anyone on the network. Then a one-time code,
 * made at start-up, written to `DATA_DIR/setup-code` (0600) and printed in the start-up log line (the
 * journal), must be typed on the Create administrator screen. It is removed once the administrator exists.
 * On loopback no code is needed. ADR 0014.
 */
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Forbidden, Invalid } from "../core/errors";
import { nodeCrypto } from "../lazy-node";

/** 32 letters and digits without 0/O and 1/I (easy to read from a terminal and type). */
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/** 15 characters × 5 bits = 75 bits: not guessable over the network. */
const LENGTH = 15;

export const SETUP_CODE_FILE = "setup-code";

/** Upper-case, without spaces and dashes, so "abcd-efgh" and "ABCDEFGH" are the same code. */
const normalize = (code: string) => code.toUpperCase().replace(/[\s-]/g, "");
const digest = (code: string) => nodeCrypto().createHash("sha256").update(normalize(code)).digest();

function newCode(): string {
  const bytes = nodeCrypto().randomBytes(LENGTH);
  let code = "";
  for (let i = 0; i < LENGTH; i++) {
    if (i > 0 && i % 5 === 0) code += "-";
    code += ALPHABET[(bytes[i] as number) % ALPHABET.length];
  }
  return code;
}

export class SetupCode {
  private constructor(
    private readonly file: string,
    /** The code while one is needed (non-loopback and no user yet), else null. */
    private current: string | null,
  ) {}

  /**
   * Called at start-up: makes a fresh code (and its file) when `required` and no user exists yet;
   * otherwise removes a file left from an earlier start.
   */
  static prepare(dataDir: string, opts: { required: boolean; usersExist: boolean }): SetupCode {
    const file = join(dataDir, SETUP_CODE_FILE);
    if (!opts.required || opts.usersExist) {
      rmSync(file, { force: true });
      return new SetupCode(file, null);
    }
    const code = newCode();
    writeFileSync(file, `${code}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    return new SetupCode(file, code);
  }

  /** The code to print at start-up, or null when none is needed. */
  get code(): string | null {
    return this.current;
  }

  get required(): boolean {
    return this.current !== null;
  }

  /** Throws unless `given` is the code (compared in constant time); passes when no code is needed. */
  check(given: string | undefined): void {
    if (this.current === null) return;
    if (given === undefined || normalize(given) === "") {
      throw new Invalid("Enter the set-up code", {
        setupCode: "Enter the set-up code printed in the console's log (journalctl -u pbx-console)",
      });
    }
    if (!nodeCrypto().timingSafeEqual(digest(given), digest(this.current))) {
      throw new Forbidden("Wrong set-up code", { setupCode: "This is not the set-up code in the console's log" });
    }
  }

  /** The administrator exists: the code is spent. */
  consume(): void {
    this.current = null;
    rmSync(this.file, { force: true });
  }
}

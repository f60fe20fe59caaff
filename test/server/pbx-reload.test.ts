// The reason a failed `fwconsole reload` gives, read from the shapes FreePBX's
// Symfony console prints: the last output line is the usage line and says nothing.
import { describe, expect, test } from "bun:test";
import { PBX_HOST_DEADLINE_MS, RELOAD_TIMEOUT_MS } from "../../src/server/pbx/host/host";
import {
  busyReason,
  RELOAD_LOCK_WAIT,
  RELOAD_RACE_WAIT_MS,
  RELOAD_RACED_ITEM,
  RELOAD_WAITING_ITEM,
  reloadFailureReason,
  reloadLocked,
  reloadRaced,
  reloadRetries,
  whileLocked,
} from "../../src/server/pbx/host/reload";

const usage = "r [--json] [--dry-run] [--skip-registry-checks] [--dont-reload-asterisk]";
const block = (msg: string, header = "In Reload.class.php line 86:") => {
  const pad = " ".repeat(msg.length + 4);
  return ["Reload Started", "", header, pad, `  ${msg}  `, pad, "", usage].join("\n");
};

describe("reloadFailureReason", () => {
  test("Symfony's error block (what the test PBX's fwconsole prints): the message, not the usage line", () => {
    expect(reloadFailureReason(block("Unable to connect to Asterisk Manager"), 1)).toBe(
      "Unable to connect to Asterisk Manager",
    );
  });

  test("a message Symfony cut across lines inside a word is joined as FreePBX wrote it", () => {
    // What FreePBX 17's fwconsole reload printed (stderr) when it could not write a generated file.
    const out = [
      "Reload Started",
      "",
      "In WriteConfig.class.php line 177:",
      " ".repeat(79),
      "  file_put_contents(/tmp/pbx-host-VWjPYZ/etc/asterisk/extensions_additional.c  ",
      `  ${"onf): Failed to open stream: Is a directory".padEnd(75)}  `,
      " ".repeat(79),
      "",
      "reload [--json] [--dry-run] [--skip-registry-checks] [--dont-reload-asterisk]",
      "",
    ].join("\n");
    expect(reloadFailureReason(out, 2)).toBe(
      "file_put_contents(/tmp/pbx-host-VWjPYZ/etc/asterisk/extensions_additional.conf): Failed to open stream: Is a directory",
    );
    // A cut at a space keeps the space; a message of two lines keeps them apart.
    const framed = (chunks: string[]) =>
      ["", "In X.php line 1:", " ".repeat(14), ...chunks.map((c) => `  ${c.padEnd(10)}  `), " ".repeat(14)].join("\n");
    expect(reloadFailureReason(framed(["Failed to ", "open.", "Second."]), 1)).toBe("Failed to open. Second.");
    expect(reloadFailureReason(framed(["Failed to", " open."]), 1)).toBe("Failed to open.");
  });

  test("older Symfony: an [Exception] header; a message over several lines is joined", () => {
    const out = [
      "Reload Started",
      "",
      "  [Exception]",
      "  Error(s) have occured, the following is the retrieve_conf output:",
      "  exit: 1",
      "",
      usage,
    ].join("\n");
    expect(reloadFailureReason(out, 1)).toBe(
      "Error(s) have occured, the following is the retrieve_conf output: exit: 1",
    );
  });

  test('"Reload failed because …" wins over anything after it', () => {
    const out = `Reload Started\nReload failed because retrieve_conf encountered an error: 1\n\n${block("ignored")}`;
    expect(reloadFailureReason(out, 1)).toBe("Reload failed because retrieve_conf encountered an error: 1");
  });

  test("--json output: the error field", () => {
    const out = '{"message":"Reload Started"}\n{"error":"Bad destination: ivr-9,s,1","trace":"#0 {main}"}';
    expect(reloadFailureReason(out, 255)).toBe("Bad destination: ivr-9,s,1");
  });

  test("colour codes are removed; without a block, the first line that reads like an error", () => {
    const out =
      "\u001b[32mReload Started\u001b[0m\nChecking modules\n\u001b[31mPHP Fatal error: Allowed memory size exhausted\u001b[0m\nDone";
    expect(reloadFailureReason(out, 255)).toBe("PHP Fatal error: Allowed memory size exhausted");
  });

  test("no output at all: the exit code", () => {
    expect(reloadFailureReason("", 127)).toBe("fwconsole reload exited with 127, without output");
    expect(reloadFailureReason(`Reload Started\n${usage}`, 1)).toBe("fwconsole reload exited with 1, without output");
    expect(reloadFailureReason("bash: fwconsole: command not found", 127)).toBe("bash: fwconsole: command not found");
  });

  test("a very long reason is cut to 500 characters", () => {
    const reason = reloadFailureReason(block("x".repeat(2000)), 1);
    expect(reason.length).toBe(500);
    expect(reason.endsWith("...")).toBe(true);
  });
});

describe("FreePBX's reload lock", () => {
  // Reload.class.php setLock(): echo json_encode([...]); exit(-1): no newline, exit 255, whatever the options.
  const LOCKED = '{"error":"Process is already running.","trace":"Process ID : 31337"}';

  test("the lock's answer is recognised (and fwconsole's other lockable commands'); other failures are not", () => {
    expect(reloadLocked(LOCKED)).toBe(true);
    expect(reloadLocked("The command is already running in another process.")).toBe(true);
    expect(reloadLocked(block("Unable to connect to Asterisk Manager"))).toBe(false);
    expect(reloadLocked("Asterisk already running")).toBe(false);
    // Without the retry the reason would be the lock's own words.
    expect(reloadFailureReason(LOCKED, 255)).toBe("Process is already running.");
  });

  test("the reason says how long the lock was held, in whole seconds (at least 1)", () => {
    expect(busyReason(120_400)).toBe("FreePBX is busy: another fwconsole has held its lock for 120 s");
    expect(busyReason(200)).toBe("FreePBX is busy: another fwconsole has held its lock for 1 s");
  });

  test("the default budget plus one reload fits in the PBX host operation's deadline", () => {
    expect(RELOAD_LOCK_WAIT.retryMs).toBe(1000);
    expect(RELOAD_LOCK_WAIT.waitMs + RELOAD_TIMEOUT_MS).toBeLessThan(PBX_HOST_DEADLINE_MS);
  });

  /** A clock that only the pauses move (each attempt takes `attemptMs`), and the answers in order. */
  function fake(answers: string[], attemptMs = 0) {
    let t = 1_000_000;
    const pauses: number[] = [];
    let calls = 0;
    return {
      pauses,
      calls: () => calls,
      attempt: async () => {
        t += attemptMs;
        return answers[Math.min(calls++, answers.length - 1)] as string;
      },
      opts: (waitMs: number, retryMs = 1000) => ({
        waitMs,
        retryMs,
        now: () => t,
        sleep: async (ms: number) => {
          pauses.push(ms);
          t += ms;
        },
      }),
    };
  }

  test("tries again about once a second while the lock is held, and answers the first other answer", async () => {
    const f = fake([LOCKED, LOCKED, "Reload Complete"]);
    const out = await whileLocked(f.attempt, reloadLocked, f.opts(120_000));
    expect(out).toEqual({ answer: "Reload Complete", attempts: 3, heldMs: null, waitedMs: 2000 });
    expect(f.pauses).toEqual([1000, 1000]);
  });

  test("the lock is announced once, when first met, before the first pause; a free lock is never announced", async () => {
    const f = fake([LOCKED, LOCKED, LOCKED, "Reload Complete"]);
    const seen: number[] = [];
    await whileLocked(f.attempt, reloadLocked, { ...f.opts(120_000), onLocked: () => seen.push(f.pauses.length) });
    expect(seen).toEqual([0]);

    const g = fake(["Reload Complete"]);
    let told = 0;
    await whileLocked(g.attempt, reloadLocked, { ...g.opts(120_000), onLocked: () => told++ });
    expect(told).toBe(0);
  });

  test("a first answer that is not the lock is not retried", async () => {
    const f = fake([block("Bad destination")]);
    const out = await whileLocked(f.attempt, reloadLocked, f.opts(120_000));
    expect(out.attempts).toBe(1);
    expect(f.pauses).toEqual([]);
  });

  test("a lock that is never freed: stops once the budget is spent, the last pause cut to what is left", async () => {
    const f = fake([LOCKED], 300);
    const out = await whileLocked(f.attempt, reloadLocked, f.opts(2_500));
    // Attempts take 0.3 s: tries at 0 and 1.3 s, then the pause is cut to the 0.9 s left; the try at 2.5 s ends
    // past the budget.
    expect(out.answer).toBe(LOCKED);
    expect(out.attempts).toBe(3);
    expect(f.pauses).toEqual([1000, 900]);
    expect(out.heldMs).toBe(2800);
    expect(busyReason(out.heldMs as number)).toBe("FreePBX is busy: another fwconsole has held its lock for 3 s");

    const g = fake([LOCKED]);
    const cut = await whileLocked(g.attempt, reloadLocked, g.opts(2_500));
    expect(g.pauses).toEqual([1000, 1000, 500]);
    expect(cut.attempts).toBe(4);
    expect(cut.heldMs).toBe(2500);
  });

  test("a budget of 0 tries once", async () => {
    const f = fake([LOCKED]);
    const out = await whileLocked(f.attempt, reloadLocked, f.opts(0));
    expect(out.attempts).toBe(1);
    expect(out.heldMs).toBe(0);
    expect(f.calls()).toBe(1);
  });
});

describe("FreePBX's keyring changing under a reload's check", () => {
  // What FreePBX 17's fwconsole reload printed (exit 2) when a gpg that the previous reload's signature check
  // left running replaced its keyring while GPG.class.php's checkPermissions stat'ed the files it had listed.
  const RACED = [
    "Reload Started",
    "In GPG.class.php line 872:",
    " ".repeat(65),
    "  stat(): stat failed for /home/asterisk/.gnupg/pubring.kbx.tmp  ",
    " ".repeat(65),
    "",
    usage,
  ].join("\n");
  const LOCKED = '{"error":"Process is already running.","trace":"Process ID : 31337"}';

  test("the race is recognised by FreePBX's own words; other stat failures and the lock are not", () => {
    expect(reloadRaced(RACED)).toBe(true);
    expect(reloadFailureReason(RACED, 2)).toBe("stat(): stat failed for /home/asterisk/.gnupg/pubring.kbx.tmp");
    expect(reloadRaced(block("stat(): stat failed for /etc/asterisk/extensions_additional.conf"))).toBe(false);
    expect(reloadRaced(LOCKED)).toBe(false);
    expect(reloadLocked(RACED)).toBe(false);
  });

  /** A clock the test moves, and the retries it drives. */
  function retries() {
    let t = 0;
    const items: string[] = [];
    const r = reloadRetries(
      (item) => items.push(item),
      () => t,
    );
    return { ...r, items, at: (ms: number) => (t = ms) };
  }

  test("a race is tried again for its own budget from when it was first met, then its reason stands", () => {
    const r = retries();
    expect(r.again({ code: 2, output: RACED })).toBe(true);
    r.at(RELOAD_RACE_WAIT_MS - 1);
    expect(r.again({ code: 2, output: RACED })).toBe(true);
    r.at(RELOAD_RACE_WAIT_MS);
    expect(r.again({ code: 2, output: RACED })).toBe(false);
    expect(r.items).toEqual([RELOAD_RACED_ITEM]);
    expect(r.note(3, 30_400)).toBe(
      "(pbx-console: FreePBX's keyring changed while the reload checked it; 3 tries over 30 s)\n",
    );
  });

  test("the lock keeps its whole-operation budget; a job is told each reason once, in the order met", () => {
    const r = retries();
    expect(r.again({ code: 2, output: RACED })).toBe(true);
    r.at(RELOAD_RACE_WAIT_MS * 2);
    expect(r.again({ code: 255, output: LOCKED })).toBe(true);
    expect(r.again({ code: 255, output: LOCKED })).toBe(true);
    expect(r.again({ code: 0, output: "Reload Complete" })).toBe(false);
    expect(r.items).toEqual([RELOAD_RACED_ITEM, RELOAD_WAITING_ITEM]);
    expect(r.note(4, 3_000)).toBe(
      "(pbx-console: FreePBX's keyring changed while the reload checked it; another fwconsole held FreePBX's lock; 4 tries over 3 s)\n",
    );
  });

  test("a first try that succeeds, or fails for another reason, is not tried again and gets no note", () => {
    const r = retries();
    expect(r.again({ code: 0, output: "Reload Complete" })).toBe(false);
    expect(r.again({ code: 2, output: block("Unable to connect to Asterisk Manager") })).toBe(false);
    expect(r.items).toEqual([]);
    expect(r.note(1, 900)).toBe("");
  });
});

// The reason a failed `fwconsole reload` gives (issue 11 item 9), read from the shapes FreePBX's
// Symfony console prints: the last output line is the usage line and says nothing.
import { describe, expect, test } from "bun:test";
import { reloadFailureReason } from "../../src/server/pbx/reload";

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

/**
 * `database show` as Asterisk prints it (`%-50s: %-25s`) and as FreePBX's manager connection answers it
 * (trailing spaces dropped, so an empty value's line ends at the colon): every entry is kept, and a value
 * that may have lost or gained spaces is marked to be read again.
 */
import { expect, test } from "bun:test";
import { parseAstdbShow } from "../../src/server/pbx/astdb";

const row = (path: string, value: string) => `${path.padEnd(50)}: ${value.padEnd(25)}`;

test("padded CLI output and trimmed manager output give the same entries", () => {
  const long = "PJSIP/2602,CustomPresence:2602";
  const cli = [
    row("/AMPUSER/2602/accountcode", ""),
    row("/AMPUSER/2602/cidname", "Gina"),
    row("/AMPUSER/2602/hint", long),
    "3 results found.",
  ].join("\n");
  const manager = cli
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n");
  for (const output of [cli, manager]) {
    const entries = parseAstdbShow(output);
    expect(entries.map((e) => e.path)).toEqual([
      "/AMPUSER/2602/accountcode",
      "/AMPUSER/2602/cidname",
      "/AMPUSER/2602/hint",
    ]);
    expect(entries.find((e) => e.path.endsWith("/hint"))).toEqual({
      path: "/AMPUSER/2602/hint",
      value: long,
      exact: true,
    });
    expect(entries.find((e) => e.path.endsWith("/accountcode"))?.exact).toBe(false);
    expect(entries.find((e) => e.path.endsWith("/cidname"))?.exact).toBe(false);
  }
  expect(parseAstdbShow(manager).find((e) => e.path.endsWith("/accountcode"))?.value).toBe("");
});

/**
 * `database show` as Asterisk prints it (`%-50s: %-25s`) and as FreePBX's manager connection answers it
 * (trailing spaces dropped, so an empty value's line ends at the colon): every entry is kept, and a value
 * that may have lost or gained spaces is marked to be read again. And one entry a new extension gets.
 */
import { expect, test } from "bun:test";
import { astdbEntries, parseAstdbShow } from "../../src/server/pbx/host/astdb";

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

test("the manager batch's DBGetTree lines are exact: trailing and inner spaces, empty values, other families left out", () => {
  const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
  const output = [
    `${hex("/AMPUSER/2602/cidname")}\t${hex("Gina  ")}`,
    `${hex("/AMPUSER/2602/accountcode")}\t`,
    `${hex("/DEVICE/2602/dial")}\t${hex("PJSIP/2602")}`,
    `${hex("/registrar/contact/2602;@sip:x")}\t${hex("{}")}`,
    // An Asterisk without DBGetTree answers a tree with the CLI's listing, in the same output.
    row("/CW/2602", "ENABLED"),
    "1 results found.",
  ].join("\n");
  expect(parseAstdbShow(output)).toEqual([
    { path: "/AMPUSER/2602/cidname", value: "Gina  ", exact: true },
    { path: "/AMPUSER/2602/accountcode", value: "", exact: true },
    { path: "/DEVICE/2602/dial", value: "PJSIP/2602", exact: true },
    { path: "/CW/2602", value: "ENABLED                  ", exact: false },
  ]);
});

test("a new extension's outbound call limit is FreePBX's Advanced Setting, or FreePBX's own default of 3", () => {
  const row = {
    id: "2602",
    tech: "pjsip",
    dial: "PJSIP/2602",
    devicetype: "fixed",
    user: "2602",
    emergencyCid: "",
    name: "Gina",
    password: "",
    voicemail: "novm",
    ringtimer: "0",
    noanswer: "",
    recording: "",
    outboundcid: "",
  };
  const limit = (setting: string | null) =>
    astdbEntries({ ...row, concurrencyLimitDefault: setting }).find((e) => e.key === "2602/concurrency_limit");
  expect(limit("5")).toEqual({ family: "AMPUSER", key: "2602/concurrency_limit", value: "5", mode: "add" });
  // "No Limit" is the administrator's choice to make in FreePBX, and is kept.
  expect(limit("0")?.value).toBe("0");
  expect(limit(null)?.value).toBe("3");
  expect(limit("lots")?.value).toBe("3");
});

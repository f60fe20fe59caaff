/**
 * Sums bun's JUnit reports in a folder into the plain line CI reads:
 * "N passed, N failed, N skipped". A group whose runner exited non-zero
 * without a recorded failure (a file that failed to load, a crash) counts as
 * one failure, so a broken run can never print "0 failed".
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
if (!dir) throw new Error("usage: junit-summary.ts DIR");

let tests = 0;
let failed = 0;
let skipped = 0;
const failedByGroup = new Map<string, number>();
/** One line per failed test, so the tail of CI's output names them (the groups' output is long). */
const failedTests: string[] = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith(".xml"))) {
  const xml = readFileSync(join(dir, file), "utf8");
  failedTests.push(...failuresIn(xml));
  const root = xml.match(/<testsuites\b[^>]*>/)?.[0] ?? "";
  const attr = (name: string) => Number(root.match(new RegExp(`\\b${name}="(\\d+)"`))?.[1] ?? 0);
  tests += attr("tests");
  failed += attr("failures");
  skipped += attr("skipped");
  failedByGroup.set(file.replace(/\.xml$/, ""), attr("failures"));
}

let exitCodes = "";
try {
  exitCodes = readFileSync(join(dir, "exit-codes"), "utf8");
} catch {}
for (const line of exitCodes.split("\n").filter(Boolean)) {
  const [group, code] = line.split(" exit=");
  if (code !== "0" && !failedByGroup.get(group as string)) {
    console.log(`(${group} exited with ${code} without a recorded test failure: counted as 1 failed)`);
    for (const line of whyGroupFailed(group as string)) console.log(`  ${line}`);
    failed += 1;
  }
}

/**
 * What a group's kept output (`NAME.log`, written by scripts/test-all.sh) says about a failure bun's JUnit
 * report does not record: the test files it started that reported no test (a file that failed to load) and
 * the "Unhandled error" blocks with the file each came from. Kept short, so CI's tail shows it.
 */
function whyGroupFailed(group: string): string[] {
  let log = "";
  let xml = "";
  try {
    log = readFileSync(join(dir as string, `${group}.log`), "utf8");
    xml = readFileSync(join(dir as string, `${group}.xml`), "utf8");
  } catch {
    return ["(no output kept for this group)"];
  }
  const reported = new Set([...xml.matchAll(/<testsuite\b[^>]*\bfile="([^"]+)"/g)].map((m) => m[1]));
  const lines = log.split("\n");
  const out: string[] = [];
  let file = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const header = line.match(/^(\S+\.test\.[jt]sx?):$/);
    if (header) {
      file = header[1] as string;
      if (!reported.has(file)) out.push(`${file}: no test reported (the file did not load or stopped early)`);
      continue;
    }
    if (!line.startsWith("# Unhandled error")) continue;
    out.push(`${file || "(before any file)"}: ${line.replace(/^# /, "")}`);
    let rules = 0;
    for (let j = i + 1; j < lines.length && j < i + 30; j++) {
      const next = lines[j] as string;
      if (/^-{10,}$/.test(next) && ++rules === 2) break;
      if (/^\s*(error|\w*Error)\b|^\s+at /.test(next)) out.push(`  ${next.trim()}`);
    }
  }
  return out.length > 0 ? out.slice(0, 40) : ["(nothing in its output names the cause; see the group's output above)"];
}

/** `file > describe > test: the message, its lines joined` for each failed test case of a bun JUnit report. */
function failuresIn(xml: string): string[] {
  const xmlText = (s: string) =>
    s
      .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, "&");
  const attr = (tag: string, name: string) => xmlText(tag.match(new RegExp(`\\b${name}="([^"]*)"`))?.[1] ?? "");
  const out: string[] = [];
  for (const m of xml.matchAll(/(<testcase\b[^>]*>)\s*<failure\b([^>]*)>/g)) {
    const [, testcase, failure] = m as unknown as [string, string, string];
    const where = [attr(testcase, "file"), attr(testcase, "classname"), attr(testcase, "name")].filter(Boolean);
    const message = attr(failure, "message")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .join(" / ");
    out.push(`${where.join(" > ")}: ${message.slice(0, 240)}`);
  }
  return out;
}

if (failedTests.length > 0) {
  console.log(`failed tests (${failedTests.length}):`);
  for (const line of failedTests.slice(0, 30)) console.log(`  ${line}`);
  if (failedTests.length > 30) console.log(`  … and ${failedTests.length - 30} more (see the groups' output above)`);
}
const passed = tests - failed - skipped;
console.log(`${Math.max(passed, 0)} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);

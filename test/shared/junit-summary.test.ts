// The last lines of the test command (scripts/junit-summary.ts): CI shows only the tail of the output, so
// the summary names each failed test there, from bun's own JUnit report of a real run.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const SUMMARY = resolve(import.meta.dir, "../../scripts/junit-summary.ts");
const dir = mkdtempSync(join(tmpdir(), "junit-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(cmd: string[], cwd = dir) {
  const p = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString() };
}

test("a failed test is named with its message before the counts, and the command fails", () => {
  writeFileSync(
    join(dir, "sample.test.ts"),
    `import { describe, expect, test } from "bun:test";
describe("a group <&>", () => {
  test("adds up", () => { expect(1 + 1).toBe(3); });
  test("passes", () => {});
});
test.skip("skipped", () => {});
`,
  );
  const reports = join(dir, "reports");
  run(["mkdir", reports]);
  const tested = run([
    process.execPath,
    "test",
    "./sample.test.ts",
    "--reporter=junit",
    `--reporter-outfile=${reports}/unit.xml`,
  ]);
  expect(tested.code).not.toBe(0);
  writeFileSync(join(reports, "exit-codes"), "unit exit=1\n");

  const { code, out } = run([process.execPath, SUMMARY, reports]);
  const lines = out.trim().split("\n");
  expect(lines.at(-1)).toBe("1 passed, 1 failed, 1 skipped");
  expect(lines).toContain("failed tests (1):");
  const named = lines.find((l) => l.includes("adds up")) ?? "";
  expect(named).toContain("sample.test.ts > a group <&> > adds up: ");
  expect(named).toContain("Expected: 3 / Received: 2");
  expect(code).toBe(1);
});

test("a clean run prints only the counts and succeeds", () => {
  const reports = join(dir, "clean");
  run(["mkdir", reports]);
  writeFileSync(
    join(reports, "lint.xml"),
    '<?xml version="1.0"?>\n<testsuites name="lint" tests="1" failures="0" skipped="0"></testsuites>\n',
  );
  writeFileSync(join(reports, "exit-codes"), "lint exit=0\n");
  const { code, out } = run([process.execPath, SUMMARY, reports]);
  expect(out).toBe("1 passed, 0 failed, 0 skipped\n");
  expect(code).toBe(0);
});

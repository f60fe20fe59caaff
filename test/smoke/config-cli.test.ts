// `pbx-console export | plan | apply` (ADR 0075) run from the built binary against the built binary serving, as
// an administrator's script would: the document exported as YAML with no secret in it, edited, planned (the
// review names the change and the fingerprint), applied by that fingerprint only, and planned again to nothing;
// a refused document prints each problem at its path; a viewer's token cannot apply; a token never on argv.
// Needs `npm run build` first (the test command does it).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Binary, startBinary } from "../security/binary";

setDefaultTimeout(120_000);

const BINARY = join(import.meta.dir, "../../dist/pbx-console");
const SECRET = "Cli-Secret-31415-abcdef";

let bin: Binary;
let dir: string;
const tokens: Record<string, string> = {};

async function cli(args: string[], token = tokens.operator as string) {
  const proc = Bun.spawn([BINARY, ...args], {
    env: { PATH: process.env.PATH ?? "", PBX_CONSOLE_URL: bin.base, PBX_CONSOLE_TOKEN: token, DATA_DIR: dir },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

beforeAll(async () => {
  bin = await startBinary({ logRequests: false });
  dir = mkdtempSync(join(tmpdir(), "pbx-config-cli-"));
  expect((await bin.setup()).status).toBe(201);
  for (const role of ["viewer", "operator"]) {
    const res = await bin.call("POST", "/api/tokens", { name: `cli ${role}`, role });
    tokens[role] = res.json.token;
  }
  const made = await bin.call("POST", "/api/extensions", { extension: "1001", name: "Alice", secret: SECRET });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  await bin?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pbx-console export, plan, apply", () => {
  test("export → edit → plan → apply by fingerprint → plan says nothing changes", async () => {
    const file = join(dir, "pbx.yaml");
    const exported = await cli(["export", "-o", file]);
    expect([exported.code, exported.stderr]).toEqual([0, ""]);
    const yaml = readFileSync(file, "utf8");
    expect(yaml).toContain('extension: "1001"');
    expect(yaml).toContain("ref: extensions/1001");
    expect(yaml).not.toContain(SECRET);

    writeFileSync(file, yaml.replace("name: Alice", "name: Alice Liddell"));
    const planned = await cli(["plan", "-f", file]);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain("~ Extension 1001 - Alice Liddell");
    expect(planned.stdout).toContain("    name: Alice → Alice Liddell");
    expect(planned.stdout).toContain("0 to create, 1 to update, 0 to delete, 0 unchanged.");
    const fingerprint = planned.stdout.match(/Fingerprint: ([0-9a-f]{64})/)?.[1] as string;
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);

    // Neither a fingerprint nor --yes: nothing is applied.
    const unasked = await cli(["apply", "-f", file]);
    expect(unasked.code).toBe(2);
    expect((await bin.call("GET", "/api/extensions")).json[0].name).toBe("Alice");

    // A viewer's token may plan but not apply.
    const viewer = await cli(["apply", "-f", file, "--fingerprint", fingerprint], tokens.viewer);
    expect(viewer.code).toBe(1);
    expect(viewer.stderr).toContain("Your role (viewer) cannot do this");
    expect((await bin.call("GET", "/api/extensions")).json[0].name).toBe("Alice");

    const applied = await cli(["apply", "-f", file, "--fingerprint", fingerprint]);
    expect([applied.code, applied.stderr]).toEqual([0, ""]);
    expect(applied.stdout).toContain("Applied: 0 created, 1 updated, 0 deleted.");
    expect((await bin.call("GET", "/api/extensions")).json[0].name).toBe("Alice Liddell");

    // The reviewed fingerprint no longer matches once applied: the console refuses to run it again blindly.
    const again = await cli(["apply", "-f", file, "--fingerprint", fingerprint]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("The plan is not the one reviewed");
    const settled = await cli(["plan", "-f", file]);
    expect(settled.stdout).toContain("0 to create, 0 to update, 0 to delete, 1 unchanged.");
  });

  test("a refused document: each problem at its path, exit 1, nothing written", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      [
        "version: 1",
        "extensions:",
        "  - extension: 1002",
        "    name: Bob",
        "    secret: short",
        "outboundRoutes:",
        "  - name: Out",
        "    trunk: nowhere",
        '    dialPatterns: ["9."]',
        "",
      ].join("\n"),
    );
    const res = await cli(["plan", "-f", file]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("The document was refused (2 problems):");
    expect(res.stderr).toContain("  extensions[0].secret: Secret must be at least 12 characters");
    expect(res.stderr).toContain("  outboundRoutes[0].trunk: No trunk named nowhere in the document or the console");
    expect((await bin.call("GET", "/api/extensions")).json).toHaveLength(1);
  });

  test("without a token the command says how to give one, and never takes it as an argument", async () => {
    const res = await cli(["export"], "");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("PBX_CONSOLE_TOKEN");
    const argv = await cli(["export", "--token", tokens.operator as string]);
    expect(argv.code).toBe(2);
  });
});

// Runs the real install.sh into a temporary --root with a fake binary.
import { afterAll, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

const SCRIPT = resolve(import.meta.dir, "../../install.sh");
const BASH = Bun.which("bash") ?? "/bin/bash";

const BIN = "usr/local/bin/pbx-console";
const ENV = "etc/pbx-console/env";
const CERT = "etc/pbx-console/tls/cert.pem";
const KEY = "etc/pbx-console/tls/key.pem";
const DATA = "var/lib/pbx-console";
const UNIT = "etc/systemd/system/pbx-console.service";
const UPDATE_PATH = "etc/systemd/system/pbx-console-update.path";
const UPDATE_SERVICE = "etc/systemd/system/pbx-console-update.service";

const UNIT_LINES = [
  "User=pbx-console",
  "Group=pbx-console",
  "EnvironmentFile=/etc/pbx-console/env",
  "ExecStart=/usr/local/bin/pbx-console",
  "WorkingDirectory=/var/lib/pbx-console",
  "Restart=on-failure",
  "RestartSec=2",
  "NoNewPrivileges=true",
  "ProtectSystem=strict",
  "ProtectHome=true",
  "PrivateTmp=true",
  "ReadWritePaths=/var/lib/pbx-console",
  "ProtectKernelTunables=true",
  "ProtectControlGroups=true",
  "RestrictSUIDSGID=true",
  "LockPersonality=true",
  "CapabilityBoundingSet=",
  "KillSignal=SIGTERM",
  "TimeoutStopSec=15",
  "[Install]",
  "WantedBy=multi-user.target",
];

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "pbx-install-"));
  tmpDirs.push(d);
  return d;
}

function fakeBinary(dir: string, version: string, name = "fake-pbx-console"): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\necho "fake pbx-console ${version}"\n`);
  chmodSync(p, 0o644); // install.sh must set the mode itself
  return p;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], opts: { script?: string; env?: Record<string, string> } = {}): Run {
  const r = Bun.spawnSync([BASH, opts.script ?? SCRIPT, ...args], {
    env: { ...process.env, ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function install(root: string, binary: string, extra: string[] = []): Run {
  const r = run(["--root", root, "--no-systemd", "--binary", binary, ...extra]);
  if (r.code !== 0) throw new Error(`install.sh failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

const mode = (p: string) => statSync(p).mode & 0o777;

/** All files (not directories) under dir, relative, sorted. */
function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1] as string] = (m[2] as string).trim();
  }
  return env;
}

const isLoopback = (h: string) => /^127\./.test(h) || h === "localhost" || h === "::1";

function openssl(args: string[]): Run {
  const r = Bun.spawnSync(["openssl", ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

test("fresh install writes exactly the expected files with the expected modes", () => {
  const dir = tmp();
  const root = join(dir, "root");
  const bin = fakeBinary(dir, "1.0");
  const r = install(root, bin);

  expect(r.stdout).toMatch(/fresh install/i);
  expect(r.stdout).not.toMatch(/upgrad/i);

  expect(listFiles(root)).toEqual([CERT, KEY, ENV, UNIT, UPDATE_PATH, UPDATE_SERVICE, BIN].sort());
  expect(statSync(join(root, DATA)).isDirectory()).toBe(true);
  expect(readdirSync(join(root, DATA))).toEqual([]);

  expect(readFileSync(join(root, BIN), "utf8")).toBe(readFileSync(bin, "utf8"));
  expect(mode(join(root, BIN))).toBe(0o755);
  expect(mode(join(root, DATA))).toBe(0o700);
  expect(mode(join(root, "etc/pbx-console"))).toBe(0o750);
  expect(mode(join(root, "etc/pbx-console/tls"))).toBe(0o750);
  expect(mode(join(root, ENV))).toBe(0o640);
  expect(mode(join(root, KEY))).toBe(0o640);
  expect(mode(join(root, UNIT))).toBe(0o644);
  expect(mode(join(root, UPDATE_PATH))).toBe(0o644);
  expect(mode(join(root, UPDATE_SERVICE))).toBe(0o644);

  // Certificate parses, is for this host, and matches the key.
  const hostname = Bun.spawnSync(["hostname"]).stdout.toString().trim();
  const subj = openssl(["x509", "-noout", "-subject", "-in", join(root, CERT)]);
  expect(subj.code).toBe(0);
  expect(subj.stdout).toContain(`CN = ${hostname}`);
  const certPub = openssl(["x509", "-noout", "-pubkey", "-in", join(root, CERT)]);
  const keyPub = openssl(["pkey", "-pubout", "-in", join(root, KEY)]);
  expect(keyPub.code).toBe(0);
  expect(certPub.stdout).toBe(keyPub.stdout);

  const env = parseEnv(readFileSync(join(root, ENV), "utf8"));
  expect(env.HOST).toBe("0.0.0.0");
  expect(env.PORT).toBe("3000");
  expect(env.DATA_DIR).toBe("/var/lib/pbx-console");
  expect(env.TLS_CERT).toBe("/etc/pbx-console/tls/cert.pem");
  expect(env.TLS_KEY).toBe("/etc/pbx-console/tls/key.pem");
  expect(env.SERVER_LABEL).toBe(hostname);
  expect(env.SERVER_ADDRESS).toBeTruthy();

  const unitLines = readFileSync(join(root, UNIT), "utf8").split("\n");
  for (const l of UNIT_LINES) expect(unitLines).toContain(l);
  expect(unitLines.some((l) => l.startsWith("AmbientCapabilities"))).toBe(false);

  expect(r.stdout).toContain(`https://${env.SERVER_ADDRESS}:3000/`);
  expect(r.stdout).toContain("create-admin");
  // Listening on every interface: the first visitor needs the set-up code from the journal.
  expect(r.stdout).toContain("set-up code");
  expect(r.stdout).toContain("journalctl -u pbx-console | grep 'set-up code'");
  expect(r.stdout).not.toContain("whoever opens it first");
  expect(readFileSync(join(root, ENV), "utf8")).toContain("#PUBLIC_HOSTNAMES=");
  // No secrets on the terminal.
  expect(r.stdout + r.stderr).not.toContain("PRIVATE KEY");
  expect(r.stdout + r.stderr).not.toContain(readFileSync(join(root, KEY), "utf8").split("\n")[1]);
});

test("env never has a non-loopback HOST without TLS_CERT and TLS_KEY", () => {
  const dir = tmp();
  const bin = fakeBinary(dir, "1.0");
  const cases: Array<[string[], string, string]> = [
    [[], "0.0.0.0", "3000"],
    [["--host", "192.0.2.10", "--port", "8443"], "192.0.2.10", "8443"],
    [["--host", "::"], "::", "3000"],
    [["--host=127.0.0.1", "--port=4000"], "127.0.0.1", "4000"],
  ];
  for (const [i, [args, host, port]] of cases.entries()) {
    const root = join(dir, `root${i}`);
    const r = install(root, bin, args);
    const env = parseEnv(readFileSync(join(root, ENV), "utf8"));
    expect(env.HOST).toBe(host);
    expect(env.PORT).toBe(port);
    if (!isLoopback(env.HOST as string)) {
      expect(env.TLS_CERT).toBeTruthy();
      expect(env.TLS_KEY).toBeTruthy();
      expect(existsSync(join(root, env.TLS_CERT as string))).toBe(true);
      expect(existsSync(join(root, env.TLS_KEY as string))).toBe(true);
      expect(r.stdout).toMatch(new RegExp(`https://\\S+:${port}/`));
      expect(r.stdout).not.toMatch(/http:\/\//);
    }
  }
});

test("the updater: a path unit on the console's request starts `update --apply` as root, writing only the binary's folder and the data", () => {
  const dir = tmp();
  const root = join(dir, "root");
  install(root, fakeBinary(dir, "1.0"));
  const path = readFileSync(join(root, UPDATE_PATH), "utf8").split("\n");
  for (const l of [
    "PathExists=/var/lib/pbx-console/update/request.json",
    "Unit=pbx-console-update.service",
    "WantedBy=multi-user.target",
  ])
    expect(path).toContain(l);
  const service = readFileSync(join(root, UPDATE_SERVICE), "utf8").split("\n");
  for (const l of [
    "Type=oneshot",
    "EnvironmentFile=/etc/pbx-console/env",
    "ExecStart=/usr/local/bin/pbx-console update --apply",
    "NoNewPrivileges=true",
    "ProtectSystem=strict",
    "ReadWritePaths=/usr/local/bin /var/lib/pbx-console",
    "ProtectHome=true",
    "PrivateTmp=true",
  ])
    expect(service).toContain(l);
  expect(service.some((l) => l.startsWith("User="))).toBe(false);
  // The console itself stays as hardened as before: it never writes its binary.
  const unit = readFileSync(join(root, UNIT), "utf8").split("\n");
  expect(unit).toContain("ReadWritePaths=/var/lib/pbx-console");
  expect(unit).toContain("User=pbx-console");
});

test("a port below 1024 grants only CAP_NET_BIND_SERVICE", () => {
  const dir = tmp();
  const root = join(dir, "root");
  install(root, fakeBinary(dir, "1.0"), ["--port", "443"]);
  const unitLines = readFileSync(join(root, UNIT), "utf8").split("\n");
  expect(unitLines).toContain("AmbientCapabilities=CAP_NET_BIND_SERVICE");
  expect(unitLines).toContain("CapabilityBoundingSet=CAP_NET_BIND_SERVICE");
  expect(unitLines).not.toContain("CapabilityBoundingSet=");
});

test("re-running upgrades in place and keeps env edits, TLS and data", () => {
  const dir = tmp();
  const root = join(dir, "root");
  const bin = fakeBinary(dir, "1.0");
  install(root, bin);

  const dataFile = join(root, DATA, "pbx-console.db");
  writeFileSync(dataFile, "precious data");
  const envPath = join(root, ENV);
  const editedEnv = `${readFileSync(envPath, "utf8").replace("PORT=3000", "PORT=9443")}EXTRA_SETTING=kept\n`;
  writeFileSync(envPath, editedEnv);
  const cert = readFileSync(join(root, CERT), "utf8");
  const key = readFileSync(join(root, KEY), "utf8");

  const bin2 = fakeBinary(dir, "2.0");
  const r = install(root, bin2, ["--port", "5555"]);

  expect(r.stdout).toMatch(/upgrad/i);
  expect(r.stdout).not.toMatch(/fresh install/i);
  expect(readFileSync(join(root, BIN), "utf8")).toContain("fake pbx-console 2.0");
  expect(mode(join(root, BIN))).toBe(0o755);
  expect(readFileSync(dataFile, "utf8")).toBe("precious data");
  expect(readFileSync(envPath, "utf8")).toBe(editedEnv);
  expect(readFileSync(join(root, CERT), "utf8")).toBe(cert);
  expect(readFileSync(join(root, KEY), "utf8")).toBe(key);
  // The URL follows the (edited) env, and no temp files are left behind.
  expect(r.stdout).toContain(":9443/");
  expect(listFiles(root)).toEqual(
    [CERT, KEY, ENV, UNIT, UPDATE_PATH, UPDATE_SERVICE, BIN, `${DATA}/pbx-console.db`].sort(),
  );
});

test("--uninstall keeps config and data; --uninstall --purge removes them", () => {
  const dir = tmp();
  const root = join(dir, "root");
  install(root, fakeBinary(dir, "1.0"));
  writeFileSync(join(root, DATA, "pbx-console.db"), "data");

  // What a self-update leaves: the binary it replaced.
  writeFileSync(join(root, `${BIN}.previous`), "old binary");
  const u = run(["--root", root, "--no-systemd", "--uninstall"]);
  expect(u.code).toBe(0);
  expect(existsSync(join(root, UNIT))).toBe(false);
  for (const p of [UPDATE_PATH, UPDATE_SERVICE, `${BIN}.previous`]) expect(existsSync(join(root, p))).toBe(false);
  expect(existsSync(join(root, BIN))).toBe(false);
  expect(readFileSync(join(root, DATA, "pbx-console.db"), "utf8")).toBe("data");
  expect(existsSync(join(root, ENV))).toBe(true);
  expect(existsSync(join(root, KEY))).toBe(true);
  expect(u.stdout).toMatch(/kept/i);
  expect(u.stdout).toContain("/var/lib/pbx-console");
  expect(u.stdout).toContain("/etc/pbx-console");

  // Idempotent.
  expect(run(["--root", root, "--no-systemd", "--uninstall"]).code).toBe(0);

  const p = run(["--root", root, "--no-systemd", "--uninstall", "--purge"]);
  expect(p.code).toBe(0);
  expect(existsSync(join(root, DATA))).toBe(false);
  expect(existsSync(join(root, "etc/pbx-console"))).toBe(false);
  expect(listFiles(root)).toEqual([]);
});

test("bad flags exit 2 with usage", () => {
  const root = join(tmp(), "root"); // never the real system, even if parsing regressed
  for (const args of [
    ["--bogus"],
    ["--port", "abc"],
    ["--port", "70000"],
    ["--purge"],
    ["--host", "a b"],
    ["--port"],
  ]) {
    const r = run(["--root", root, "--no-systemd", ...args]);
    expect(r.code, args.join(" ")).toBe(2);
    expect(r.stderr).toContain("Usage:");
    expect(r.stdout).toBe("");
  }
});

test("missing binary fails with a clear message and writes nothing", () => {
  const dir = tmp();
  const root = join(dir, "root");
  const missing = join(dir, "does-not-exist");
  const r = run(["--root", root, "--no-systemd", "--binary", missing]);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`binary not found: ${missing}`);
  expect(listFiles(root)).toEqual([]);

  // Default lookup next to the script finds nothing either.
  const lonely = join(dir, "lonely");
  mkdirSync(lonely);
  copyFileSync(SCRIPT, join(lonely, "install.sh"));
  const d = run(["--root", root, "--no-systemd"], { script: join(lonely, "install.sh") });
  expect(d.code).not.toBe(0);
  expect(d.stderr).toContain(join(lonely, "pbx-console"));
  expect(d.stderr).toContain(join(lonely, "dist/pbx-console"));
});

test("--binary defaults to ./pbx-console next to the script, then dist/pbx-console", () => {
  const dir = tmp();
  const shipped = join(dir, "bundle");
  mkdirSync(join(shipped, "dist"), { recursive: true });
  copyFileSync(SCRIPT, join(shipped, "install.sh"));
  fakeBinary(join(shipped, "dist"), "from-dist", "pbx-console");

  const root1 = join(dir, "root1");
  expect(run(["--root", root1, "--no-systemd"], { script: join(shipped, "install.sh") }).code).toBe(0);
  expect(readFileSync(join(root1, BIN), "utf8")).toContain("from-dist");

  fakeBinary(shipped, "next-to-script", "pbx-console");
  const root2 = join(dir, "root2");
  expect(run(["--root", root2, "--no-systemd"], { script: join(shipped, "install.sh") }).code).toBe(0);
  expect(readFileSync(join(root2, BIN), "utf8")).toContain("next-to-script");
});

test("--help lists the flags", () => {
  const r = run(["--help"]);
  expect(r.code).toBe(0);
  for (const f of ["--binary", "--root", "--no-systemd", "--uninstall", "--purge", "--port", "--host", "--help"]) {
    expect(r.stdout).toContain(f);
  }
});

test("refuses to run as non-root without --root", () => {
  const dir = tmp();
  const fake = join(dir, "fakebin");
  mkdirSync(fake);
  writeFileSync(join(fake, "id"), '#!/bin/sh\n[ "$1" = "-u" ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n');
  chmodSync(join(fake, "id"), 0o755);
  // The binary does not exist: should the root check regress, the run still
  // fails (differently) instead of installing onto the machine running the tests.
  const r = run(["--no-systemd", "--binary", join(dir, "missing-binary")], {
    env: { PATH: `${fake}${delimiter}${process.env.PATH}` },
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/must be run as root/);
});

test("missing openssl fails before installing anything", () => {
  const dir = tmp();
  // A PATH with every command except openssl.
  const noSsl = join(dir, "path-without-openssl");
  mkdirSync(noSsl);
  for (const p of (process.env.PATH ?? "").split(delimiter)) {
    if (!p || !existsSync(p)) continue;
    for (const name of readdirSync(p)) {
      if (name === "openssl" || existsSync(join(noSsl, name))) continue;
      try {
        symlinkSync(join(p, name), join(noSsl, name));
      } catch {}
    }
  }
  const root = join(dir, "root");
  const r = run(["--root", root, "--no-systemd", "--binary", fakeBinary(dir, "1.0")], { env: { PATH: noSsl } });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/openssl.*not found/);
  expect(listFiles(root)).toEqual([]);
});

test("--fail2ban installs the filter (the one fail2ban-regex is tested with) and a journal jail; --uninstall removes them", () => {
  const dir = tmp();
  const root = join(dir, "root");
  const bin = fakeBinary(dir, "1.0");
  const FILTER = "etc/fail2ban/filter.d/pbx-console.conf";
  const JAIL = "etc/fail2ban/jail.d/pbx-console.conf";
  install(root, bin);
  expect(existsSync(join(root, FILTER))).toBe(false);
  const r = install(root, bin, ["--fail2ban"]);
  expect(r.stdout).toContain(`wrote /${FILTER}`);
  expect(readFileSync(join(root, FILTER), "utf8")).toBe(
    readFileSync(resolve(import.meta.dir, "../../contrib/fail2ban/pbx-console.conf"), "utf8"),
  );
  const jail = readFileSync(join(root, JAIL), "utf8").split("\n");
  for (const l of [
    "[pbx-console]",
    "enabled      = true",
    "filter       = pbx-console",
    "backend      = systemd",
    "journalmatch = _SYSTEMD_UNIT=pbx-console.service",
    "port         = 3000",
  ])
    expect(jail).toContain(l);
  expect(mode(join(root, FILTER))).toBe(0o644);
  expect(mode(join(root, JAIL))).toBe(0o644);
  // The root helper the console acts through (ADR 0067): a socket only the console's group opens, one
  // `fail2ban-helper` per connection, and the console pointed at it (kept on an upgrade without the flag).
  const SOCKET = "etc/systemd/system/pbx-console-fail2ban.socket";
  const HELPER = "etc/systemd/system/pbx-console-fail2ban@.service";
  const socket = readFileSync(join(root, SOCKET), "utf8").split("\n");
  for (const l of [
    "ListenStream=/run/pbx-console-fail2ban.sock",
    "SocketGroup=pbx-console",
    "SocketMode=0660",
    "Accept=yes",
  ])
    expect(socket).toContain(l);
  const helper = readFileSync(join(root, HELPER), "utf8").split("\n");
  for (const l of [
    "ExecStart=/usr/local/bin/pbx-console fail2ban-helper",
    "StandardInput=socket",
    "NoNewPrivileges=true",
    "CapabilityBoundingSet=",
  ])
    expect(helper).toContain(l);
  const helperEnv = "Environment=FAIL2BAN_HELPER=/run/pbx-console-fail2ban.sock";
  expect(readFileSync(join(root, UNIT), "utf8").split("\n")).toContain(helperEnv);
  install(root, bin);
  expect(readFileSync(join(root, UNIT), "utf8").split("\n")).toContain(helperEnv);
  expect(run(["--help"]).stdout).toContain("--fail2ban");
  const un = run(["--root", root, "--uninstall"]);
  expect(un.code).toBe(0);
  expect(existsSync(join(root, FILTER))).toBe(false);
  expect(existsSync(join(root, JAIL))).toBe(false);
  expect(existsSync(join(root, SOCKET))).toBe(false);
  expect(existsSync(join(root, HELPER))).toBe(false);
});

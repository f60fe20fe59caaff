/**
 * Real servers for the off-site backup tests (ADR 0064), on loopback:
 *
 * - `startS3Server()`: s3rver (an S3-compatible server of the npm registry: the S3 REST API over HTTP, objects on
 *   disk) in this process. It checks the access key id (InvalidAccessKeyId for an unknown one) but not a
 *   Signature V4's signature, so a wrong credential is a wrong access key id here.
 * - `startSshd()`: the machine's OpenSSH server (`/usr/sbin/sshd -D`) on a free port with a host key of its own, the
 *   SFTP subsystem (internal-sftp), public key sign-in for the user running the tests (root in CI) with a fresh
 *   client key, and password sign-in offered (no account password is known: a password is always refused).
 *   `newHostKey()` restarts it on the same port with another host key.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import S3rver from "s3rver";

export const S3_ACCESS_KEY_ID = "S3RVER";
export const S3_SECRET = "S3RVER";

export async function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const p = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(p));
    });
  });
}

export async function startS3Server(bucket = "offsite") {
  const dir = mkdtempSync(join(tmpdir(), "pbx-s3-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new Bun.S3Client({
    endpoint,
    bucket,
    region: "us-east-1",
    accessKeyId: S3_ACCESS_KEY_ID,
    secretAccessKey: S3_SECRET,
  });
  return {
    endpoint,
    port,
    bucket,
    /** The keys in the bucket under `prefix`. */
    async keys(prefix = ""): Promise<string[]> {
      const list = await client.list({ prefix });
      return (list.contents ?? []).map((c) => c.key).sort();
    },
    async bytes(key: string): Promise<Uint8Array> {
      return new Uint8Array(await client.file(key).arrayBuffer());
    },
    async put(key: string, data: Uint8Array): Promise<void> {
      await client.write(key, data);
    },
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function banner(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (ok: boolean, socket?: { end(): void }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket?.end();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), 1000);
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        data: (s, d) => finish(Buffer.from(d).toString("latin1").startsWith("SSH-"), s),
        error: () => finish(false),
        close: () => finish(false),
        connectError: () => finish(false),
      },
    }).catch(() => finish(false));
  });
}

function run(cmd: string[]) {
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

export async function startSshd() {
  const dir = mkdtempSync(join(tmpdir(), "pbx-sftp-"));
  // `id -un`: os.userInfo() can answer "unknown" where the account has no passwd entry the runtime reads.
  const username = run(["id", "-un"]).trim() || userInfo().username;
  const uploads = join(dir, "uploads");
  mkdirSync(uploads, { mode: 0o700 });
  run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "offsite-client", "-f", join(dir, "client")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client.pub")), { mode: 0o600 });
  if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const port = await freePort();
  let proc: Subprocess | null = null;
  let hostKeys = 0;
  let fingerprint = "";

  async function start() {
    const hostKey = join(dir, `host-${++hostKeys}`);
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "offsite-host", "-f", hostKey]);
    fingerprint = run(["ssh-keygen", "-l", "-E", "sha256", "-f", `${hostKey}.pub`]).split(" ")[1] as string;
    const config = join(dir, "sshd_config");
    writeFileSync(
      config,
      [
        `Port ${port}`,
        "ListenAddress 127.0.0.1",
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, "sshd.pid")}`,
        `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
        `AllowUsers ${username}`,
        "PubkeyAuthentication yes",
        "PasswordAuthentication yes",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "StrictModes no",
        "PermitRootLogin yes",
        "Subsystem sftp internal-sftp",
        "UseDNS no",
        "MaxStartups 50",
        "LogLevel ERROR",
        "",
      ].join("\n"),
    );
    const p = Bun.spawn(["/usr/sbin/sshd", "-D", "-e", "-f", config], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    proc = p;
    const until = Date.now() + 10_000;
    while (!(await banner(port))) {
      if (p.exitCode !== null) throw new Error(`sshd exited: ${await new Response(p.stderr).text()}`);
      if (Date.now() > until) throw new Error("sshd did not start");
      await Bun.sleep(50);
    }
  }

  async function stop() {
    const p = proc;
    proc = null;
    if (!p) return;
    p.kill("SIGTERM");
    await p.exited;
    // Its per-connection children end when their clients go; none is kept by a test.
  }

  await start();
  return {
    host: "127.0.0.1",
    port,
    username,
    privateKey: readFileSync(join(dir, "client"), "utf8"),
    /** Where a test's target puts its copies. */
    uploads,
    get hostKeyFingerprint() {
      return fingerprint;
    },
    /** Restarts the server on the same port with a new host key (a reinstalled server, or another one). */
    async newHostKey() {
      await stop();
      await start();
    },
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

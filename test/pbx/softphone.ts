/**
 * A baresip softphone driven over its ctrl_tcp socket (netstring-framed JSON): commands answer with
 * `{"response":true,"ok":…}`, and everything that happens (REGISTER_OK, CALL_INCOMING, CALL_ESTABLISHED,
 * CALL_CLOSED…) arrives as `{"event":true,"type":…}`. Tests wait for those events, never for a time.
 * Each phone has its own config directory, SIP port and RTP range; audio is a sine, received audio dropped.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { freeTcpPort, testbed, until } from "./testbed";

export interface PhoneEvent {
  type: string;
  /** `performance.now()` when the event arrived. */
  at: number;
  class?: string;
  accountaor?: string;
  peeruri?: string;
  param?: string;
  id?: string;
  [k: string]: unknown;
}

export interface PhoneOptions {
  /** The account's user (extension number). */
  user: string;
  /** Its SIP secret; without one the phone does not register (a provider that sends calls by address). */
  secret?: string;
  autoAnswer?: boolean;
  /** The loopback address the phone's SIP socket binds (a provider gets its own, as a real one has). */
  bindAddress?: string;
  /** Registrar: the testbed's SIP host and port unless given (a provisioning document names its own). */
  registrar?: { host: string; port: number; transport?: string };
  /** Wait for the registrar's answer and throw unless registered (default true; false answers at once). */
  waitRegistered?: boolean;
  /** Register at all (default: when a secret is given). */
  register?: boolean;
  /** The SIP port (default: a free one). */
  sipPort?: number;
}

let nextRtp = 0;

export class Softphone {
  readonly events: PhoneEvent[] = [];
  private waiters: { match: (e: PhoneEvent) => boolean; done: (e: PhoneEvent) => void }[] = [];
  private buf = Buffer.alloc(0);
  private pending: ((r: { ok: boolean; data: string }) => void)[] = [];

  private constructor(
    readonly user: string,
    readonly sipAddress: string,
    readonly sipPort: number,
    private readonly dir: string,
    private readonly proc: ReturnType<typeof Bun.spawn>,
    private readonly sock: Socket,
  ) {
    sock.on("data", (chunk: Buffer) => this.onData(chunk));
  }

  static async start(o: PhoneOptions): Promise<Softphone> {
    const env = await testbed();
    const bind = o.bindAddress ?? "127.0.0.1";
    const registrar = o.registrar ?? { host: env.sipHost, port: env.sipPort };
    const register = o.register ?? o.secret !== undefined;
    // baresip also listens on TCP at the SIP port and TLS at the next one: a port another process took
    // between the check and the start makes it exit at once, and it starts again on another port.
    let launched: Awaited<ReturnType<typeof launch>> | undefined;
    for (let attempt = 0; !launched; attempt++) {
      const sipPort = o.sipPort ?? (await freeSipPort(bind));
      try {
        launched = await launch(o, bind, sipPort, registrar, register);
      } catch (err) {
        if (o.sipPort !== undefined || attempt >= 3 || !String(err).includes("Address already in use")) throw err;
      }
    }
    const { sipPort, dir, proc, sock } = launched;
    const phone = new Softphone(o.user, bind, sipPort, dir, proc, sock);
    if (register && o.waitRegistered !== false) {
      const state = await phone.registration().catch(async (err) => {
        await phone.stop();
        throw err;
      });
      if (state !== "ok") {
        await phone.stop();
        throw new Error(`${o.user} was refused registration`);
      }
    }
    return phone;
  }

  private onData(chunk: Buffer) {
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      const colon = this.buf.indexOf(":");
      if (colon < 0) return;
      const len = Number(this.buf.subarray(0, colon).toString());
      if (this.buf.length < colon + 1 + len + 1) return;
      const body = this.buf.subarray(colon + 1, colon + 1 + len).toString();
      this.buf = this.buf.subarray(colon + 1 + len + 1);
      const msg = JSON.parse(body);
      if (msg.response) this.pending.shift()?.({ ok: !!msg.ok, data: String(msg.data ?? "") });
      else if (msg.event) {
        msg.at = performance.now();
        this.events.push(msg);
        for (const w of [...this.waiters]) {
          if (w.match(msg)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.done(msg);
          }
        }
      }
    }
  }

  /** Sends one command; its answer. */
  command(command: string, params = ""): Promise<{ ok: boolean; data: string }> {
    const body = JSON.stringify({ command, params, token: "t" });
    return new Promise((done) => {
      this.pending.push(done);
      this.sock.write(`${Buffer.byteLength(body)}:${body},`);
    });
  }

  /** The first event of this type after the `since`-th (default: any so far), waiting up to `ms`. */
  waitFor(type: string, opts: { since?: number; ms?: number } = {}): Promise<PhoneEvent> {
    const seen = this.events.slice(opts.since ?? 0).find((e) => e.type === type);
    if (seen) return Promise.resolve(seen);
    return new Promise((done, fail) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.done !== finish);
        fail(
          new Error(
            `${this.user}: no ${type} within ${opts.ms ?? 20_000} ms; events: ${this.events.map((e) => e.type).join(", ")}\n${readLog(this.dir).slice(-3000)}`,
          ),
        );
      }, opts.ms ?? 20_000);
      const finish = (e: PhoneEvent) => {
        clearTimeout(timer);
        done(e);
      };
      this.waiters.push({ match: (e) => e.type === type, done: finish });
    });
  }

  /**
   * Waits until the registrar has answered: "ok" once registered, "failed" once refused. The first answer
   * may come before the control socket is connected, so the state is asked (`reginfo`), not an event
   * awaited. `reginfo` prints it coloured: "\x1b[32mOK" registered, "\x1b[31mERR" refused.
   */
  async registration(ms = 20_000): Promise<"ok" | "failed"> {
    return until(
      `${this.user} to register`,
      async () => {
        const info = (await this.command("reginfo")).data;
        if (/(?:\s|\[32m)OK\b/.test(info)) return "ok" as const;
        if (/(?:\s|\[31m)ERR\b/.test(info)) return "failed" as const;
        return undefined;
      },
      ms,
    );
  }

  /** Dials a number at the PBX (or a full SIP URI). */
  async dial(target: string): Promise<void> {
    const env = await testbed();
    const uri = target.startsWith("sip:") ? target : `sip:${target}@${env.sipHost}:${env.sipPort}`;
    const r = await this.command("dial", uri);
    if (!r.ok) throw new Error(`${this.user}: dial ${uri} refused: ${r.data}`);
  }

  /**
   * Adds a registering account (`uanew`) to a phone started without one, so its REGISTER_OK arrives on the
   * control socket already connected.
   */
  async addAccount(user: string, secret: string): Promise<void> {
    const env = await testbed();
    const r = await this.command(
      "uanew",
      `<sip:${user}@${env.sipHost}:${env.sipPort};transport=udp>;auth_pass=${secret};regint=60;answermode=manual`,
    );
    if (!r.ok) throw new Error(`uanew ${user}: ${r.data}`);
  }

  async accept(): Promise<void> {
    await this.command("accept");
  }

  async hangup(): Promise<void> {
    await this.command("hangup");
  }

  /**
   * Presses keys (0-9, *, #, A-D) in the established call, one `sndcode` command per key: baresip sends each as
   * an RFC 4733 telephone-event in the call's RTP (its SDP offers `telephone-event/8000`) and releases the key
   * before the next, queueing the events so they leave one after another, in order. A refused key (no call)
   * throws.
   */
  async sendDigits(digits: string): Promise<void> {
    if (!/^[0-9*#A-D]+$/.test(digits)) throw new Error(`${this.user}: not DTMF keys: ${JSON.stringify(digits)}`);
    for (const key of digits) {
      const r = await this.command("sndcode", key);
      if (!r.ok) throw new Error(`${this.user}: sndcode ${key} refused: ${r.data}`);
    }
  }

  /** Stops the phone: `quit` first (baresip unregisters on its way out), then SIGKILL. */
  async stop(): Promise<void> {
    if (this.proc.exitCode === null) {
      await Promise.race([this.command("quit"), Bun.sleep(2000)]);
      await Promise.race([this.proc.exited, Bun.sleep(3000)]);
      if (this.proc.exitCode === null) this.proc.kill("SIGKILL");
    }
    this.sock.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Kills the phone without a word to the PBX (its registration stays until it expires). */
  kill(): void {
    this.proc.kill("SIGKILL");
    this.sock.destroy();
  }

  log(): string {
    return readLog(this.dir);
  }
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, "baresip.log"), "utf8");
  } catch {
    return "";
  }
}

/** A UDP port that is free on `address`, with the TCP port of the same number and the next one free too. */
async function freeSipPort(address: string): Promise<number> {
  for (;;) {
    const sock = await Bun.udpSocket({ hostname: address, port: 0 });
    const port = sock.port;
    sock.close();
    if ((await tcpFree(address, port)) && (await tcpFree(address, port + 1))) return port;
  }
}

function tcpFree(address: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const srv = createServer();
    srv.once("error", () => done(false));
    srv.listen(port, address, () => srv.close(() => done(true)));
  });
}

/** Starts baresip with its own config directory; its control socket once it answers. */
async function launch(
  o: PhoneOptions,
  bind: string,
  sipPort: number,
  registrar: { host: string; port: number; transport?: string },
  register: boolean,
) {
  const dir = mkdtempSync("/tmp/pbx-phone-");
  const ctrlPort = await freeTcpPort();
  const rtpLo = 32000 + ((process.pid * 7 + nextRtp++ * 40) % 20000);
  writeFileSync(
    join(dir, "config"),
    [
      "poll_method\tepoll",
      `sip_listen\t${bind}:${sipPort}`,
      "call_local_timeout\t120",
      "call_max_calls\t4",
      "audio_player\taubridge,nil",
      "audio_source\tausine,440",
      "ausrc_srate\t48000",
      "ausrc_channels\t2",
      "audio_alert\taubridge,nil",
      `rtp_ports\t${rtpLo}-${rtpLo + 38}`,
      "module_path\t/usr/lib/baresip/modules",
      "module\tg711.so",
      "module\taubridge.so",
      "module\tausine.so",
      "module_tmp\tuuid.so",
      "module_tmp\taccount.so",
      "module_app\tcontact.so",
      "module_app\tmenu.so",
      "module_app\tctrl_tcp.so",
      `ctrl_tcp_listen\t127.0.0.1:${ctrlPort}`,
      "",
    ].join("\n"),
  );
  const params = [
    o.secret !== undefined ? `auth_pass=${o.secret}` : null,
    `regint=${register ? 60 : 0}`,
    `answermode=${o.autoAnswer ? "auto" : "manual"}`,
  ].filter(Boolean);
  const aor = `<sip:${o.user}@${registrar.host}:${registrar.port};transport=${registrar.transport ?? "udp"}>`;
  writeFileSync(join(dir, "accounts"), `${aor};${params.join(";")}\n`);
  writeFileSync(join(dir, "contacts"), "");
  const proc = Bun.spawn(["baresip", "-f", dir], {
    cwd: dir,
    stdin: "ignore",
    stdout: Bun.file(join(dir, "baresip.log")),
    stderr: "ignore",
  });
  // A baresip that exits (a port taken) ends the wait at once, with its log.
  const exited = proc.exited.then(() => {
    throw new Error(`baresip exited: ${readLog(dir)}`);
  });
  exited.catch(() => {});
  const sock = await Promise.race([
    until(
      "baresip's control socket",
      () =>
        new Promise<Socket | undefined>((done) => {
          const s = connect(ctrlPort, "127.0.0.1");
          s.once("connect", () => done(s));
          s.once("error", () => done(undefined));
        }),
      15_000,
    ),
    exited,
  ]).catch((err) => {
    proc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return { sipPort, dir, proc, sock };
}

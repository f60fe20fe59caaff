/**
 * Benchmark (not a test) of call recordings streamed from the real testbed through the built binary
 * (`npm run build` first), run as root:  node_modules/.bin/bun bench/call-audio.ts
 *
 * A 1-hour recording (8 kHz mono 16-bit WAV, 57.6 MB, made by sox on the host) under FreePBX's monitor
 * directory and a CDR row naming it. Then:
 * 1. First audio byte: a player's seek (`Range: bytes=N-`, N at spread offsets), the time from the request to the
 *    first body byte, median of BENCH_SEEKS (20). Reference in the same run: the first byte of `tail -c +N` of the
 *    same file over a new `ssh` login each time (what a console without a kept session would pay at least).
 *    Goals: < 200 ms on loopback, and below the reference.
 * 2. Memory: the hour streamed whole three times in a row, the console's resident memory sampled every 10 ms.
 *    Goal: flat, i.e. the third hour's peak within a tenth of the file's size of the first's (what a stream held
 *    for good would add up hour after hour; its garbage only makes a sawtooth until the collector runs).
 * It resets the testbed first and leaves the file and row in place (run `reset` after).
 */
import { startPbxConsole } from "../test/pbx/console";
import { reset, sh, sql } from "../test/pbx/testbed";

const SEEKS = Number(process.env.BENCH_SEEKS ?? 20);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

await reset();
const pbx = await startPbxConsole();
try {
  /** A recording of `seconds` under the monitor directory and a CDR row naming it; its page's recording. */
  const addRecording = async (seconds: number, n: number) => {
    const id = `${Math.floor(Date.now() / 1000) - 7200}.${n}`;
    const stamp = new Date(Number(id.split(".")[0]) * 1000);
    const p = (v: number) => String(v).padStart(2, "0");
    const ymd = `${stamp.getFullYear()}${p(stamp.getMonth() + 1)}${p(stamp.getDate())}`;
    const hms = `${p(stamp.getHours())}${p(stamp.getMinutes())}${p(stamp.getSeconds())}`;
    const file = `internal-2902-2901-${ymd}-${hms}-${id}.wav`;
    const dir = `/var/spool/asterisk/monitor/${ymd.slice(0, 4)}/${ymd.slice(4, 6)}/${ymd.slice(6, 8)}`;
    await sh(
      [
        "runuser",
        "-u",
        "asterisk",
        "--",
        "sh",
        "-c",
        `mkdir -p ${dir} && sox -n -r 8000 -c 1 -b 16 ${dir}/${file} synth ${seconds} sine 440`,
      ],
      { timeoutMs: 300_000 },
    );
    const calldate = `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)} ${p(stamp.getHours())}:${p(stamp.getMinutes())}:${p(stamp.getSeconds())}`;
    await sql(
      "asteriskcdrdb",
      `INSERT INTO cdr (calldate, clid, src, dst, dcontext, channel, dstchannel, lastapp, lastdata, duration, billsec, disposition, amaflags, accountcode, uniqueid, userfield, did, recordingfile, cnum, cnam, outbound_cnum, outbound_cnam, dst_cnam, linkedid, peeraccount, sequence) VALUES ('${calldate}', '"Bench" <2901>', '2901', '2902', 'from-internal', 'PJSIP/2901-00000001', 'PJSIP/2902-00000002', 'Dial', 'PJSIP/2902', ${seconds}, ${seconds}, 'ANSWERED', 3, '', '${id}', '', '', '${file}', '2901', 'Bench', '', '', '', '${id}', '', ${n})`,
    );
    const detail = await pbx.call("GET", `/api/calls/${id}`);
    if (detail.status !== 200 || !detail.json.recording) throw new Error(`no recording on the page: ${detail.text}`);
    return { ...detail.json.recording, path: `${dir}/${file}` } as {
      url: string;
      bytes: number;
      durationS: number;
      path: string;
    };
  };
  const { url, bytes, durationS, path } = await addRecording(3600, 1);
  console.log(`recording: ${bytes} bytes, ${durationS} s`);

  const firstByte = async (start: number) => {
    const t0 = performance.now();
    const res = await fetch(`${pbx.bin.base}${url}`, { headers: { cookie: pbx.bin.cookie, Range: `bytes=${start}-` } });
    if (res.status !== 206) throw new Error(`HTTP ${res.status}: ${await res.text()} ${pbx.bin.errors().slice(-2000)}`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const ms = performance.now() - t0;
    await reader.cancel();
    if (res.status !== 206) throw new Error(`HTTP ${res.status}`);
    return ms;
  };
  const sshFirstByte = async (start: number) => {
    const t0 = performance.now();
    const proc = Bun.spawn(
      [
        "ssh",
        "-i",
        pbx.ssh.keyFile,
        "-p",
        String(pbx.ssh.port),
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "LogLevel=ERROR",
        "asterisk@127.0.0.1",
        `tail -c +${start + 1} ${path}`,
      ],
      { stdout: "pipe", stderr: "ignore" },
    );
    const reader = proc.stdout.getReader();
    await reader.read();
    const ms = performance.now() - t0;
    proc.kill();
    await proc.exited;
    return ms;
  };
  await firstByte(0); // the session opens here; a player's first request pays it once
  const consoleMs: number[] = [];
  const sshMs: number[] = [];
  for (let i = 0; i < SEEKS; i++) {
    const at = Math.floor((bytes * (i + 0.5)) / SEEKS);
    consoleMs.push(await firstByte(at));
    sshMs.push(await sshFirstByte(at));
  }
  const c = median(consoleMs);
  const r = median(sshMs);
  console.log(
    `first audio byte of a seek (median of ${SEEKS}): console ${c.toFixed(1)} ms, new ssh login + tail ${r.toFixed(1)} ms (${((c / r) * 100).toFixed(0)} %); goal < 200 ms ${c < 200 ? "met" : "NOT MET"}, below the reference ${c < r ? "met" : "NOT MET"}`,
  );

  // Flat memory: the hour streamed whole three times in a row, the console's resident memory sampled every 10 ms.
  // Each chunk from the PBX is garbage once sent, so memory rises until the collector runs (a sawtooth); what is
  // held for good would add up from one hour to the next. Flat: the third hour's peak is within a tenth of the
  // file's size of the first's.
  const peaks: number[] = [];
  const rss0 = pbx.bin.rss();
  for (let i = 0; i < 3; i++) {
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, pbx.bin.rss());
    }, 10);
    const res = await fetch(`${pbx.bin.base}${url}`, { headers: { cookie: pbx.bin.cookie } });
    let got = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) got += chunk.length;
    clearInterval(sampler);
    if (got !== bytes) throw new Error(`streamed ${got} of ${bytes} bytes`);
    peaks.push(Math.max(peak, pbx.bin.rss()));
  }
  const mb = (x: number) => (x / 1048576).toFixed(1);
  const added = (peaks[2] as number) - (peaks[0] as number);
  console.log(
    `three hours streamed back to back: resident memory ${mb(rss0)} MB before, peaks ${peaks.map(mb).join(", ")} MB; the third peak ${added >= 0 ? "+" : ""}${mb(added)} MB from the first (${((added / bytes) * 100).toFixed(1)} % of the file); goal < 10 % ${added < bytes * 0.1 ? "met" : "NOT MET"}`,
  );
} finally {
  await pbx.stop();
}

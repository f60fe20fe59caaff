import { readFileSync, statfsSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";

/**
 * This host's own CPU, memory, disk, network and uptime, read from /proc and
 * statfs: the console runs on the PBX host, so the dashboard has real numbers
 * even without a hosting API. Rates are computed between two readings.
 */
interface Sample {
  at: number;
  cpuBusy: number;
  cpuTotal: number;
  rx: number;
  tx: number;
}

export interface HostMetrics {
  hostname: string;
  ipAddress: string | null;
  cpu: number;
  memory: number;
  disk: number;
  uptime: number;
  network: { in: number; out: number };
}

function readSample(procDir: string, at: number): Sample {
  const cpuLine = readFileSync(`${procDir}/stat`, "utf8").split("\n")[0] ?? "";
  const f = cpuLine.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  let rx = 0;
  let tx = 0;
  for (const line of readFileSync(`${procDir}/net/dev`, "utf8").split("\n").slice(2)) {
    const [name, rest] = line.split(":");
    if (!rest || name?.trim() === "lo") continue;
    const cols = rest.trim().split(/\s+/).map(Number);
    rx += cols[0] ?? 0;
    tx += cols[8] ?? 0;
  }
  return { at, cpuBusy: total - idle, cpuTotal: total, rx, tx };
}

const clampPct = (v: number) => Math.min(100, Math.max(0, Math.round(v * 10) / 10));
const MB = 1024 * 1024;

export function firstIPv4(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const i of list ?? []) if (i.family === "IPv4" && !i.internal) return i.address;
  }
  return null;
}

export class HostMetricsReader {
  private last: Sample | null = null;

  constructor(
    private readonly procDir = "/proc",
    private readonly diskPath = "/",
  ) {}

  async read(): Promise<HostMetrics> {
    let prev = this.last;
    if (!prev || Date.now() - prev.at > 60_000) {
      prev = readSample(this.procDir, Date.now());
      await Bun.sleep(250);
    }
    const cur = readSample(this.procDir, Date.now());
    this.last = cur;
    const seconds = Math.max((cur.at - prev.at) / 1000, 0.001);
    const cpuTotal = cur.cpuTotal - prev.cpuTotal;
    const cpu = cpuTotal > 0 ? ((cur.cpuBusy - prev.cpuBusy) / cpuTotal) * 100 : 0;

    const mem = Object.fromEntries(
      readFileSync(`${this.procDir}/meminfo`, "utf8")
        .split("\n")
        .map((l) => l.match(/^(\w+):\s+(\d+)/))
        .filter((m): m is RegExpMatchArray => m !== null)
        .map((m) => [m[1], Number(m[2])]),
    ) as Record<string, number>;
    const memTotal = mem.MemTotal ?? 0;
    const memory = memTotal > 0 ? ((memTotal - (mem.MemAvailable ?? mem.MemFree ?? 0)) / memTotal) * 100 : 0;

    const fs = statfsSync(this.diskPath);
    const disk = fs.blocks > 0 ? ((fs.blocks - fs.bavail) / fs.blocks) * 100 : 0;
    const uptime = Math.floor(Number(readFileSync(`${this.procDir}/uptime`, "utf8").split(" ")[0] ?? "0"));

    return {
      hostname: hostname(),
      ipAddress: firstIPv4(),
      cpu: clampPct(cpu),
      memory: clampPct(memory),
      disk: clampPct(disk),
      uptime,
      network: {
        in: Math.max(0, (cur.rx - prev.rx) / seconds / MB),
        out: Math.max(0, (cur.tx - prev.tx) / seconds / MB),
      },
    };
  }
}

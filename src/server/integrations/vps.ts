/**
 * The server the console runs on: its status (from the hosting provider's API
 * when configured, else this host's own /proc numbers) and start/stop/restart
 * through the hosting provider.
 */
import type { VpsAction, VpsControlResult, VpsStatus } from "../../shared/vps";
import { type HostingerVm, latest, rate } from "../clients/hostinger";
import { deadline } from "../clients/http";
import type { Deps } from "../core/deps";
import { Invalid, OutsideServiceFailed } from "../core/errors";
import { firstIPv4 } from "./host-metrics";
import { type ClientDeps, clients, requireValues } from "./outside";

const MB = 1024 * 1024;
/** The overall deadline of reading the status (VM list, then metrics) or sending a control action. */
export const VPS_DEADLINE_MS = 20_000;
const round1 = (v: number) => Math.round(v * 10) / 10;
const pct = (used: number | null, totalMb: number | undefined) =>
  used === null || !totalMb ? null : Math.min(100, round1((used / (totalMb * MB)) * 100));

/** Hostinger's VM `state` as the screens' status: running is "online", stopped "offline", the rest as is. */
export const vmStatus = (state: string) => (state === "running" ? "online" : state === "stopped" ? "offline" : state);

/** The VM this console manages: the configured id, else the only one, else the one with this host's IP. */
export function pickVm(vms: HostingerVm[], vmId: string | undefined, ips: (string | null)[]): HostingerVm {
  if (vmId) {
    const vm = vms.find((v) => String(v.id) === vmId);
    if (!vm) throw new Invalid(`Hostinger has no virtual machine ${vmId}; check the VM id in API Settings.`);
    return vm;
  }
  if (vms.length === 1) return vms[0] as HostingerVm;
  const mine = vms.find((v) => v.ipv4?.some((a) => ips.includes(a.address)));
  if (mine) return mine;
  if (vms.length === 0) throw new Invalid("The Hostinger account has no virtual machines.");
  throw new Invalid(`Hostinger lists ${vms.length} virtual machines; set the VM id in API Settings.`);
}

async function hostingerVm(deps: ClientDeps, operation: string) {
  const values = requireValues(deps, "hostinger");
  const client = clients.hostinger(deps, values, deadline(operation, VPS_DEADLINE_MS));
  const vms = await client.listVms();
  return { client, vm: pickVm(vms, values.vmId, [deps.config.serverAddress, firstIPv4()]) };
}

async function fromHostinger(deps: ClientDeps): Promise<VpsStatus> {
  const { client, vm } = await hostingerVm(deps, "Reading the server status from Hostinger");
  const to = new Date(deps.now());
  const m = await client.metrics(vm.id, new Date(to.getTime() - 60 * 60 * 1000), to);
  const cpu = latest(m.cpu_usage);
  const memory = pct(latest(m.ram_usage), vm.memory);
  const disk = pct(latest(m.disk_space), vm.disk);
  const uptimeMs = latest(m.uptime);
  const hasMetrics = cpu !== null || memory !== null || disk !== null;
  return {
    configured: true,
    source: "hostinger",
    message: null,
    status: vmStatus(vm.state),
    ipAddress: vm.ipv4?.[0]?.address ?? null,
    hostname: vm.hostname,
    cpu: cpu === null ? null : round1(cpu),
    memory,
    disk,
    metrics: hasMetrics
      ? {
          cpu: cpu === null ? 0 : round1(cpu),
          memory: memory ?? 0,
          disk: disk ?? 0,
          uptime: uptimeMs === null ? 0 : Math.floor(uptimeMs / 1000),
          network: { in: (rate(m.incoming_traffic) ?? 0) / MB, out: (rate(m.outgoing_traffic) ?? 0) / MB },
        }
      : null,
  };
}

async function fromHost(deps: Pick<Deps, "config" | "hostMetrics">, message: string | null): Promise<VpsStatus> {
  const h = await deps.hostMetrics.read();
  const { serverAddress } = deps.config;
  return {
    configured: true,
    source: "host",
    message,
    status: "online",
    ipAddress: serverAddress !== "127.0.0.1" ? serverAddress : (h.ipAddress ?? serverAddress),
    hostname: h.hostname,
    cpu: h.cpu,
    memory: h.memory,
    disk: h.disk,
    metrics: { cpu: h.cpu, memory: h.memory, disk: h.disk, uptime: h.uptime, network: h.network },
  };
}

/**
 * The server's status. Without the hosting API, or when it fails or cannot
 * tell which VM is ours, this host's own numbers, with a message saying why.
 */
export async function vpsStatus(deps: ClientDeps & Pick<Deps, "hostMetrics">): Promise<VpsStatus> {
  if (!deps.credentials.isConfigured("hostinger")) {
    return fromHost(deps, "Numbers from this host. Add the hosting provider API to control the server.");
  }
  try {
    return await fromHostinger(deps);
  } catch (err) {
    if (!(err instanceof OutsideServiceFailed) && !(err instanceof Invalid)) throw err;
    return fromHost(deps, `Hosting provider API: ${err.message}`);
  }
}

/** Starts, stops or restarts the VM through the hosting provider. */
export async function controlVps(
  deps: ClientDeps & Pick<Deps, "events">,
  action: VpsAction,
): Promise<VpsControlResult> {
  if (!deps.credentials.isConfigured("hostinger")) {
    throw new Invalid("Server control needs the hosting provider API. Add it under API Settings.");
  }
  const { client, vm } = await hostingerVm(deps, `Sending ${action} to Hostinger`);
  const result = await client.action(vm.id, action);
  deps.events.publish({ type: "vps-updated" });
  return { success: true, message: `Hostinger accepted ${action} (action ${result.id}: ${result.state}).` };
}

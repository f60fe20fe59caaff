import type { VpsStatus } from "../../shared/vps";
import { vpsControlSchema } from "../../shared/vps";
import { type HostingerVm, latest, rate } from "../clients/hostinger";
import { ServiceError } from "../clients/http";
import type { AppContext, RouteDef } from "../context";
import { HttpError, json, parseBody } from "../http";
import { firstIPv4 } from "../integrations/host-metrics";
import { clients, requireValues } from "../integrations/outside";

const MB = 1024 * 1024;
const round1 = (v: number) => Math.round(v * 10) / 10;
const pct = (used: number | null, totalMb: number | undefined) =>
  used === null || !totalMb ? null : Math.min(100, round1((used / (totalMb * MB)) * 100));

/** Hostinger's VM `state` as the screens' status: running is "online", the rest as is. */
export const vmStatus = (state: string) => (state === "running" ? "online" : state === "stopped" ? "offline" : state);

/** The VM this console manages: the configured id, else the only one, else the one with this host's IP. */
export function pickVm(vms: HostingerVm[], vmId: string | undefined, ips: (string | null)[]): HostingerVm {
  if (vmId) {
    const vm = vms.find((v) => String(v.id) === vmId);
    if (!vm) throw new HttpError(400, `Hostinger has no virtual machine ${vmId}; check the VM id in API Settings.`);
    return vm;
  }
  if (vms.length === 1) return vms[0] as HostingerVm;
  const mine = vms.find((v) => v.ipv4?.some((a) => ips.includes(a.address)));
  if (mine) return mine;
  if (vms.length === 0) throw new HttpError(400, "The Hostinger account has no virtual machines.");
  throw new HttpError(400, `Hostinger lists ${vms.length} virtual machines; set the VM id in API Settings.`);
}

async function hostingerVm(app: AppContext) {
  const values = requireValues(app, "hostinger");
  const client = clients.hostinger(app, values);
  const vms = await client.listVms();
  return { client, vm: pickVm(vms, values.vmId, [app.config.serverAddress, firstIPv4()]) };
}

async function fromHostinger(app: AppContext): Promise<VpsStatus> {
  const { client, vm } = await hostingerVm(app);
  const to = new Date(app.now());
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

async function fromHost(app: AppContext, message: string | null): Promise<VpsStatus> {
  const h = await app.hostMetrics.read();
  return {
    configured: true,
    source: "host",
    message,
    status: "online",
    ipAddress:
      app.config.serverAddress !== "127.0.0.1" ? app.config.serverAddress : (h.ipAddress ?? app.config.serverAddress),
    hostname: h.hostname,
    cpu: h.cpu,
    memory: h.memory,
    disk: h.disk,
    metrics: { cpu: h.cpu, memory: h.memory, disk: h.disk, uptime: h.uptime, network: h.network },
  };
}

export const vpsRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/vps/status",
    handler: async ({ app }) => {
      if (!app.credentials.isConfigured("hostinger")) {
        return json(await fromHost(app, "Numbers from this host. Add the hosting provider API to control the server."));
      }
      try {
        return json(await fromHostinger(app));
      } catch (err) {
        if (!(err instanceof ServiceError) && !(err instanceof HttpError)) throw err;
        // The hosting API failed: still show this host's real numbers, and say why.
        return json(await fromHost(app, `Hosting provider API: ${err.message}`));
      }
    },
  },
  {
    method: "POST",
    path: "/api/vps/control",
    handler: async ({ app, req }) => {
      const { action } = await parseBody(req, vpsControlSchema);
      if (!app.credentials.isConfigured("hostinger")) {
        throw new HttpError(400, "Server control needs the hosting provider API. Add it under API Settings.");
      }
      try {
        const { client, vm } = await hostingerVm(app);
        const result = await client.action(vm.id, action);
        return json({ success: true, message: `Hostinger accepted ${action} (action ${result.id}: ${result.state}).` });
      } catch (err) {
        if (err instanceof ServiceError) throw new HttpError(502, err.message);
        throw err;
      }
    },
  },
];

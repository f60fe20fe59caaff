/**
 * Fake Hostinger VPS API (reference: shared/reference/services.md §1, spec v1.42.5).
 *
 * Implemented: list VMs (bare array), one VM, start/stop/restart (Action object, changes `state`), metrics
 * (both dates required → 422), list actions (`{data, meta}`, 50 per page, `page`), poll one action.
 * Auth: `Authorization: Bearer <token>`; anything else → 401 `{message:"Unauthenticated", correlation_id}`.
 * Errors always carry `message` + `correlation_id` (the spec prose says `error`, every schema says `message`).
 *
 * Not in the reference, so kept minimal here:
 * - the rate-limit header names (the spec says they exist but does not name them) → no rate-limit headers;
 *   the 429 body is the generic `{message, correlation_id}`.
 * - status for an unknown VM/action id → 404 `{message, correlation_id}` (404 is listed somewhere in the API).
 * - Action `name` values → "start" / "stop" / "restart" (the reference only says `name: string`).
 * - order of the actions list → newest first.
 * - what `actions_lock: "locked"` does → ignored.
 */
import {
  bearerToken,
  type CommonOptions,
  type CommonState,
  dispatch,
  type FakeRequest,
  type FakeServer,
  json,
  type RouteTable,
  startFake,
} from "./common";

export type HostingerVmState =
  | "running"
  | "starting"
  | "stopping"
  | "stopped"
  | "creating"
  | "initial"
  | "error"
  | "suspending"
  | "unsuspending"
  | "suspended"
  | "destroying"
  | "destroyed"
  | "recreating"
  | "restoring"
  | "recovery"
  | "stopping_recovery";

export interface HostingerIp {
  id: number;
  address: string;
  ptr: string | null;
}

export interface HostingerVm {
  id: number;
  hostname: string;
  state: HostingerVmState;
  actions_lock: "unlocked" | "locked";
  ipv4: HostingerIp[] | null;
  ipv6: HostingerIp[] | null;
  plan: string | null;
  cpus: number;
  /** MB */
  memory: number;
  /** MB */
  disk: number;
  /** MB per month */
  bandwidth: number;
  data_center_id?: number | null;
  firewall_group_id?: number | null;
  subscription_id?: string | null;
  ns1?: string | null;
  ns2?: string | null;
  template?: { id: number; name: string; description: string; documentation: string | null } | null;
  created_at: string;
}

export type HostingerActionState = "success" | "error" | "delayed" | "sent" | "created";

export interface HostingerAction {
  id: number;
  name: string;
  state: HostingerActionState;
  created_at: string;
  updated_at: string;
}

export interface HostingerMetricSeries {
  unit: string;
  /** unix seconds (as a string key) → value */
  usage: Record<string, number>;
}

export const HOSTINGER_METRIC_UNITS = {
  cpu_usage: "%",
  ram_usage: "bytes",
  disk_space: "bytes",
  outgoing_traffic: "bytes",
  incoming_traffic: "bytes",
  uptime: "milliseconds",
} as const;

export type HostingerMetricKey = keyof typeof HOSTINGER_METRIC_UNITS;
export type HostingerMetrics = Record<HostingerMetricKey, HostingerMetricSeries | null>;

export interface HostingerState extends CommonState {
  vms: HostingerVm[];
  /** Actions per VM id, newest last (the list endpoint returns newest first). */
  actions: Record<number, HostingerAction[]>;
  /** Metric samples per VM id; the endpoint returns the samples inside [date_from, date_to]. No entry → empty `usage`. */
  metrics: Record<number, HostingerMetrics>;
  /**
   * State new start/stop/restart actions get. "success" (default) moves the VM to running/stopped at once;
   * "error" leaves it unchanged; "created"/"sent"/"delayed" put it in "starting"/"stopping" (flip both by hand).
   */
  actionOutcome: HostingerActionState;
  /** The next N requests are answered 429 (after auth). */
  rateLimited: number;
  nextActionId: number;
}

export interface HostingerOptions extends CommonOptions {
  /** Valid API token (default "hostinger-test-token"). */
  apiToken?: string;
  /** Initial VMs (default: one running VM from `makeHostingerVm()`). */
  vms?: HostingerVm[];
}

export const HOSTINGER_DEFAULT_TOKEN = "hostinger-test-token";

/** A VM object with the reference's example values; override any field. */
export function makeHostingerVm(overrides: Partial<HostingerVm> = {}): HostingerVm {
  const id = overrides.id ?? 17923;
  return {
    id,
    hostname: `srv${id}.hstgr.cloud`,
    state: "running",
    actions_lock: "unlocked",
    ipv4: [{ id: 1, address: "203.0.113.10", ptr: null }],
    ipv6: [{ id: 2, address: "2001:db8::10", ptr: null }],
    plan: "KVM 4",
    cpus: 4,
    memory: 16384,
    disk: 204800,
    bandwidth: 16384000,
    data_center_id: 17,
    firewall_group_id: null,
    subscription_id: "sub-test",
    ns1: "153.92.2.6",
    ns2: "1.1.1.1",
    template: { id: 1, name: "Debian 12", description: "Debian 12 64bit", documentation: null },
    created_at: "2025-01-15T10:00:00Z",
    ...overrides,
  };
}

/**
 * Deterministic samples every `stepSeconds` from `from` to `to` (inclusive), for seeding `state.metrics[vmId]`.
 */
export function sampleHostingerMetrics(from: Date, to: Date, stepSeconds = 300): HostingerMetrics {
  const out = {} as HostingerMetrics;
  const start = Math.floor(from.getTime() / 1000);
  const end = Math.floor(to.getTime() / 1000);
  (Object.keys(HOSTINGER_METRIC_UNITS) as HostingerMetricKey[]).forEach((key, k) => {
    const usage: Record<string, number> = {};
    let i = 0;
    for (let t = start; t <= end; t += stepSeconds, i++) {
      const v =
        key === "cpu_usage"
          ? Math.round((((i * 7 + k) % 50) + 1.45) * 100) / 100
          : key === "uptime"
            ? (t - start) * 1000
            : (i + 1) * 1_000_000 * (k + 1);
      usage[String(t)] = v;
    }
    out[key] = { unit: HOSTINGER_METRIC_UNITS[key], usage };
  });
  return out;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

export async function startFakeHostinger(options: HostingerOptions = {}): Promise<FakeServer<HostingerState>> {
  const token = options.apiToken ?? HOSTINGER_DEFAULT_TOKEN;
  const state: HostingerState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    vms: options.vms ?? [makeHostingerVm()],
    actions: {},
    metrics: {},
    actionOutcome: "success",
    rateLimited: 0,
    nextActionId: 8_000_001,
  };

  const err = (status: number, message: string, extra: Record<string, unknown> = {}) =>
    json(status, { message, ...extra, correlation_id: crypto.randomUUID() });

  const findVm = (id: string) => {
    if (!/^\d+$/.test(id)) return undefined;
    return state.vms.find((v) => v.id === Number(id));
  };

  function runAction(vm: HostingerVm, name: "start" | "stop" | "restart"): HostingerAction {
    const now = new Date().toISOString();
    const action: HostingerAction = {
      id: state.nextActionId++,
      name,
      state: state.actionOutcome,
      created_at: now,
      updated_at: now,
    };
    if (action.state === "success") {
      // Start on a running VM / stop on a stopped VM is accepted and has no effect; restart starts a stopped VM.
      vm.state = name === "stop" ? "stopped" : "running";
    } else if (action.state !== "error") {
      vm.state = name === "stop" ? "stopping" : "starting";
    }
    const list = state.actions[vm.id] ?? [];
    state.actions[vm.id] = list;
    list.push(action);
    return action;
  }

  const base = "/api/vps/v1/virtual-machines";
  const notFoundVm = () => err(404, "Virtual machine not found");
  const lifecycle =
    (name: "start" | "stop" | "restart") =>
    (p: Record<string, string>): Response => {
      const vm = findVm(p.id as string);
      return vm ? json(200, runAction(vm, name)) : notFoundVm();
    };

  const routes: RouteTable = {
    [base]: { get: () => json(200, state.vms) },
    [`${base}/:id`]: {
      get: (p) => {
        const vm = findVm(p.id as string);
        return vm ? json(200, vm) : notFoundVm();
      },
    },
    [`${base}/:id/start`]: { post: lifecycle("start") },
    [`${base}/:id/stop`]: { post: lifecycle("stop") },
    [`${base}/:id/restart`]: { post: lifecycle("restart") },
    [`${base}/:id/metrics`]: {
      get: (p, req) => {
        const vm = findVm(p.id as string);
        if (!vm) return notFoundVm();
        const errors: Record<string, string[]> = {};
        const dates: Record<string, number> = {};
        for (const field of ["date_from", "date_to"]) {
          const v = req.params.get(field);
          const label = field.replace("_", " ");
          if (!v) errors[field] = [`The ${label} field is required.`];
          else if (!ISO_DATE_TIME.test(v) || Number.isNaN(Date.parse(v)))
            errors[field] = [`The ${label} field must be a valid date.`];
          else dates[field] = Math.floor(Date.parse(v) / 1000);
        }
        const messages = Object.values(errors).flat();
        if (messages.length > 0) {
          const more = messages.length > 1 ? ` (and ${messages.length - 1} more error)` : "";
          return err(422, `${messages[0]}${more}`, { errors });
        }
        const from = dates.date_from as number;
        const to = dates.date_to as number;
        const seeded = state.metrics[vm.id];
        const body = {} as HostingerMetrics;
        for (const key of Object.keys(HOSTINGER_METRIC_UNITS) as HostingerMetricKey[]) {
          const series = seeded ? seeded[key] : { unit: HOSTINGER_METRIC_UNITS[key], usage: {} };
          if (!series) {
            body[key] = null;
            continue;
          }
          const usage: Record<string, number> = {};
          for (const [t, v] of Object.entries(series.usage)) {
            const ts = Number(t);
            if (ts >= from && ts <= to) usage[t] = v;
          }
          body[key] = { unit: series.unit, usage };
        }
        return json(200, body);
      },
    },
    [`${base}/:id/actions`]: {
      get: (p, req) => {
        const vm = findVm(p.id as string);
        if (!vm) return notFoundVm();
        const rawPage = req.params.get("page") ?? "1";
        const page = /^\d+$/.test(rawPage) && Number(rawPage) >= 1 ? Number(rawPage) : 1;
        const perPage = 50;
        const all = [...(state.actions[vm.id] ?? [])].reverse();
        return json(200, {
          data: all.slice((page - 1) * perPage, page * perPage),
          meta: { current_page: page, per_page: perPage, total: all.length },
        });
      },
    },
    [`${base}/:id/actions/:actionId`]: {
      get: (p) => {
        const vm = findVm(p.id as string);
        if (!vm) return notFoundVm();
        const action = (state.actions[vm.id] ?? []).find((a) => String(a.id) === p.actionId);
        return action ? json(200, action) : err(404, "Action not found");
      },
    },
  };

  function handle(req: FakeRequest): Response | Promise<Response> {
    if (bearerToken(req.headers) !== token) return err(401, "Unauthenticated");
    if (state.rateLimited > 0) {
      state.rateLimited--;
      return err(429, "Too Many Requests");
    }
    return dispatch(
      routes,
      req,
      () => err(404, `Route ${req.path} not found (not implemented by the fake)`),
      () => err(405, `The ${req.method} method is not supported for this route.`),
    );
  }

  return startFake(state, "", handle);
}

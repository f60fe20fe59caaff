/**
 * Fake TinyMDM API (reference: services.md §3; facts from two public clients, the official page was unreadable).
 *
 * Base `/api/v1`. Auth: account key headers `X-Tinymdm-Apikey-Public` + `X-Tinymdm-Apikey-Secret`, or (when
 * `options.manager` is set) `X-Tinymdm-Manager-Apikey-Public` + `X-Tinymdm-Manager-Apikey-Secret` + `X-Account-Id`.
 * No request signing. Lists are `{count, next, previous, results}` with `per_page` and `page`.
 *
 * Implemented: `GET /devices` (filters `group_id`, `policy_id`; pagination), `GET /devices/{id}`,
 * `GET /devices/{id}/apps`, `GET /enterprise/info` (`paid_licence`). Everything else in §3 (users, groups, policies,
 * wipe, messages, enrollment QR) answers 404 `{error}` as "not implemented by the fake".
 *
 * The reference found NO documented error format, status for bad keys, rate limit or default page size, so these are
 * choices, kept minimal:
 * - error bodies are `{error:"<message>"}` (the only shape seen, in a client's test fake);
 * - missing key headers → 401, wrong keys → 403 (clients should treat both as "credentials rejected");
 * - unknown device → 404; non-numeric or < 1 `page`/`per_page` → 400;
 * - default `per_page` 10 (option `defaultPerPage`), capped at 1000 (the largest value clients were seen to use);
 * - a page past the end → 200 with empty `results`; `next`/`previous` are absolute URLs on the fake with `page=N±1`;
 * - no 429 of its own (use `state.failNext = {status: 429, ...}`).
 */
import {
  type CommonOptions,
  type CommonState,
  dispatch,
  type FakeRequest,
  type FakeServer,
  json,
  type RouteTable,
  startFake,
} from "./common";

export interface TinyMdmDevice {
  id: string;
  name: string;
  nickname: string | null;
  serial_number: string | null;
  imei: string | null;
  phone_number: string | null;
  user_id: string | null;
  policy_id: string | null;
  group_id: string | null;
  enrollment_type: string | null;
  os_version: string | null;
  manufacturer: string | null;
  battery_level: number | null;
  /** unix seconds */
  last_sync_timestamp: number | null;
  enrollment_timestamp: number | null;
  tinymdm_app_version: string | number | null;
  geolocation_positions: Array<Record<string, unknown>>;
}

export interface TinyMdmApp {
  package_name: string;
  app_name: string;
  version_code: number;
  version_name: string;
}

export interface TinyMdmState extends CommonState {
  devices: TinyMdmDevice[];
  /** Installed apps per device id. */
  apps: Record<string, TinyMdmApp[]>;
  /** Body of `GET /enterprise/info`. */
  enterprise: { paid_licence: number } & Record<string, unknown>;
}

export interface TinyMdmOptions extends CommonOptions {
  /** Account API public key (default "tinymdm-public"). */
  publicKey?: string;
  /** Account API secret key (default "tinymdm-secret"). */
  secretKey?: string;
  /** Also accept a manager/reseller key for this account id. */
  manager?: { publicKey: string; secretKey: string; accountId: string };
  devices?: TinyMdmDevice[];
  defaultPerPage?: number;
}

export const TINYMDM_DEFAULT_KEYS = { publicKey: "tinymdm-public", secretKey: "tinymdm-secret" };

/** A device with plausible values; `n` makes ids/serials unique. */
export function makeTinyMdmDevice(n: number, overrides: Partial<TinyMdmDevice> = {}): TinyMdmDevice {
  return {
    id: `dev${String(n).padStart(4, "0")}`,
    name: `Phone ${n}`,
    nickname: null,
    serial_number: `SN${100000 + n}`,
    imei: `35${String(1000000000000 + n)}`,
    phone_number: null,
    user_id: `user${n}`,
    policy_id: "policy1",
    group_id: "group1",
    enrollment_type: "fully_managed",
    os_version: "14",
    manufacturer: "Google",
    battery_level: 80,
    last_sync_timestamp: 1_767_000_000 + n,
    enrollment_timestamp: 1_760_000_000 + n,
    tinymdm_app_version: "5.1.0",
    geolocation_positions: [],
    ...overrides,
  };
}

export async function startFakeTinyMdm(options: TinyMdmOptions = {}): Promise<FakeServer<TinyMdmState>> {
  const publicKey = options.publicKey ?? TINYMDM_DEFAULT_KEYS.publicKey;
  const secretKey = options.secretKey ?? TINYMDM_DEFAULT_KEYS.secretKey;
  const defaultPerPage = options.defaultPerPage ?? 10;
  const state: TinyMdmState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    devices: options.devices ?? [],
    apps: {},
    enterprise: { paid_licence: 25 },
  };

  const err = (status: number, message: string) => json(status, { error: message });

  /** null when authorised, else the error response. */
  function checkAuth(h: Headers): Response | null {
    const pub = h.get("x-tinymdm-apikey-public");
    const sec = h.get("x-tinymdm-apikey-secret");
    if (pub !== null || sec !== null) {
      return pub === publicKey && sec === secretKey ? null : err(403, "Invalid API key");
    }
    const mpub = h.get("x-tinymdm-manager-apikey-public");
    const msec = h.get("x-tinymdm-manager-apikey-secret");
    if (mpub !== null || msec !== null) {
      const m = options.manager;
      if (!m || mpub !== m.publicKey || msec !== m.secretKey) return err(403, "Invalid API key");
      if (h.get("x-account-id") !== m.accountId) return err(403, "Invalid account id");
      return null;
    }
    return err(401, "API key headers are missing");
  }

  function paginate<T>(req: FakeRequest, items: T[]): Response {
    const rawPage = req.params.get("page") ?? "1";
    const rawPer = req.params.get("per_page") ?? String(defaultPerPage);
    if (!/^\d+$/.test(rawPage) || Number(rawPage) < 1) return err(400, "Invalid page.");
    if (!/^\d+$/.test(rawPer) || Number(rawPer) < 1) return err(400, "Invalid per_page.");
    const page = Number(rawPage);
    const per = Math.min(Number(rawPer), 1000);
    const link = (p: number) => {
      const q = new URLSearchParams(req.params);
      q.set("page", String(p));
      return `${req.origin}${req.path}?${q}`;
    };
    const lastPage = Math.max(1, Math.ceil(items.length / per));
    return json(200, {
      count: items.length,
      next: page < lastPage ? link(page + 1) : null,
      previous: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
      results: items.slice((page - 1) * per, page * per),
    });
  }

  const findDevice = (id: string) => state.devices.find((d) => d.id === id);

  const routes: RouteTable = {
    "/api/v1/devices": {
      get: (_p, req) => {
        const group = req.params.get("group_id");
        const policy = req.params.get("policy_id");
        const items = state.devices.filter(
          (d) => (group === null || d.group_id === group) && (policy === null || d.policy_id === policy),
        );
        return paginate(req, items);
      },
    },
    "/api/v1/devices/:id": {
      get: (p) => {
        const d = findDevice(p.id as string);
        return d ? json(200, d) : err(404, "Device not found");
      },
    },
    "/api/v1/devices/:id/apps": {
      get: (p, req) => {
        const d = findDevice(p.id as string);
        return d ? paginate(req, state.apps[d.id] ?? []) : err(404, "Device not found");
      },
    },
    "/api/v1/enterprise/info": { get: () => json(200, state.enterprise) },
  };

  function handle(req: FakeRequest): Response | Promise<Response> {
    const denied = checkAuth(req.headers);
    if (denied) return denied;
    return dispatch(
      routes,
      req,
      () => err(404, `Not found: ${req.method} ${req.path} (not implemented by the fake)`),
      () => err(405, `Method ${req.method} not allowed`),
    );
  }

  return startFake(state, "/api/v1", handle);
}

/**
 * Fake Telnyx API v2 (reference: services.md §2, team-telnyx/openapi spec3.yml @12de4dd).
 *
 * Base `/v2`, `Authorization: Bearer <API v2 key>`. Single resources are `{data:{…}}`, lists
 * `{data:[…], meta:{page_number, page_size, total_pages, total_results}}` with `page[number]` (default 1, min 1) and
 * `page[size]` (max 250; defaults: credential_connections 250, telephony_credentials 50, phone_numbers 20,
 * requirements 20). Errors: `{errors:[{code, title, detail, source?, meta:{url}}]}` with string codes —
 * 401 `10009` "Authentication failed", 404 `10005` "Resource not found", 422 `10015` with `source.pointer`,
 * 429 `10011` "Too many requests" + `x-ratelimit-limit|remaining|reset` headers.
 *
 * Implemented: credential connections CRUD (create 201, delete 200 returning the record; filter
 * `filter[connection_name][contains]`; sort `created_at|connection_name|active` with `-`), telephony credentials CRUD
 * (create 201 with generated `sip_username`/`sip_password`; filters tag, name, status, resource_id, sip_username) and
 * `POST /telephony_credentials/{id}/token` (201, JWT as text/plain), phone numbers list/get/PATCH (route to a
 * connection), `GET /requirements` (paginated) and `GET /regulatory_requirements` (not paginated, no meta).
 *
 * Not in the reference, chosen here (kept minimal):
 * - 422 title "Invalid value" and the `detail` texts; 422 also for out-of-range `page[...]`, unknown `sort` or filter
 *   enum values (pointer `/page/size`, `/sort`, `/filter/...`); 400 code 10015 for a body that is not JSON.
 * - `total_pages` is ceil(total/size), so 0 for an empty list.
 * - `filter[connection_name][contains]` is case-insensitive; `filter[phone_number]` is a substring match; other
 *   filters are exact. Telephony credential `filter[status]` accepts `active` / `expired`.
 * - creating a telephony credential, or PATCHing a phone number, with a `connection_id` the fake does not know → 422.
 * - default list order is creation order (phone numbers: newest first, as the reference says).
 * - `tag` of a telephony credential is stored (for `filter[tag]`) but not returned: the reference lists no such field.
 * - `check_registration_status`, `/phone_numbers_regulatory_requirements` and the `/regulatory_requirements`
 *   filters `phone_number` / `requirement_group_id` → 501 (response shapes not in the reference).
 * - rate-limit headers are only sent on the forced 429 (numbers are not published; `limit` defaults to 100).
 */
import {
  bearerToken,
  type CommonOptions,
  type CommonState,
  dispatch,
  type FakeRequest,
  type FakeServer,
  fakeJwt,
  INVALID,
  isObject,
  json,
  parseJsonBody,
  type RouteTable,
  startFake,
} from "./common";

export interface TelnyxCredentialConnection {
  id: string;
  record_type: "credential_connection";
  connection_name: string;
  user_name: string;
  password: string;
  active: boolean;
  sip_uri_calling_preference?: "disabled" | "unrestricted" | "internal";
  tags?: string[];
  anchorsite_override?: string;
  inbound?: Record<string, unknown>;
  outbound?: Record<string, unknown>;
  webhook_event_url?: string | null;
  created_at: string;
  updated_at: string;
  /** Other optional create/update fields are stored and returned as sent. */
  [extra: string]: unknown;
}

export interface TelnyxTelephonyCredential {
  id: string;
  record_type: "credential";
  name: string | null;
  resource_id: string;
  user_id: string;
  sip_username: string;
  sip_password: string;
  expired: boolean;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** Stored for `filter[tag]`; not part of the response. */
  tag?: string | null;
}

export type TelnyxPhoneNumberStatus =
  | "purchase-pending"
  | "purchase-failed"
  | "port-pending"
  | "port-failed"
  | "active"
  | "deleted"
  | "emergency-only"
  | "ported-out"
  | "port-out-pending"
  | "requirement-info-pending"
  | "requirement-info-under-review"
  | "requirement-info-exception"
  | "provision-pending";

export interface TelnyxPhoneNumber {
  id: string;
  record_type: "phone_number";
  phone_number: string;
  status: TelnyxPhoneNumberStatus;
  connection_id: string | null;
  connection_name: string | null;
  phone_number_type: string;
  tags: string[];
  purchased_at?: string;
  usage_payment_method?: string;
  created_at: string;
  updated_at: string;
  [extra: string]: unknown;
}

export interface TelnyxAcceptanceCriteria {
  time_limit?: string | null;
  locality_limit?: string | null;
  min_length?: number | null;
  max_length?: number | null;
  acceptable_values?: string[] | null;
  acceptable_characters?: string | null;
  case_sensitive?: boolean | null;
  regex?: string | null;
}

/** Item of `GET /requirements`. */
export interface TelnyxRequirement {
  id: string;
  record_type: "requirement";
  country_code: string;
  phone_number_type: "local" | "national" | "toll_free";
  action: "branded_calling" | "ordering" | "porting";
  locality: string | null;
  requirement_types: Array<{
    id: string;
    record_type: "requirement_type";
    name: string;
    type: "document" | "address" | "textual";
    description: string;
    example: string;
    acceptance_criteria: TelnyxAcceptanceCriteria;
  }>;
}

/** Item of `GET /regulatory_requirements` (no record_type). */
export interface TelnyxRegulatoryRequirementGroup {
  country_code: string;
  phone_number_type: "local" | "toll_free" | "mobile" | "national" | "shared_cost";
  action: "ordering" | "porting" | "action";
  regulatory_requirements: Array<{
    id: string;
    name: string;
    description: string;
    example: string;
    field_type: string;
    acceptance_criteria: TelnyxAcceptanceCriteria;
  }>;
}

export interface TelnyxState extends CommonState {
  credentialConnections: TelnyxCredentialConnection[];
  telephonyCredentials: TelnyxTelephonyCredential[];
  phoneNumbers: TelnyxPhoneNumber[];
  requirements: TelnyxRequirement[];
  regulatoryRequirements: TelnyxRegulatoryRequirementGroup[];
  /** JWTs handed out by `/telephony_credentials/{id}/token`. */
  issuedTokens: Array<{ credentialId: string; token: string }>;
  /** The next N requests are answered 429 (after auth). */
  rateLimited: number;
  /** `user_id` put on new telephony credentials. */
  userId: string;
}

export interface TelnyxOptions extends CommonOptions {
  /** Valid API v2 key (default "KEYtelnyx-test"). */
  apiKey?: string;
  phoneNumbers?: TelnyxPhoneNumber[];
}

export const TELNYX_DEFAULT_KEY = "KEYtelnyx-test";

let idCounter = 0n;
/** Numeric string id like Telnyx connection ids ("1293384261075731499"). */
export function telnyxNumericId(): string {
  idCounter += 1n;
  return String(1_293_384_261_075_731_499n + idCounter * 7919n);
}

const nowIso = () => new Date().toISOString();

/** A phone number record; `n` makes the number and id unique. */
export function makeTelnyxPhoneNumber(n: number, overrides: Partial<TelnyxPhoneNumber> = {}): TelnyxPhoneNumber {
  const created = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
  return {
    id: telnyxNumericId(),
    record_type: "phone_number",
    phone_number: `+1555${String(1000000 + n).slice(-7)}`,
    status: "active",
    connection_id: null,
    connection_name: null,
    phone_number_type: "local",
    tags: [],
    purchased_at: created,
    created_at: created,
    updated_at: created,
    ...overrides,
  };
}

/** A `/requirements` item with one address and one document requirement type. */
export function makeTelnyxRequirement(
  o: Pick<TelnyxRequirement, "country_code" | "phone_number_type" | "action">,
): TelnyxRequirement {
  return {
    id: crypto.randomUUID(),
    record_type: "requirement",
    locality: null,
    ...o,
    requirement_types: [
      {
        id: crypto.randomUUID(),
        record_type: "requirement_type",
        name: "Address",
        type: "address",
        description: `A local address in ${o.country_code}`,
        example: "1 Main Street",
        acceptance_criteria: { locality_limit: `Within ${o.country_code}` },
      },
      {
        id: crypto.randomUUID(),
        record_type: "requirement_type",
        name: "Proof of identity",
        type: "document",
        description: "Passport or national ID",
        example: "passport.pdf",
        acceptance_criteria: { time_limit: "Issued within the last 3 months" },
      },
    ],
  };
}

/** A `/regulatory_requirements` item with one `address_id` requirement. */
export function makeTelnyxRegulatoryRequirementGroup(
  o: Pick<TelnyxRegulatoryRequirementGroup, "country_code" | "phone_number_type" | "action">,
): TelnyxRegulatoryRequirementGroup {
  return {
    ...o,
    regulatory_requirements: [
      {
        id: crypto.randomUUID(),
        name: "Address",
        description: `A local address in ${o.country_code}`,
        example: "1 Main Street",
        field_type: "address_id",
        acceptance_criteria: { locality_limit: `Within ${o.country_code}`, min_length: null, max_length: null },
      },
    ],
  };
}

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
function randomAlnum(n: number): string {
  const b = crypto.getRandomValues(new Uint8Array(n));
  return Array.from(b, (x) => ALNUM[x % ALNUM.length]).join("");
}

type TelnyxErrorItem = { code: string; title: string; detail: string; source?: { pointer: string } };
const errorsBody = (items: TelnyxErrorItem[]) => ({
  errors: items.map((e) => ({ ...e, meta: { url: `https://developers.telnyx.com/docs/overview/errors/${e.code}` } })),
});
const tError = (status: number, items: TelnyxErrorItem[], headers: Record<string, string> = {}) =>
  json(status, errorsBody(items), headers);
const notFound = (detail = "The requested resource or URL could not be found.") =>
  tError(404, [{ code: "10005", title: "Resource not found", detail }]);
const invalid = (pointer: string, detail: string) =>
  tError(422, [{ code: "10015", title: "Invalid value", detail, source: { pointer } }]);
const notImplemented = (what: string) =>
  tError(501, [{ code: "10000", title: "Not implemented by the fake", detail: `${what}: not in the reference` }]);

type Paged = {
  data: unknown[];
  meta: { page_number: number; page_size: number; total_pages: number; total_results: number };
};

function paginate<T>(
  req: FakeRequest,
  items: T[],
  defaultSize: number,
  map: (t: T) => unknown = (t) => t,
): Paged | Response {
  const rawNumber = req.params.get("page[number]");
  const rawSize = req.params.get("page[size]");
  const number = rawNumber === null ? 1 : Number(rawNumber);
  const size = rawSize === null ? defaultSize : Number(rawSize);
  if (!Number.isInteger(number) || number < 1) return invalid("/page/number", "page[number] must be an integer ≥ 1.");
  if (!Number.isInteger(size) || size < 1 || size > 250)
    return invalid("/page/size", "page[size] must be an integer between 1 and 250.");
  return {
    data: items.slice((number - 1) * size, number * size).map(map),
    meta: {
      page_number: number,
      page_size: size,
      total_pages: Math.ceil(items.length / size),
      total_results: items.length,
    },
  };
}

/** Sorts by `sort` (one of `allowed`, optional leading "-"); a Response on an unknown value. */
function sortBy<T>(req: FakeRequest, items: T[], allowed: string[]): T[] | Response {
  const sort = req.params.get("sort");
  if (sort === null) return items;
  const desc = sort.startsWith("-");
  const key = desc ? sort.slice(1) : sort;
  if (!allowed.includes(key))
    return invalid("/sort", `sort must be one of ${allowed.join(", ")} (optionally prefixed with -).`);
  const val = (t: T) => (t as Record<string, unknown>)[key];
  return [...items].sort((a, b) => {
    const x = val(a);
    const y = val(b);
    const c = x === y ? 0 : x === undefined || x === null ? 1 : y === undefined || y === null ? -1 : x < y ? -1 : 1;
    return desc ? -c : c;
  });
}

/** Validates an enum filter value; a Response when it is not allowed. */
function enumFilter(req: FakeRequest, name: string, allowed: string[]): string | null | Response {
  const v = req.params.get(`filter[${name}]`);
  if (v === null) return null;
  return allowed.includes(v) ? v : invalid(`/filter/${name}`, `filter[${name}] must be one of ${allowed.join(", ")}.`);
}

const USER_NAME = /^[A-Za-z0-9]{4,32}$/;

export async function startFakeTelnyx(options: TelnyxOptions = {}): Promise<FakeServer<TelnyxState>> {
  const apiKey = options.apiKey ?? TELNYX_DEFAULT_KEY;
  const state: TelnyxState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    credentialConnections: [],
    telephonyCredentials: [],
    phoneNumbers: options.phoneNumbers ?? [],
    requirements: [],
    regulatoryRequirements: [],
    issuedTokens: [],
    rateLimited: 0,
    userId: "8a2b7c4d-1e3f-4a5b-9c6d-7e8f9a0b1c2d",
  };

  /** Parsed JSON object body, or a Response. */
  const objectBody = (req: FakeRequest): Record<string, unknown> | Response => {
    const v = parseJsonBody(req.rawBody);
    if (v === undefined) return {};
    if (v === INVALID || !isObject(v))
      return tError(400, [{ code: "10015", title: "Bad Request", detail: "The request body is not a JSON object." }]);
    return v;
  };

  /** Checks the credential connection fields present in `body`; `create` makes the three required. */
  function checkConnection(body: Record<string, unknown>, create: boolean): Response | null {
    const errs: TelnyxErrorItem[] = [];
    const bad = (pointer: string, detail: string) =>
      errs.push({ code: "10015", title: "Invalid value", detail, source: { pointer } });
    const has = (k: string) => body[k] !== undefined;
    if (create || has("connection_name"))
      if (typeof body.connection_name !== "string" || body.connection_name.trim() === "")
        bad("/connection_name", "connection_name is required.");
    if (create || has("user_name"))
      if (typeof body.user_name !== "string" || !USER_NAME.test(body.user_name))
        bad("/user_name", "user_name must be 4 to 32 alphanumeric characters.");
    if (create || has("password"))
      if (typeof body.password !== "string" || body.password.length < 8 || body.password.length > 128)
        bad("/password", "password must be 8 to 128 characters.");
    if (has("active") && typeof body.active !== "boolean") bad("/active", "active must be a boolean.");
    if (
      has("sip_uri_calling_preference") &&
      !["disabled", "unrestricted", "internal"].includes(body.sip_uri_calling_preference as string)
    )
      bad("/sip_uri_calling_preference", "sip_uri_calling_preference must be disabled, unrestricted or internal.");
    if (has("tags") && !(Array.isArray(body.tags) && body.tags.every((t) => typeof t === "string")))
      bad("/tags", "tags must be an array of strings.");
    return errs.length ? tError(422, errs) : null;
  }

  const READ_ONLY = ["id", "record_type", "created_at", "updated_at"];
  const writable = (body: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(body).filter(([k]) => !READ_ONLY.includes(k)));

  const findConnection = (id: string) => state.credentialConnections.find((c) => c.id === id);
  const findCredential = (id: string) => state.telephonyCredentials.find((c) => c.id === id);
  const findNumber = (id: string) => state.phoneNumbers.find((n) => n.id === id);

  /** The record as the API returns it (`expired` computed now). `tag` is left in for filtering; `out()` drops it. */
  const credentialOut = (c: TelnyxTelephonyCredential): TelnyxTelephonyCredential => ({
    ...c,
    expired: c.expires_at !== null && Date.parse(c.expires_at) <= Date.now(),
  });
  const out = (c: TelnyxTelephonyCredential) => {
    const { tag: _tag, ...rest } = credentialOut(c);
    return rest;
  };

  const routes: RouteTable = {
    "/v2/credential_connections": {
      get: (_p, req) => {
        const contains = req.params.get("filter[connection_name][contains]");
        let items = state.credentialConnections.filter(
          (c) => contains === null || c.connection_name.toLowerCase().includes(contains.toLowerCase()),
        );
        const sorted = sortBy(req, items, ["created_at", "connection_name", "active"]);
        if (sorted instanceof Response) return sorted;
        items = sorted;
        const page = paginate(req, items, 250);
        return page instanceof Response ? page : json(200, page);
      },
      post: (_p, req) => {
        const body = objectBody(req);
        if (body instanceof Response) return body;
        const problem = checkConnection(body, true);
        if (problem) return problem;
        const now = nowIso();
        const conn: TelnyxCredentialConnection = {
          ...writable(body),
          id: telnyxNumericId(),
          record_type: "credential_connection",
          connection_name: body.connection_name as string,
          user_name: body.user_name as string,
          password: body.password as string,
          active: (body.active as boolean | undefined) ?? true,
          created_at: now,
          updated_at: now,
        };
        state.credentialConnections.push(conn);
        return json(201, { data: conn });
      },
    },
    "/v2/credential_connections/:id": {
      get: (p) => {
        const c = findConnection(p.id as string);
        return c ? json(200, { data: c }) : notFound();
      },
      patch: (p, req) => {
        const c = findConnection(p.id as string);
        if (!c) return notFound();
        const body = objectBody(req);
        if (body instanceof Response) return body;
        const problem = checkConnection(body, false);
        if (problem) return problem;
        Object.assign(c, writable(body), { updated_at: nowIso() });
        return json(200, { data: c });
      },
      delete: (p) => {
        const c = findConnection(p.id as string);
        if (!c) return notFound();
        state.credentialConnections.splice(state.credentialConnections.indexOf(c), 1);
        return json(200, { data: c });
      },
    },
    "/v2/credential_connections/:id/actions/check_registration_status": {
      post: () => notImplemented("check_registration_status response shape"),
    },
    "/v2/telephony_credentials": {
      get: (_p, req) => {
        const status = enumFilter(req, "status", ["active", "expired"]);
        if (status instanceof Response) return status;
        const eq = (name: string, v: unknown) => {
          const f = req.params.get(`filter[${name}]`);
          return f === null || f === v;
        };
        const items = state.telephonyCredentials
          .map(credentialOut)
          .filter(
            (c) =>
              eq("tag", c.tag) &&
              eq("name", c.name) &&
              eq("resource_id", c.resource_id) &&
              eq("sip_username", c.sip_username) &&
              (status === null || (status === "expired") === c.expired),
          );
        const page = paginate(req, items, 50, out);
        return page instanceof Response ? page : json(200, page);
      },
      post: (_p, req) => {
        const body = objectBody(req);
        if (body instanceof Response) return body;
        if (typeof body.connection_id !== "string" || body.connection_id === "")
          return invalid("/connection_id", "connection_id is required.");
        if (!findConnection(body.connection_id)) return invalid("/connection_id", "connection_id does not exist.");
        for (const k of ["name", "tag", "expires_at"])
          if (body[k] !== undefined && body[k] !== null && typeof body[k] !== "string")
            return invalid(`/${k}`, `${k} must be a string.`);
        if (typeof body.expires_at === "string" && Number.isNaN(Date.parse(body.expires_at)))
          return invalid("/expires_at", "expires_at must be an ISO 8601 date-time.");
        const now = nowIso();
        const cred: TelnyxTelephonyCredential = {
          id: crypto.randomUUID(),
          record_type: "credential",
          name: (body.name as string | undefined) ?? null,
          resource_id: `connection:${body.connection_id}`,
          user_id: state.userId,
          sip_username: `gencred${randomAlnum(24)}`,
          sip_password: randomAlnum(32),
          expired: false,
          expires_at: (body.expires_at as string | undefined) ?? null,
          created_at: now,
          updated_at: now,
          tag: (body.tag as string | undefined) ?? null,
        };
        state.telephonyCredentials.push(cred);
        return json(201, { data: out(cred) });
      },
    },
    "/v2/telephony_credentials/:id": {
      get: (p) => {
        const c = findCredential(p.id as string);
        return c ? json(200, { data: out(c) }) : notFound();
      },
      patch: (p, req) => {
        const c = findCredential(p.id as string);
        if (!c) return notFound();
        const body = objectBody(req);
        if (body instanceof Response) return body;
        for (const k of ["name", "tag", "expires_at"] as const) {
          const v = body[k];
          if (v === undefined) continue;
          if (v !== null && typeof v !== "string") return invalid(`/${k}`, `${k} must be a string.`);
          c[k] = v as string | null;
        }
        c.updated_at = nowIso();
        return json(200, { data: out(c) });
      },
      delete: (p) => {
        const c = findCredential(p.id as string);
        if (!c) return notFound();
        state.telephonyCredentials.splice(state.telephonyCredentials.indexOf(c), 1);
        return json(200, { data: out(c) });
      },
    },
    "/v2/telephony_credentials/:id/token": {
      post: (p) => {
        const c = findCredential(p.id as string);
        if (!c) return notFound();
        const iat = Math.floor(Date.now() / 1000);
        const token = fakeJwt({ iss: "telnyx_telephony", sub: c.id, iat, exp: iat + 86_400, typ: "access" });
        state.issuedTokens.push({ credentialId: c.id, token });
        return new Response(token, { status: 201, headers: { "content-type": "text/plain" } });
      },
    },
    "/v2/phone_numbers": {
      get: (_p, req) => {
        const status = req.params.get("filter[status]");
        const connectionId = req.params.get("filter[connection_id]");
        const number = req.params.get("filter[phone_number]");
        const connName = req.params.get("filter[voice.connection_name]");
        let items = state.phoneNumbers.filter(
          (n) =>
            (status === null || n.status === status) &&
            (connectionId === null || n.connection_id === connectionId) &&
            (number === null || n.phone_number.includes(number)) &&
            (connName === null || n.connection_name === connName),
        );
        if (req.params.get("sort") === null) {
          items = [...items].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
        } else {
          const sorted = sortBy(req, items, [
            "purchased_at",
            "phone_number",
            "connection_name",
            "usage_payment_method",
          ]);
          if (sorted instanceof Response) return sorted;
          items = sorted;
        }
        const page = paginate(req, items, 20);
        return page instanceof Response ? page : json(200, page);
      },
    },
    "/v2/phone_numbers/:id": {
      get: (p) => {
        const n = findNumber(p.id as string);
        return n ? json(200, { data: n }) : notFound();
      },
      patch: (p, req) => {
        const n = findNumber(p.id as string);
        if (!n) return notFound();
        const body = objectBody(req);
        if (body instanceof Response) return body;
        if (body.connection_id !== undefined) {
          if (body.connection_id === null || body.connection_id === "") {
            n.connection_id = null;
            n.connection_name = null;
          } else {
            const conn = typeof body.connection_id === "string" ? findConnection(body.connection_id) : undefined;
            if (!conn) return invalid("/connection_id", "connection_id does not exist.");
            n.connection_id = conn.id;
            n.connection_name = conn.connection_name;
          }
        }
        if (body.tags !== undefined) {
          if (!(Array.isArray(body.tags) && body.tags.every((t) => typeof t === "string")))
            return invalid("/tags", "tags must be an array of strings.");
          n.tags = body.tags as string[];
        }
        const rest = Object.fromEntries(
          Object.entries(body).filter(
            ([k]) => !["connection_id", "tags", "connection_name", "phone_number", "status", ...READ_ONLY].includes(k),
          ),
        );
        Object.assign(n, rest, { updated_at: nowIso() });
        return json(200, { data: n });
      },
    },
    "/v2/requirements": {
      get: (_p, req) => {
        const type = enumFilter(req, "phone_number_type", ["local", "national", "toll_free"]);
        if (type instanceof Response) return type;
        const action = enumFilter(req, "action", ["branded_calling", "ordering", "porting"]);
        if (action instanceof Response) return action;
        const country = req.params.get("filter[country_code]");
        // `sort[]` is accepted but not applied: its allowed values are not in the reference.
        const items = state.requirements.filter(
          (r) =>
            (country === null || r.country_code === country) &&
            (type === null || r.phone_number_type === type) &&
            (action === null || r.action === action),
        );
        const page = paginate(req, items, 20);
        return page instanceof Response ? page : json(200, page);
      },
    },
    "/v2/regulatory_requirements": {
      get: (_p, req) => {
        if (req.params.has("filter[phone_number]") || req.params.has("filter[requirement_group_id]"))
          return notImplemented("filter[phone_number] / filter[requirement_group_id]");
        const type = enumFilter(req, "phone_number_type", ["local", "toll_free", "mobile", "national", "shared_cost"]);
        if (type instanceof Response) return type;
        const action = enumFilter(req, "action", ["ordering", "porting", "action"]);
        if (action instanceof Response) return action;
        const country = req.params.get("filter[country_code]");
        const data = state.regulatoryRequirements.filter(
          (r) =>
            (country === null || r.country_code === country) &&
            (type === null || r.phone_number_type === type) &&
            (action === null || r.action === action),
        );
        return json(200, { data });
      },
    },
    "/v2/phone_numbers_regulatory_requirements": {
      get: () => notImplemented("phone_numbers_regulatory_requirements meta shape"),
    },
  };

  function handle(req: FakeRequest): Response | Promise<Response> {
    if (bearerToken(req.headers) !== apiKey)
      return tError(401, [
        { code: "10009", title: "Authentication failed", detail: "The API key is missing or not valid." },
      ]);
    if (state.rateLimited > 0) {
      state.rateLimited--;
      return tError(429, [{ code: "10011", title: "Too many requests", detail: "Rate limit exceeded; retry later." }], {
        "x-ratelimit-limit": "100",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": "1",
      });
    }
    return dispatch(
      routes,
      req,
      () => notFound(`No route ${req.method} ${req.path} (not implemented by the fake).`),
      (allowed) =>
        tError(405, [{ code: "10000", title: "Method not allowed", detail: `Allowed: ${allowed.join(", ")}` }], {
          allow: allowed.join(", "),
        }),
    );
  }

  return startFake(state, "/v2", handle);
}

import { deadline, expectJson, httpRequest, isObject } from "./http";

const SERVICE = "Telnyx";
/** Telnyx's maximum page size. */
const PAGE_SIZE = 250;
/** A guard against a service that never reports the last page. */
const MAX_PAGES = 200;
/** The overall deadline of reading one list through all its pages. */
export const LIST_DEADLINE_MS = 60_000;

export interface TelnyxConnection {
  id: string;
  connection_name: string;
  user_name: string;
  active?: boolean;
  created_at: string;
}
export interface TelnyxTelephonyCredential {
  id: string;
  name: string | null;
  sip_username: string;
  sip_password: string;
  resource_id: string;
  created_at: string;
}
export interface TelnyxPhoneNumber {
  id: string;
  phone_number: string;
  status: string;
  connection_id: string | null;
  connection_name: string | null;
  updated_at: string;
}
export interface TelnyxRequirement {
  id: string;
  record_type: string;
  requirement_types: {
    record_type: string;
    name: string;
    type: string;
    description: string;
    acceptance_criteria?: { time_limit?: string | null; locality_limit?: string | null } | null;
  }[];
}

/** Telnyx's own error text: the first error's `detail`, else its `title`. */
export const telnyxErrorMessage = (b: unknown): string | undefined => {
  if (!isObject(b) || !Array.isArray(b.errors) || !isObject(b.errors[0])) return undefined;
  const e = b.errors[0];
  return (typeof e.detail === "string" && e.detail) || (typeof e.title === "string" ? e.title : undefined);
};

/** Telnyx API v2: Bearer key, `{data}` envelopes, `page[number]`/`page[size]`. */
export class TelnyxClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    /** The operation's overall deadline (`deadline()` in ./http): every call of this client stops with it. */
    private readonly signal?: AbortSignal,
  ) {}

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    signal = this.signal,
  ): Promise<{ data: T; meta?: Record<string, number> }> {
    const res = await httpRequest({
      service: SERVICE,
      method,
      url: `${this.baseUrl}${path}`,
      headers: { Authorization: `Bearer ${this.apiKey}` },
      body,
      signal,
      secrets: [this.apiKey],
      errorMessage: telnyxErrorMessage,
    });
    return expectJson(SERVICE, res, (v) => isObject(v) && "data" in v);
  }

  /** Every item of a list endpoint, following the pages to the end (within `LIST_DEADLINE_MS` overall). */
  async listAll<T>(path: string, query = "", deadlineMs = LIST_DEADLINE_MS): Promise<T[]> {
    const own = deadline(`Reading the Telnyx list ${path}`, deadlineMs);
    const signal = this.signal ? AbortSignal.any([this.signal, own]) : own;
    const items: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const sep = path.includes("?") || query ? "&" : "?";
      const q = `${query ? `?${query}` : ""}${sep}page[number]=${page}&page[size]=${PAGE_SIZE}`;
      const { data, meta } = await this.call<T[]>("GET", `${path}${q}`, undefined, signal);
      if (!Array.isArray(data)) break;
      items.push(...data);
      const totalPages = meta?.total_pages ?? 1;
      if (page >= totalPages || data.length === 0) break;
    }
    return items;
  }

  listConnections() {
    return this.listAll<TelnyxConnection>("/credential_connections");
  }

  async createConnection(input: { connection_name: string; user_name: string; password: string }) {
    return (await this.call<TelnyxConnection>("POST", "/credential_connections", input)).data;
  }

  async deleteConnection(id: string) {
    await this.call("DELETE", `/credential_connections/${encodeURIComponent(id)}`);
  }

  async createTelephonyCredential(connectionId: string, name: string) {
    return (
      await this.call<TelnyxTelephonyCredential>("POST", "/telephony_credentials", {
        connection_id: connectionId,
        name,
      })
    ).data;
  }

  listPhoneNumbers() {
    return this.listAll<TelnyxPhoneNumber>("/phone_numbers");
  }

  async routePhoneNumber(id: string, connectionId: string | null) {
    return (
      await this.call<TelnyxPhoneNumber>("PATCH", `/phone_numbers/${encodeURIComponent(id)}`, {
        connection_id: connectionId,
      })
    ).data;
  }

  requirements(countryCode: string, phoneNumberType: string) {
    const q = `filter[country_code]=${encodeURIComponent(countryCode)}&filter[phone_number_type]=${encodeURIComponent(phoneNumberType)}`;
    return this.listAll<TelnyxRequirement>("/requirements", q);
  }

  /** A one-item list: the cheapest authenticated call (Test Connection). */
  async ping(): Promise<number> {
    const { meta } = await this.call<unknown[]>("GET", "/credential_connections?page[number]=1&page[size]=1");
    return meta?.total_results ?? 0;
  }
}

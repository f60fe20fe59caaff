import { expectJson, httpRequest, isObject, ServiceError } from "./http";

const SERVICE = "FreePBX";

/**
 * FreePBX API module: OAuth2 client_credentials token, then
 * GraphQL with the Bearer token. Tokens live 3600 s; a new one is fetched a
 * minute before expiry. Errors: 400 `{errors:[{message}]}` (also when the first
 * root field has status false).
 */
export class FreePbxClient {
  private token: { value: string; expiresAt: number } | null = null;

  constructor(
    private readonly apiUrl: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly now: () => number = Date.now,
    /** The operation's overall deadline (`deadline()` in ./http): every call of this client stops with it. */
    private readonly signal?: AbortSignal,
  ) {}

  private get base() {
    return this.apiUrl.replace(/\/+$/, "").replace(/\/admin\/api\/api(\/gql)?$/, "");
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt - 60_000 > this.now()) return this.token.value;
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: this.clientId,
      client_secret: this.clientSecret,
      scope: "gql",
    });
    const res = await httpRequest({
      service: SERVICE,
      method: "POST",
      url: `${this.base}/admin/api/api/token`,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      signal: this.signal,
      secrets: [this.clientSecret],
      errorMessage: (b) =>
        isObject(b) ? String(b.message ?? b.error_description ?? b.error ?? "") || undefined : undefined,
    });
    const body = expectJson<{ access_token: string; expires_in: number }>(
      SERVICE,
      res,
      (v) => isObject(v) && typeof v.access_token === "string",
    );
    this.token = { value: body.access_token, expiresAt: this.now() + (body.expires_in ?? 3600) * 1000 };
    return body.access_token;
  }

  /** Runs one GraphQL operation; GraphQL errors become a ServiceError with FreePBX's message. */
  async gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const token = await this.accessToken();
    const res = await httpRequest({
      service: SERVICE,
      method: "POST",
      url: `${this.base}/admin/api/api/gql`,
      headers: { Authorization: `Bearer ${token}` },
      body: { query, variables: variables ?? {} },
      signal: this.signal,
      secrets: [this.clientSecret, token],
      errorMessage: (b) =>
        isObject(b) && Array.isArray(b.errors)
          ? b.errors.map((e) => (isObject(e) ? String(e.message) : String(e))).join("; ")
          : undefined,
    }).catch((err) => {
      if (err instanceof ServiceError && err.status === 401) this.token = null;
      throw err;
    });
    const body = expectJson<{ data?: T; errors?: { message: string }[] }>(SERVICE, res, isObject);
    if (body.errors?.length)
      throw new ServiceError(SERVICE, `FreePBX: ${body.errors.map((e) => e.message).join("; ")}`);
    if (!body.data) throw new ServiceError(SERVICE, "FreePBX sent no data");
    return body.data;
  }

  /** Test Connection: a token, then a small read. */
  async ping(): Promise<number> {
    const data = await this.gql<{
      fetchAllExtensions: { status: boolean; message: string; totalCount: number } | null;
    }>("query { fetchAllExtensions { status message totalCount } }");
    return data.fetchAllExtensions?.totalCount ?? 0;
  }
}

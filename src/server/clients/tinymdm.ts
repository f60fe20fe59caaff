import { expectJson, httpRequest, isObject } from "./http";

const SERVICE = "TinyMDM";

/** TinyMDM API: account API keys as two plain headers. */
export class TinyMdmClient {
  constructor(
    private readonly baseUrl: string,
    private readonly publicKey: string,
    private readonly secretKey: string,
    /** The operation's overall deadline (`deadline()` in ./http). */
    private readonly signal?: AbortSignal,
  ) {}

  async countDevices(): Promise<number> {
    const res = await httpRequest({
      service: SERVICE,
      url: `${this.baseUrl}/devices?per_page=1`,
      headers: { "X-Tinymdm-Apikey-Public": this.publicKey, "X-Tinymdm-Apikey-Secret": this.secretKey },
      signal: this.signal,
      secrets: [this.secretKey],
      errorMessage: (b) => (isObject(b) && typeof b.error === "string" ? b.error : undefined),
    });
    const body = expectJson<{ count: number }>(SERVICE, res, (v) => isObject(v) && typeof v.count === "number");
    return body.count;
  }
}

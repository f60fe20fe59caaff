import { expectJson, httpRequest, isObject } from "./http";

const SERVICE = "OpenAI";

export const openAiErrorMessage = (b: unknown) =>
  isObject(b) && isObject(b.error) && typeof b.error.message === "string" ? b.error.message : undefined;

/** OpenAI REST (services.md §4): Bearer key. Call control joins it with the AI work. */
export class OpenAiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async listModels(): Promise<string[]> {
    const res = await httpRequest({
      service: SERVICE,
      url: `${this.baseUrl}/models`,
      headers: { Authorization: `Bearer ${this.apiKey}` },
      secrets: [this.apiKey],
      errorMessage: openAiErrorMessage,
    });
    const body = expectJson<{ data: { id: string }[] }>(SERVICE, res, (v) => isObject(v) && Array.isArray(v.data));
    return body.data.map((m) => m.id);
  }
}

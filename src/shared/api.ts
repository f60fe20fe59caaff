/** Wire types shared by the server and the web app. Browser-safe: no bun:* imports. */

/** The one error shape every /api response uses on failure. */
export interface ApiErrorBody {
  error: {
    message: string;
    /** Field name → message, for validation errors shown under form fields. */
    fields?: Record<string, string>;
  };
}

export interface ServerInfo {
  version: string;
  serverLabel: string;
  serverAddress: string;
}

/**
 * The scrape token of GET /metrics (ADR 0066): METRICS_TOKEN from the environment, or one made in the UI
 * (shown once, kept hashed). Wire types of /api/settings/metrics-token, shared by server and web.
 */

/** GET /api/settings/metrics-token: what is configured, never a token. */
export interface MetricsTokenView {
  /** METRICS_TOKEN is set (it works beside a UI token; only the environment can change it). */
  fromEnvironment: boolean;
  /** The UI-made token, or null: its first and last characters, and when it was made and by whom. */
  token: { prefix: string; last4: string; createdAt: string; createdBy: string } | null;
}

/** POST /api/settings/metrics-token: the new token, in this answer only. */
export interface CreatedMetricsToken extends MetricsTokenView {
  secret: string;
}

/** What a UI-made token starts with (so a leaked one is recognisable in logs and secret scanners). */
export const METRICS_TOKEN_PREFIX = "pbxm_";

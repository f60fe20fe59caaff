/**
 * GET /metrics in Prometheus' text format (ADR 0066), through prom-client.
 *
 * Two halves. The request counts and latencies are kept by `RequestMetrics` on the hot path: a map per
 * route template and method, a few array increments per request, no prom-client. prom-client (tens of
 * milliseconds to load, more than the console's whole start-up budget for one feature) is loaded at the
 * first scrape, with its registry: the request series are handed to it then, as a counter and as a
 * histogram object that answers prom-client's `get()` from the kept buckets; the console's state (jobs,
 * AMI, registrations, alerts, backups: `collect.ts`) is set on gauges at each scrape; and the process
 * metrics prom-client collects by default, less those that mean nothing under Bun (V8's heap spaces and
 * handle counts are zeros under JavaScriptCore; `process_heap_bytes` reads the virtual size).
 */
import type { Counter, Gauge, Metric, Registry } from "prom-client";
import { type CollectDeps, collectSnapshot, type MetricsSnapshot } from "./collect";
import { authorizeScrape, ScrapeThrottle } from "./token";

/** Latency buckets in seconds: prom-client's defaults (5 ms … 10 s), the range a console request spans. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** The route label of a request no route matched (404/405): never the raw path, which has no bound. */
export const UNMATCHED_ROUTE = "unmatched";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;

interface Series {
  method: string;
  route: string;
  /** Requests per status class (index: hundreds − 1). */
  byStatus: number[];
  /** Requests per latency bucket (not cumulative), the last one above 10 s. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * Request counts and latencies by route template and method. Bounded: the route is a template of the
 * route table (or `unmatched`) and the method one of seven, so there are at most routes × methods series.
 */
export class RequestMetrics {
  /** Route template → method → series (no key string built per request). */
  private readonly series = new Map<string, Map<string, Series>>();

  /** One answered /api request: its route template (or `UNMATCHED_ROUTE`), status and duration in ms. */
  record(method: string, route: string, status: number, ms: number): void {
    const m = METHODS.has(method) ? method : "OTHER";
    let byMethod = this.series.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.series.set(route, byMethod);
    }
    let s = byMethod.get(m);
    if (!s) {
      s = {
        method: m,
        route,
        byStatus: [0, 0, 0, 0, 0],
        buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byMethod.set(m, s);
    }
    const cls = Math.min(4, Math.max(0, Math.floor(status / 100) - 1));
    s.byStatus[cls] = (s.byStatus[cls] as number) + 1;
    const seconds = ms / 1000;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[i] as number)) i++;
    s.buckets[i] = (s.buckets[i] as number) + 1;
    s.sum += seconds;
    s.count++;
  }

  all(): readonly Series[] {
    return [...this.series.values()].flatMap((byMethod) => [...byMethod.values()]);
  }
}

type GaugeName =
  | "info"
  | "jobs"
  | "jobsRunning"
  | "deploys"
  | "deployLastSuccess"
  | "amiUp"
  | "extensions"
  | "extensionsRegistered"
  | "trunks"
  | "trunksRegistering"
  | "trunksRegistered"
  | "activeCalls"
  | "alertsFiring"
  | "backupAge";

/** Default metrics that read nothing real under Bun (see the module comment). */
const MEANINGLESS_UNDER_BUN = [
  "process_heap_bytes",
  "nodejs_heap_space_size_total_bytes",
  "nodejs_heap_space_size_used_bytes",
  "nodejs_heap_space_size_available_bytes",
  "nodejs_active_resources",
  "nodejs_active_resources_total",
  "nodejs_active_handles",
  "nodejs_active_handles_total",
  "nodejs_active_requests",
  "nodejs_active_requests_total",
  "nodejs_version_info",
];

interface Built {
  registry: Registry;
  contentType: string;
  requests: Counter<"method" | "route" | "status">;
  gauges: Record<GaugeName, Gauge<string>>;
}

/** The scrape's registry, built at the first scrape; one per app (tests run several in one process). */
export class MetricsRegistry {
  readonly requests = new RequestMetrics();
  /** Failed scrapes per address (token.ts). */
  readonly throttle = new ScrapeThrottle();
  private built: Promise<Built> | null = null;

  /** The exposition text and its content type, with the gauges set from `snapshot`. */
  async render(snapshot: MetricsSnapshot): Promise<{ text: string; contentType: string }> {
    this.built ??= this.build();
    const b = await this.built;
    setGauges(b.gauges, snapshot);
    b.requests.reset();
    for (const s of this.requests.all()) {
      s.byStatus.forEach((n, i) => {
        if (n > 0) b.requests.inc({ method: s.method, route: s.route, status: STATUS_CLASSES[i] as string }, n);
      });
    }
    return { text: await b.registry.metrics(), contentType: b.contentType };
  }

  private async build(): Promise<Built> {
    const prom = await import("prom-client");
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry });
    for (const name of MEANINGLESS_UNDER_BUN) registry.removeSingleMetric(name);
    const registers = [registry];
    const gauge = (name: string, help: string, labelNames: string[] = []) =>
      new prom.Gauge({ name, help, labelNames, registers });
    const requests = new prom.Counter({
      name: "pbx_console_http_requests_total",
      help: "API requests answered, by method, route template and status class",
      labelNames: ["method", "route", "status"] as const,
      registers,
    });
    registry.registerMetric(requestHistogram(this.requests) as unknown as Metric);
    const gauges: Record<GaugeName, Gauge<string>> = {
      info: gauge("pbx_console_info", "The console's version (always 1)", ["version"]),
      jobs: gauge("pbx_console_jobs", "Jobs kept in the history, by kind and state", ["kind", "state"]),
      jobsRunning: gauge("pbx_console_jobs_running", "Jobs running now"),
      deploys: gauge("pbx_console_deploys", "Deployments (deploy jobs) kept in the history, by state", ["state"]),
      deployLastSuccess: gauge(
        "pbx_console_deploy_last_success_timestamp_seconds",
        "When the last successful deployment finished, in seconds since the epoch (0: none yet)",
      ),
      amiUp: gauge("pbx_console_ami_up", "1 while the console is logged in to Asterisk's manager interface"),
      extensions: gauge("pbx_console_extensions", "Extensions (PJSIP endpoints) the PBX reports"),
      extensionsRegistered: gauge("pbx_console_extensions_registered", "Extensions with a registered contact"),
      trunks: gauge("pbx_console_trunks", "Trunks the PBX reports"),
      trunksRegistering: gauge(
        "pbx_console_trunks_registering",
        "Trunks with an outbound registration (IP-authenticated trunks have none)",
      ),
      trunksRegistered: gauge("pbx_console_trunks_registered", "Trunks whose outbound registration is registered"),
      activeCalls: gauge("pbx_console_active_calls", "Calls in progress"),
      alertsFiring: gauge("pbx_console_alerts_firing", "Alerts firing now"),
      backupAge: gauge(
        "pbx_console_backup_age_seconds",
        "Seconds since the newest backup: local (a file in DATA_DIR/backups) or offsite (the last upload that succeeded); absent: none",
        ["where"],
      ),
    };
    return { registry, contentType: prom.Registry.PROMETHEUS_CONTENT_TYPE, requests, gauges };
  }
}

function setGauges(g: Record<GaugeName, Gauge<string>>, s: MetricsSnapshot): void {
  for (const gauge of Object.values(g)) gauge.reset();
  g.info.set({ version: s.version }, 1);
  for (const j of s.jobs) g.jobs.set({ kind: j.kind, state: j.state }, j.count);
  g.jobsRunning.set(s.jobsRunning);
  for (const d of s.deploys) g.deploys.set({ state: d.state }, d.count);
  if (s.deployLastSuccess !== null) g.deployLastSuccess.set(s.deployLastSuccess);
  g.amiUp.set(s.amiUp ? 1 : 0);
  g.extensions.set(s.extensions.total);
  g.extensionsRegistered.set(s.extensions.registered);
  g.trunks.set(s.trunks.total);
  g.trunksRegistering.set(s.trunks.registering);
  g.trunksRegistered.set(s.trunks.registered);
  g.activeCalls.set(s.activeCalls);
  g.alertsFiring.set(s.alertsFiring);
  if (s.backupAge.local !== null) g.backupAge.set({ where: "local" }, s.backupAge.local);
  if (s.backupAge.offsite !== null) g.backupAge.set({ where: "offsite" }, s.backupAge.offsite);
}

/**
 * The latency histogram as prom-client's registry reads a metric (`get()`: name, help, type and values, the
 * bucket lines cumulative with `le`, then `_sum` and `_count`), from the buckets `RequestMetrics` keeps.
 */
function requestHistogram(requests: RequestMetrics) {
  const name = "pbx_console_http_request_duration_seconds";
  const help = "API request latency until the answer's headers, by method and route template";
  const get = async () => {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of requests.all()) {
      const labels = { method: s.method, route: s.route };
      let acc = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        acc += s.buckets[i] as number;
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: acc });
      });
      values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: "+Inf" }, value: s.count });
      values.push({ metricName: `${name}_sum`, labels, value: s.sum });
      values.push({ metricName: `${name}_count`, labels, value: s.count });
    }
    return { name, help, type: "histogram", values, aggregator: "sum" };
  };
  return { name, help, type: "histogram", aggregator: "sum", get, reset: () => {} };
}

/**
 * GET /metrics: the scrape's token checked (404 when metrics are off, 429 while the address is throttled,
 * 401 without the right token), then the exposition text with the state read now.
 */
export async function scrapeMetrics(
  app: CollectDeps & { metrics: MetricsRegistry },
  authorization: string | null,
  ip: string | null,
): Promise<{ text: string; contentType: string }> {
  authorizeScrape(app, app.metrics.throttle, authorization, ip, app.now());
  return app.metrics.render(collectSnapshot(app));
}

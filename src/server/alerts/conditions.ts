/**
 * What each alert rule kind watches (ADR 0063): per kind an evaluator that answers the subjects in that
 * condition now (`trunk:telnyx`, `extension:2501`, `disk`), each with its message and, when the source knows it,
 * since when. An answer of null means "not known now" (the manager interface is not connected, so no extension's
 * registration is known): the engine then neither fires nor resolves that rule's alerts.
 *
 * The sources are what the console already keeps: the live monitor's views (registrations, the manager
 * connection, failed SIP sign-ins), the call records source's status, this host's metrics, the audit trail
 * (console sign-ins, the scheduled backup), the off-site copies and the test calls' results in the database,
 * and the TLS certificate file. Slow reads are made once per engine pass (`Readings`).
 */
import { readFileSync, statSync } from "node:fs";
import { and, desc, eq, gte } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, extensions as extensionsTable } from "../../db/schema";
import type { AlertKind, AlertParams, AlertRuleInput } from "../../shared/alerts";
import type { CdrSourceStatus, PbxLiveStatus, PbxSecurity } from "../../shared/live";
import type { Config } from "../config";
import type { HostMetrics } from "../integrations/host-metrics";
import { nodeCrypto } from "../lazy-node";

/** One subject in a rule's condition. */
export interface AlertCondition {
  /** Stable while the condition lasts: `trunk:telnyx`, `extension:2501`, `disk`. */
  subject: string;
  /** The condition in words: "Trunk telnyx is rejected". */
  message: string;
  /** When the condition began, when the source knows (ms); else the engine counts from when it first saw it. */
  since?: number;
}

/** The subjects in the condition now, or null when that cannot be known now. */
export type Evaluation = AlertCondition[] | null;

/** What the evaluators read (the app satisfies it; a test hands in its own). */
export interface AlertSources {
  db: Db;
  now: () => number;
  config: Pick<Config, "tls">;
  live: {
    status(): PbxLiveStatus;
    security(): PbxSecurity;
    sipFailuresWithin(minutes: number): number;
  };
  cdr: { status(): Promise<CdrSourceStatus> };
  hostMetrics: { read(): Promise<HostMetrics> };
}

/** How long the call records database's answer is reused between passes (its check is a query). */
export const CDR_CHECK_MS = 15_000;
/** Trunk registrations that mean "down" (`unknown` is not known; `not-registering` is an IP trunk). */
const TRUNK_DOWN = new Set(["unregistered", "rejected", "failed"]);

/**
 * The slow reads of one engine pass, each made at most once however many rules need it; the call records
 * check and the certificate are kept across passes (`ReadingCache`).
 */
export class Readings {
  private metrics: Promise<HostMetrics> | null = null;

  constructor(
    readonly sources: AlertSources,
    private readonly cache: ReadingCache,
  ) {}

  status(): PbxLiveStatus {
    return this.sources.live.status();
  }

  hostMetrics(): Promise<HostMetrics> {
    this.metrics ??= this.sources.hostMetrics.read();
    return this.metrics;
  }

  cdrStatus(): Promise<CdrSourceStatus> {
    const now = this.sources.now();
    const kept = this.cache.cdr;
    if (kept && now - kept.at < CDR_CHECK_MS) return kept.answer;
    const answer = this.sources.cdr.status();
    this.cache.cdr = { at: now, answer };
    // A check that failed outright is not kept.
    answer.catch(() => {
      if (this.cache.cdr?.answer === answer) this.cache.cdr = null;
    });
    return answer;
  }

  /** The certificate's end and name, read again when the file changes. */
  certificate(path: string): { validTo: number; name: string } {
    const stat = statSync(path);
    const key = `${path}:${stat.mtimeMs}:${stat.size}`;
    if (this.cache.cert?.key === key) return this.cache.cert.value;
    const cert = new (nodeCrypto().X509Certificate)(readFileSync(path));
    const cn = /CN=([^\n,]+)/.exec(cert.subject)?.[1]?.trim();
    const value = { validTo: Date.parse(cert.validTo), name: cn ?? cert.subject.split("\n")[0] ?? "" };
    this.cache.cert = { key, value };
    return value;
  }
}

/** What `Readings` keep from one pass to the next. */
export interface ReadingCache {
  cdr: { at: number; answer: Promise<CdrSourceStatus> } | null;
  cert: { key: string; value: { validTo: number; name: string } } | null;
}

export const newReadingCache = (): ReadingCache => ({ cdr: null, cert: null });

type Evaluator<K extends AlertKind> = (params: AlertParams<K>, r: Readings) => Evaluation | Promise<Evaluation>;

const sentence = (s: string) => s.trim().replace(/\.$/, "");
const DAY_MS = 86_400_000;

/** The live status when the manager interface is connected, else null (registrations are not known). */
function liveStatus(r: Readings): PbxLiveStatus | null {
  const status = r.status();
  return status.connected ? status : null;
}

/** The earliest row time in a streak: the first failure after the last success (ms), from rows newest first. */
function streakStart(rows: { ok: boolean; at: number }[]): number | undefined {
  let since: number | undefined;
  for (const row of rows) {
    if (row.ok) break;
    since = row.at;
  }
  return since;
}

const EVALUATORS: { [K in AlertKind]: Evaluator<K> } = {
  "trunk-unregistered": (p, r) => {
    const status = liveStatus(r);
    if (!status) return null;
    if (p.trunk !== null) {
      const trunk = status.trunks.find((t) => t.name === p.trunk);
      if (!trunk) return [{ subject: `trunk:${p.trunk}`, message: `Trunk ${p.trunk} is not on the PBX` }];
      return TRUNK_DOWN.has(trunk.registration)
        ? [{ subject: `trunk:${trunk.name}`, message: `Trunk ${trunk.name} is ${trunk.registration}` }]
        : [];
    }
    return status.trunks
      .filter((t) => TRUNK_DOWN.has(t.registration))
      .map((t) => ({ subject: `trunk:${t.name}`, message: `Trunk ${t.name} is ${t.registration}` }));
  },

  "extension-offline": (p, r) => {
    const status = liveStatus(r);
    if (!status) return null;
    const live = new Map(status.extensions.map((e) => [e.extension, e]));
    const offline = (n: string) => ({ subject: `extension:${n}`, message: `Extension ${n} has no registered phone` });
    if (p.extension !== null) {
      const e = live.get(p.extension);
      if (!e) return [{ subject: `extension:${p.extension}`, message: `Extension ${p.extension} is not on the PBX` }];
      return e.registered ? [] : [offline(e.extension)];
    }
    // The console's extensions that the PBX has (one not deployed yet is not offline).
    const mine = r.sources.db
      .select({ n: extensionsTable.extension })
      .from(extensionsTable)
      .all()
      .map((x) => x.n);
    return mine.filter((n) => live.get(n)?.registered === false).map(offline);
  },

  "ami-unreachable": (_p, r) => {
    const status = r.status();
    // Nowhere to connect to: nothing is unreachable (API Settings say so).
    if (status.source === "none" || status.connected) return [];
    return [
      {
        subject: "ami",
        message: `The manager interface is not connected: ${sentence(status.reason ?? "not connected")}`,
        since: Date.parse(status.since),
      },
    ];
  },

  "cdr-unreachable": async (_p, r) => {
    const status = await r.cdrStatus();
    if (status.source === "none" || status.available) return [];
    return [{ subject: "cdr", message: `The call records database does not answer: ${sentence(status.reason ?? "")}` }];
  },

  "disk-usage": async (p, r) => {
    const m = await r.hostMetrics();
    return m.disk >= p.percent
      ? [{ subject: "disk", message: `The disk is ${m.disk}% full (the rule's limit is ${p.percent}%)` }]
      : [];
  },

  "memory-usage": async (p, r) => {
    const m = await r.hostMetrics();
    return m.memory >= p.percent
      ? [{ subject: "memory", message: `Memory is ${m.memory}% used (the rule's limit is ${p.percent}%)` }]
      : [];
  },

  "backup-failed": (_p, r) => {
    const db = r.sources.db;
    const out: AlertCondition[] = [];
    // The scheduled console backup records its outcome in the audit trail.
    const runs = db
      .select({ outcome: auditLog.outcome, at: auditLog.at, detail: auditLog.detail })
      .from(auditLog)
      .where(eq(auditLog.action, "backup.scheduled"))
      .orderBy(desc(auditLog.id))
      .limit(50)
      .all();
    const last = runs[0];
    if (last && last.outcome !== "ok") {
      out.push({
        subject: "backup:console",
        message: `The scheduled console backup failed: ${sentence(last.detail ?? "no reason recorded")}`,
        since: streakStart(runs.map((x) => ({ ok: x.outcome === "ok", at: x.at.getTime() }))),
      });
    }
    // Each enabled off-site target's last finished copy of each source, when it failed, and since when.
    const failed = db.$client
      .query<{ id: number; name: string; source: string; error: string | null; since: number | null }, []>(
        `SELECT t.id, t.name, u.source, u.error,
                (SELECT MIN(COALESCE(x.finished_at, x.started_at)) FROM backup_uploads x
                  WHERE x.target_id = u.target_id AND x.source = u.source AND x.state = 'failed'
                    AND x.id > COALESCE((SELECT MAX(y.id) FROM backup_uploads y
                                          WHERE y.target_id = u.target_id AND y.source = u.source AND y.state = 'ok'), 0)
                ) AS since
           FROM backup_uploads u JOIN backup_targets t ON t.id = u.target_id
          WHERE u.id IN (SELECT MAX(id) FROM backup_uploads WHERE state IN ('ok', 'failed') GROUP BY target_id, source)
            AND u.state = 'failed' AND t.enabled = 1`,
      )
      .all();
    for (const u of failed) {
      out.push({
        subject: `backup-target:${u.id}:${u.source}`,
        message: `The ${u.source === "pbx" ? "PBX" : "console"} backup copy to ${u.name} failed: ${sentence(u.error ?? "no reason recorded")}`,
        since: u.since ?? undefined,
      });
    }
    return out;
  },

  "certificate-expiring": (p, r) => {
    const tls = r.sources.config.tls;
    if (!tls) return [];
    let cert: { validTo: number; name: string };
    try {
      cert = r.certificate(tls.cert);
    } catch (err) {
      return [
        {
          subject: "certificate:console",
          message: `The console's TLS certificate (${tls.cert}) cannot be read: ${sentence((err as Error).message)}`,
        },
      ];
    }
    const now = r.sources.now();
    const left = cert.validTo - now;
    if (left > p.days * DAY_MS) return [];
    const day = new Date(cert.validTo).toISOString().slice(0, 10);
    const message =
      left <= 0
        ? `The console's TLS certificate for ${cert.name} expired on ${day}`
        : `The console's TLS certificate for ${cert.name} expires on ${day} (in ${Math.ceil(left / DAY_MS)} days)`;
    return [{ subject: "certificate:console", message }];
  },

  "failed-sign-ins": (p, r) => {
    const from = new Date(r.sources.now() - p.minutes * 60_000);
    const rows = r.sources.db
      .select({ at: auditLog.at, ip: auditLog.clientIp })
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.login"), eq(auditLog.outcome, "failed"), gte(auditLog.at, from)))
      .all();
    if (rows.length < p.count) return [];
    const byAddress = new Map<string, number>();
    for (const x of rows) byAddress.set(x.ip ?? "unknown", (byAddress.get(x.ip ?? "unknown") ?? 0) + 1);
    const top = [...byAddress]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([ip, n]) => `${ip} ×${n}`)
      .join(", ");
    return [
      {
        subject: "sign-ins:console",
        message: `${rows.length} failed sign-ins to the console in the last ${p.minutes} min (from ${top})`,
        since: Math.min(...rows.map((x) => x.at.getTime())),
      },
    ];
  },

  "sip-attack": (p, r) => {
    const n = r.sources.live.sipFailuresWithin(p.minutes);
    if (n < p.count) return [];
    const top = r.sources.live
      .security()
      .lastHour.sources.slice(0, 3)
      .map((s) => `${s.address} ×${s.failures}`)
      .join(", ");
    return [
      {
        subject: "sip:failed-sign-ins",
        message: `${n} failed SIP sign-ins on the PBX in the last ${p.minutes} min${top ? ` (this hour most from ${top})` : ""}`,
      },
    ];
  },

  "test-call-failed": (p, r) => {
    // Each enabled test call whose latest run failed, and the first failure since its last success.
    const failed = r.sources.db.$client
      .query<{ id: number; name: string; error: string | null; since: number | null }, []>(
        `SELECT c.id, c.name, res.error,
                (SELECT MIN(x.at) FROM test_call_results x
                  WHERE x.test_call_id = c.id
                    AND x.id > COALESCE((SELECT MAX(y.id) FROM test_call_results y
                                          WHERE y.test_call_id = c.id AND y.ok = 1), 0)
                ) AS since
           FROM test_call_results res JOIN test_calls c ON c.id = res.test_call_id
          WHERE res.id IN (SELECT MAX(id) FROM test_call_results GROUP BY test_call_id)
            AND res.ok = 0 AND c.enabled = 1`,
      )
      .all();
    return failed
      .filter((c) => p.testCallId === null || c.id === p.testCallId)
      .map((c) => ({
        subject: `test-call:${c.id}`,
        message: `Test call ${c.name} failed: ${sentence(c.error ?? "it was not answered")}`,
        since: c.since ?? undefined,
      }));
  },
};

/** The subjects in a rule's condition now (null: not known now). */
export function evaluateRule(rule: AlertRuleInput, readings: Readings): Evaluation | Promise<Evaluation> {
  const evaluate = EVALUATORS[rule.kind] as Evaluator<AlertKind>;
  return evaluate(rule.params as AlertParams, readings);
}

/**
 * The alerts' history (ADR 0063): every alert from firing to resolved with the messages sent for it, newest first
 * by a keyset cursor, and its retention: resolved alerts (and test messages) older than `ALERT_HISTORY_DAYS` are
 * deleted, their deliveries with them.
 */
import { and, desc, eq, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import { alertChannels, alertDeliveries, alertEvents } from "../../db/schema";
import {
  ALERT_HISTORY_DAYS,
  type AlertDelivery,
  type AlertEvent,
  type AlertEventsPage,
  type AlertEventsQuery,
} from "../../shared/alerts";
import type { Deps } from "../core/deps";

export const ALERT_EVENTS_PAGE = 50;
/** Deliveries shown per alert (the newest). */
const DELIVERIES_SHOWN = 20;
const DAY_MS = 86_400_000;

type EventRow = typeof alertEvents.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** How many alerts fire now. */
export function firingCount(deps: Pick<Deps, "db">): number {
  return (
    deps.db.select({ n: sql<number>`count(*)` }).from(alertEvents).where(eq(alertEvents.state, "firing")).get()?.n ?? 0
  );
}

function deliveriesOf(deps: Pick<Deps, "db">, ids: number[]): Map<number, AlertDelivery[]> {
  const out = new Map<number, AlertDelivery[]>();
  if (ids.length === 0) return out;
  const rows = deps.db
    .select({
      eventId: alertDeliveries.eventId,
      channelId: alertDeliveries.channelId,
      channelName: alertChannels.name,
      what: alertDeliveries.what,
      at: alertDeliveries.at,
      ok: alertDeliveries.ok,
      error: alertDeliveries.error,
    })
    .from(alertDeliveries)
    .leftJoin(alertChannels, eq(alertChannels.id, alertDeliveries.channelId))
    .where(inArray(alertDeliveries.eventId, ids))
    .orderBy(desc(alertDeliveries.id))
    .all();
  for (const r of rows) {
    if (r.eventId === null) continue;
    const list = out.get(r.eventId) ?? [];
    if (list.length >= DELIVERIES_SHOWN) continue;
    list.push({
      channelId: r.channelId,
      channelName: r.channelName ?? null,
      what: r.what,
      at: r.at.toISOString(),
      ok: r.ok,
      error: r.error,
    });
    out.set(r.eventId, list);
  }
  return out;
}

function toEvent(row: EventRow, deliveries: AlertDelivery[]): AlertEvent {
  return {
    id: row.id,
    ruleId: row.ruleId,
    ruleName: row.ruleName,
    kind: row.kind,
    subject: row.subject,
    message: row.message,
    state: row.state,
    startedAt: row.startedAt.toISOString(),
    resolvedAt: iso(row.resolvedAt),
    lastNotifiedAt: iso(row.lastNotifiedAt),
    notifications: row.notifications,
    deliveries,
  };
}

/** GET /api/alerts/events: newest first, filtered by state, rule and kind, a page at a time. */
export function listAlertEvents(deps: Pick<Deps, "db">, query: AlertEventsQuery): AlertEventsPage {
  const limit = query.limit ?? ALERT_EVENTS_PAGE;
  const where: SQL[] = [];
  if (query.state) where.push(eq(alertEvents.state, query.state));
  if (query.ruleId !== undefined) where.push(eq(alertEvents.ruleId, query.ruleId));
  if (query.kind) where.push(eq(alertEvents.kind, query.kind));
  if (query.cursor) where.push(lt(alertEvents.id, Number(query.cursor)));
  const rows = deps.db
    .select()
    .from(alertEvents)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(alertEvents.id))
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit);
  const deliveries = deliveriesOf(
    deps,
    page.map((r) => r.id),
  );
  return {
    items: page.map((r) => toEvent(r, deliveries.get(r.id) ?? [])),
    nextCursor: rows.length > limit ? String(page[page.length - 1]?.id) : null,
    firing: firingCount(deps),
  };
}

/** Deletes resolved alerts and test messages older than the retention; the number of alerts deleted. */
export function pruneAlertHistory(deps: Pick<Deps, "db" | "now">, days = ALERT_HISTORY_DAYS): number {
  const cutoff = new Date(deps.now() - days * DAY_MS);
  const gone = deps.db
    .delete(alertEvents)
    .where(and(eq(alertEvents.state, "resolved"), lt(alertEvents.resolvedAt, cutoff)))
    .returning({ id: alertEvents.id })
    .all().length;
  deps.db
    .delete(alertDeliveries)
    .where(and(isNull(alertDeliveries.eventId), lt(alertDeliveries.at, cutoff)))
    .run();
  return gone;
}

/**
 * The alerts firing now and the history: each alert with its state, what it is about, when it began, how long
 * it lasted (counting up while it fires) and the messages sent for it. The socket's alerts-updated refetches
 * both, so a new alert appears without a reload.
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { BellRing, CircleCheck, History } from "lucide-react";
import { useState } from "react";
import { SelectField } from "@/components/form-fields";
import { LoadMoreFooter } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { useNow } from "@/hooks/use-now";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import type { AlertDelivery, AlertEvent, AlertState } from "../../../shared/alerts";
import { alertHistoryQuery, firingAlertsQuery } from "./api";
import { durationText, kindLabel } from "./format";

export function StateBadge({ state }: { state: AlertState }) {
  return state === "firing" ? (
    <Badge variant="destructive" data-state="firing">
      <BellRing aria-hidden />
      Firing
    </Badge>
  ) : (
    <Badge variant="success" data-state="resolved">
      <CircleCheck aria-hidden />
      Resolved
    </Badge>
  );
}

const WHAT: Record<AlertDelivery["what"], string> = {
  firing: "alert",
  repeat: "repeat",
  resolved: "resolved",
  test: "test",
};

/** The messages sent for an alert: a count, and each one's channel and outcome. */
function Deliveries({ event }: { event: AlertEvent }) {
  const list = event.deliveries;
  if (list.length === 0) {
    return <span className="text-muted-foreground">{event.notifications > 0 ? "Sending…" : "None"}</span>;
  }
  const failed = list.filter((d) => !d.ok).length;
  return (
    <details>
      <summary className="cursor-pointer">
        {list.length} sent{failed > 0 && <span className="text-destructive">, {failed} failed</span>}
      </summary>
      <ul className="mt-1 grid gap-0.5 text-xs" aria-label={`Messages for ${event.message}`}>
        {list.map((d, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a delivery list is fixed once sent; the index keeps keys unique
          <li key={`${d.at}-${i}`}>
            {formatDateTime(d.at)} · {WHAT[d.what]} to {d.channelName ?? "a deleted channel"}:{" "}
            {d.ok ? (
              "delivered"
            ) : (
              <span className="break-words text-destructive">failed{d.error ? ` (${d.error})` : ""}</span>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

function AlertsTable({ events, label, now }: { events: AlertEvent[]; label: string; now: number }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm" aria-label={label}>
        <thead className="text-left text-muted-foreground text-xs">
          <tr>
            <th className="px-3 py-2 font-medium">State</th>
            <th className="px-3 py-2 font-medium">Alert</th>
            <th className="px-3 py-2 font-medium">Began</th>
            <th className="px-3 py-2 font-medium">Lasted</th>
            <th className="px-3 py-2 font-medium">Messages</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => {
            const end = e.resolvedAt ? Date.parse(e.resolvedAt) : now;
            return (
              <tr key={e.id} className="border-t align-top" data-alert={e.subject} data-alert-state={e.state}>
                <td className="px-3 py-2">
                  <StateBadge state={e.state} />
                </td>
                <td className="min-w-56 px-3 py-2">
                  <span className="grid">
                    <span className="break-words">{e.message}</span>
                    <span className="text-muted-foreground text-xs">
                      {e.ruleName} · {kindLabel(e.kind)}
                    </span>
                  </span>
                </td>
                <td className="whitespace-nowrap px-3 py-2">
                  <time dateTime={e.startedAt}>{formatDateTime(e.startedAt)}</time>
                </td>
                <td className="whitespace-nowrap px-3 py-2">
                  {durationText(end - Date.parse(e.startedAt))}
                  {e.state === "firing" && <span className="text-muted-foreground"> so far</span>}
                </td>
                <td className="min-w-32 px-3 py-2">
                  <Deliveries event={e} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function FiringAlertsCard() {
  const firing = useQuery(firingAlertsQuery());
  const items = firing.data?.items ?? [];
  const now = useNow(items.length > 0);
  return (
    <Card className="gap-4" role="region" aria-labelledby="alerts-firing-title">
      <CardHeader>
        <CardTitle id="alerts-firing-title" className="flex items-center gap-2">
          <BellRing className="size-4 text-muted-foreground" aria-hidden />
          Firing now
          {items.length > 0 && (
            <Badge variant="destructive" data-testid="firing-count">
              {firing.data?.firing}
            </Badge>
          )}
        </CardTitle>
        <CardDescription>Alerts whose condition lasts right now.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {firing.isError && <FormError message={`Could not load the firing alerts: ${errorText(firing.error)}`} />}
        {items.length > 0 ? (
          <AlertsTable events={items} label="Alerts firing now" now={now} />
        ) : firing.data ? (
          <p className="text-muted-foreground text-sm" role="status">
            Nothing is firing.
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}

const STATE_FILTERS = [
  { value: "all", label: "All alerts" },
  { value: "firing", label: "Firing" },
  { value: "resolved", label: "Resolved" },
];

export function AlertHistoryCard() {
  const [state, setState] = useState<AlertState | null>(null);
  const history = useInfiniteQuery(alertHistoryQuery(state));
  const events = history.data?.pages.flatMap((p) => p.items) ?? [];
  const now = useNow(events.some((e) => e.state === "firing"));
  return (
    <Card className="gap-4" role="region" aria-labelledby="alerts-history-title">
      <CardHeader className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle id="alerts-history-title" className="flex items-center gap-2">
            <History className="size-4 text-muted-foreground" aria-hidden />
            History
          </CardTitle>
          <CardDescription>Every alert from firing to resolved, kept 90 days.</CardDescription>
        </div>
        <SelectField
          label="Show"
          className="w-40"
          value={state ?? "all"}
          onValueChange={(v) => setState(v === "all" ? null : (v as AlertState))}
          options={STATE_FILTERS}
        />
      </CardHeader>
      <CardContent className="grid gap-4">
        {history.isError && !history.data && (
          <FormError message={`Could not load the history: ${errorText(history.error)}`} />
        )}
        {events.length > 0 ? (
          <>
            <AlertsTable events={events} label="Alert history" now={now} />
            <LoadMoreFooter
              shown={events.length}
              noun={["alert", "alerts"]}
              hasMore={history.hasNextPage}
              loadingMore={history.isFetchingNextPage}
              onLoadMore={() => void history.fetchNextPage()}
              error={history.isFetchNextPageError ? history.error : null}
              testId="alert-history-count"
            />
          </>
        ) : history.data ? (
          <p className="text-muted-foreground text-sm">No alerts{state ? ` ${state}` : ""} yet.</p>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** The addresses that failed to sign in over SIP in the last day, most failures first. */
import { TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { formatDateTime, formatNumber } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { PbxSecurity, SecuritySource } from "../../../shared/live";

/** Accounts listed in a row; the rest are counted. */
const ACCOUNTS_SHOWN = 4;

function Accounts({ source }: { source: SecuritySource }) {
  const shown = source.accounts.slice(0, ACCOUNTS_SHOWN);
  const more = source.accounts.length - shown.length;
  if (shown.length === 0) return <span className="text-muted-foreground">—</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {shown.map((a) => (
        <span
          key={a.account}
          className="rounded bg-muted px-1.5 py-0.5 font-mono text-xs"
          title={`${a.failures} failures`}
        >
          {a.account} <span className="text-muted-foreground">×{a.failures}</span>
        </span>
      ))}
      {more > 0 && <span className="text-muted-foreground text-xs">+{more} more</span>}
    </span>
  );
}

const HEADERS = ["Address", "Last hour", "Last day", "Accounts tried", "Last seen"] as const;

/** `action`: the firewall's control for an address (Ban, Unban…), in a last column when given. */
export function SourcesTable({ security, action }: { security: PbxSecurity; action?: (address: string) => ReactNode }) {
  const headers = action ? [...HEADERS, "Firewall"] : HEADERS;
  const lastHour = new Map(security.lastHour.sources.map((s) => [s.address, s.failures]));
  const alerting = new Set(security.alerts.map((a) => a.address));
  return (
    <div className="relative overflow-x-auto rounded-md border">
      <table className="w-full text-sm" aria-label="Sources of failed sign-ins">
        <thead className="bg-muted/50">
          <tr className="border-b">
            {headers.map((h) => (
              <th
                key={h}
                scope="col"
                className="whitespace-nowrap px-3 py-2 text-left font-medium text-muted-foreground"
              >
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {security.lastDay.sources.map((s) => {
            const alert = alerting.has(s.address);
            return (
              <tr
                key={s.address}
                className={cn("border-b align-top last:border-b-0", alert ? "bg-destructive/10" : "hover:bg-muted/30")}
                data-testid="security-source"
                data-address={s.address}
                data-alert={alert}
              >
                <td className="whitespace-nowrap px-3 py-2">
                  <span className="font-mono">{s.address}</span>
                  {alert && (
                    <Badge variant="destructive" className="ml-2">
                      <TriangleAlert aria-hidden />
                      Over {security.threshold}/hour
                    </Badge>
                  )}
                </td>
                <td className={cn("px-3 py-2 tabular-nums", alert && "font-semibold text-destructive")}>
                  {formatNumber(lastHour.get(s.address) ?? 0)}
                </td>
                <td className="px-3 py-2 tabular-nums">{formatNumber(s.failures)}</td>
                <td className="min-w-48 px-3 py-2">
                  <Accounts source={s} />
                </td>
                <td className="whitespace-nowrap px-3 py-2">
                  <time dateTime={s.lastAt} title={s.lastAt}>
                    {formatDateTime(s.lastAt)}
                  </time>
                </td>
                {action && <td className="whitespace-nowrap px-3 py-2">{action(s.address)}</td>}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

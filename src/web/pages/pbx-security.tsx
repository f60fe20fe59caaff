import { useQuery } from "@tanstack/react-query";
import { CircleAlert, RotateCw, ShieldCheck, ShieldQuestion } from "lucide-react";
import type { ReactNode } from "react";
import { Chart } from "@/components/chart";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { AddressAction, useAddressActions } from "@/features/firewall/address-actions";
import { FirewallPanel } from "@/features/firewall/firewall-panel";
import { pbxSecurityQuery } from "@/features/live/api";
import { SourcesTable } from "@/features/pbx-security/sources-table";
import { errorText } from "@/lib/error-text";
import { cn } from "@/lib/utils";
import type { PbxSecurity } from "../../shared/live";

const TITLE = "PBX Security";
const SUBTITLE = "Failed SIP sign-ins seen by Asterisk: who is trying to guess your extensions' passwords";

function Figure({ title, value, caption, alert }: { title: string; value: number; caption: string; alert?: boolean }) {
  return (
    <Card
      className={cn("gap-1 py-4", alert && "border-destructive/60 bg-destructive/10")}
      role="group"
      aria-label={title}
      data-testid={`security-${title}`}
      data-alert={alert === true}
    >
      <CardHeader className="px-4">
        <CardTitle className="font-medium text-muted-foreground text-sm">{title}</CardTitle>
      </CardHeader>
      <CardContent className="px-4">
        <div className={cn("font-bold text-2xl tabular-nums", alert && "text-destructive")} data-testid="figure-value">
          {value.toLocaleString("en-US")}
        </div>
        <p className="text-muted-foreground text-xs">{caption}</p>
      </CardContent>
    </Card>
  );
}

function SecurityView({ security }: { security: PbxSecurity }) {
  const alerts = security.alerts.length;
  // One firewall query and one set of ban/unban mutations for the whole table (ADR 0045).
  const firewall = useAddressActions();
  return (
    <>
      <div className="grid grid-cols-1 gap-4 min-[400px]:grid-cols-2 lg:grid-cols-4">
        <Figure title="Last hour" value={security.lastHour.failures} caption="Failed sign-ins" />
        <Figure title="Last day" value={security.lastDay.failures} caption="Failed sign-ins" />
        <Figure title="Sources" value={security.lastDay.sources.length} caption="Addresses in the last day" />
        <Figure
          title="Over threshold"
          value={alerts}
          caption={`Addresses with more than ${security.threshold} failures in the last hour`}
          alert={alerts > 0}
        />
      </div>
      <Card className="min-w-0 gap-3 py-4">
        <CardHeader className="px-4">
          <CardTitle className="text-base">Failed sign-ins per hour</CardTitle>
        </CardHeader>
        <CardContent className="min-w-0 px-4">
          <Chart
            label="Failed sign-ins per hour over the last 24 hours"
            summary={`${security.lastDay.failures} failures in the last day`}
            x={{ kind: "time", bucket: "hour", values: security.perHour.map((b) => Date.parse(b.start)) }}
            series={[
              { label: "Failed sign-ins", values: security.perHour.map((b) => b.failures), color: "destructive" },
            ]}
          />
        </CardContent>
      </Card>
      {security.lastDay.sources.length === 0 ? (
        <EmptyState
          icon={ShieldCheck}
          title="No failed sign-ins in the last day"
          description="Counted since the console connected to Asterisk. If you expect attacks, check that the manager user may read the security class (read = …,security in manager.conf)."
        />
      ) : (
        <SourcesTable
          security={security}
          action={(address) => <AddressAction address={address} actions={firewall} />}
        />
      )}
    </>
  );
}

export function PbxSecurityPage() {
  // Never polled: the sync socket's pbx-security-updated refetches it.
  const security = useQuery(pbxSecurityQuery());
  let body: ReactNode;
  if (security.isPending) body = <CardListSkeleton layout="list" />;
  else if (security.isError && !security.data) {
    body = (
      <EmptyState
        icon={CircleAlert}
        title="Could not load the failed sign-ins"
        description={errorText(security.error)}
        action={
          <Button variant="outline" onClick={() => void security.refetch()} disabled={security.isFetching}>
            <RotateCw className={cn(security.isFetching && "animate-spin")} />
            Retry
          </Button>
        }
      />
    );
  } else if (security.data && !security.data.connected) {
    body = (
      <div data-testid="security-unknown">
        <EmptyState
          icon={ShieldQuestion}
          title="Failed sign-ins unknown"
          description={security.data.reason ?? "The Asterisk manager interface is not connected."}
        />
      </div>
    );
  } else if (security.data) {
    body = <SecurityView security={security.data} />;
  }
  return (
    <>
      <ScreenHeader title={TITLE} subtitle={SUBTITLE} />
      <div className="grid grid-cols-1 gap-4">
        {body}
        <FirewallPanel />
      </div>
    </>
  );
}

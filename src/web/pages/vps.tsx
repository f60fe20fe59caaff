import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, RefreshCw, TriangleAlert } from "lucide-react";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { vpsStatusQuery } from "@/features/vps/api";
import { ResourceUsageCard } from "@/features/vps/resource-usage-card";
import { ServerControlsCard } from "@/features/vps/server-controls-card";
import { ServerInfoCard } from "@/features/vps/server-info-card";
import { errorDescription } from "@/lib/error-text";

export function VpsPage() {
  const status = useQuery(vpsStatusQuery());
  const vps = status.data;
  const error = status.error;

  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <PageHeader title="VPS Management" subtitle="Start, restart and stop the server and watch its resources" />
        <Button variant="outline" onClick={() => status.refetch()} disabled={status.isFetching}>
          {status.isFetching ? <LoaderCircle className="animate-spin" /> : <RefreshCw />}
          Refresh
        </Button>
      </div>
      {error && (
        <Card className="border-destructive/40">
          <CardContent className="flex items-start gap-2 text-destructive text-sm" role="alert">
            <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
            Could not load the server status: {errorDescription(error)}
          </CardContent>
        </Card>
      )}
      <div className="grid gap-6 lg:grid-cols-2">
        <ServerInfoCard vps={vps} />
        <ServerControlsCard vps={vps} />
      </div>
      {vps && <ResourceUsageCard vps={vps} />}
    </>
  );
}

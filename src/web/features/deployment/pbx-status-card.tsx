import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { LoaderCircle, RefreshCw, ServerCog } from "lucide-react";
import type { ReactNode } from "react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/lib/error-text";
import type { PbxPathState } from "../../../shared/pbx";
import { pbxStatusQuery } from "./api";

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-center justify-between gap-4 border-b py-2 last:border-b-0">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="text-right text-sm">{children}</dd>
    </div>
  );
}

/** Whether the way works, not only whether it is configured: a failed test never shows as fine. */
function PathBadge({ path }: { path: PbxPathState }) {
  switch (path.state) {
    case "connected":
      return <Badge variant="success">Connected</Badge>;
    case "failed":
      return (
        <Badge variant="destructive" title={path.message ?? undefined}>
          Not reachable
        </Badge>
      );
    case "untested":
      return <Badge variant="secondary">Configured (not tested)</Badge>;
    default:
      return <Badge variant="outline">Not configured</Badge>;
  }
}

function ReloadBadge({ needReload }: { needReload: boolean | null }) {
  if (needReload === true) return <Badge variant="warning">Reload needed</Badge>;
  if (needReload === false) return <Badge variant="secondary">Up to date</Badge>;
  return <Badge variant="outline">Unknown</Badge>;
}

/** How the console reaches the PBX (SSH / GraphQL) and FreePBX's own "reload needed" flag. */
export function PbxStatusCard() {
  const status = useQuery(pbxStatusQuery());
  const s = status.data;
  return (
    <Card role="region" aria-labelledby="pbx-status-title" className="gap-4">
      <CardHeader className="flex flex-row items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle id="pbx-status-title" className="flex items-center gap-2">
            <ServerCog className="size-4 text-muted-foreground" aria-hidden />
            PBX Status
          </CardTitle>
          <CardDescription>Paths to the PBX and whether FreePBX has changes to apply.</CardDescription>
        </div>
        <Button
          variant="ghost"
          size="icon"
          aria-label="Refresh PBX status"
          onClick={() => status.refetch()}
          disabled={status.isFetching}
        >
          {status.isFetching ? <LoaderCircle className="animate-spin" /> : <RefreshCw />}
        </Button>
      </CardHeader>
      <CardContent className="grid gap-3">
        {s ? (
          <dl>
            <Row label="SSH (PBX host)">
              <span data-testid="path-ssh">
                <PathBadge path={s.paths.ssh} />
              </span>
            </Row>
            <Row label="FreePBX GraphQL API">
              <span data-testid="path-graphql">
                <PathBadge path={s.paths.graphql} />
              </span>
            </Row>
            {s.paths.graphql.state === "failed" && s.paths.graphql.message && (
              <p className="py-1 text-destructive text-sm" data-testid="path-graphql-message">
                Last Test Connection failed: {s.paths.graphql.message}
              </p>
            )}
            <Row label="FreePBX reload">
              <span data-testid="reload-state">
                <ReloadBadge needReload={s.needReload} />
              </span>
            </Row>
          </dl>
        ) : status.isError ? null : (
          <div className="grid gap-3">
            {["ssh", "graphql", "reload"].map((k) => (
              <Skeleton key={k} className="h-6 w-full" />
            ))}
          </div>
        )}
        {status.isError && (
          <p role="alert" className="text-destructive text-sm">
            Could not read the PBX status: {errorMessage(status.error)}
          </p>
        )}
        {s?.message && (
          <p className="text-muted-foreground text-sm" data-testid="pbx-status-message">
            {s.message}{" "}
            <Can minRole="admin">
              <Link to="/settings" className="text-primary underline underline-offset-4">
                Open API Settings
              </Link>
            </Can>
          </p>
        )}
      </CardContent>
    </Card>
  );
}

import { Link } from "@tanstack/react-router";
import { Info, LoaderCircle, Play, Power, RotateCw } from "lucide-react";
import { Can, RoleNotice } from "@/components/can";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { serverMessage } from "@/lib/error-text";
import { runningFor } from "@/lib/mutations";
import type { VpsStatus } from "../../../shared/vps";
import { useVpsControl, type VpsAction } from "./api";
import { isOnline } from "./format";

/** Power controls need the hosting provider's API; host metrics alone cannot start or stop the VPS. */
export const controlsAvailable = (vps: VpsStatus | undefined) => vps?.source === "hostinger";

export function ServerControlsCard({ vps }: { vps: VpsStatus | undefined }) {
  const control = useVpsControl({
    onSuccess: (_result, action) => {
      toast({ title: "Command sent", description: `Server ${action} command has been initiated.` });
    },
    onError: (err) => {
      const detail = serverMessage(err);
      toast({
        title: "Error",
        description: (
          <>
            <span className="block">Failed to execute server control command.</span>
            {detail && <span className="mt-1 block opacity-90">{detail}</span>}
          </>
        ),
        variant: "destructive",
      });
    },
  });

  const available = controlsAvailable(vps);
  const online = isOnline(vps?.status);
  const pending = control.isPending;
  const busy = (action: VpsAction) => runningFor(control, action);
  const canControl = useCan("operator");

  return (
    <Card role="region" aria-label="Server Controls">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Power className="size-4 text-muted-foreground" aria-hidden />
          Server Controls
        </CardTitle>
        <CardDescription>Start, restart or stop the VPS through the hosting provider.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {canControl ? (
          <div className="flex flex-wrap gap-2">
            <Button
              variant="default"
              disabled={!available || online || pending}
              onClick={() => control.mutate("start")}
            >
              {busy("start") ? <LoaderCircle className="animate-spin" /> : <Play />}
              Start Server
            </Button>
            <Button
              variant="outline"
              disabled={!available || !online || pending}
              onClick={() => control.mutate("restart")}
            >
              {busy("restart") ? <LoaderCircle className="animate-spin" /> : <RotateCw />}
              Restart Server
            </Button>
            <Button
              variant="destructive"
              disabled={!available || !online || pending}
              onClick={() => control.mutate("stop")}
            >
              {busy("stop") ? <LoaderCircle className="animate-spin" /> : <Power />}
              Stop Server
            </Button>
          </div>
        ) : (
          <RoleNotice cannot="start, restart or stop the server" />
        )}
        {vps && !available && (
          <p className="flex items-start gap-2 text-muted-foreground text-sm" data-testid="vps-controls-unavailable">
            <Info className="mt-0.5 size-4 shrink-0" aria-hidden />
            <span>
              {vps.message ?? "Server controls need the hosting provider API."}{" "}
              <Can minRole="admin">
                <Link to="/settings" className="font-medium text-primary underline-offset-4 hover:underline">
                  Open API Settings
                </Link>
              </Can>
            </span>
          </p>
        )}
      </CardContent>
    </Card>
  );
}

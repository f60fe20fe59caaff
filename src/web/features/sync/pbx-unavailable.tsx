import { Link } from "@tanstack/react-router";
import { ServerOff } from "lucide-react";
import { Can } from "@/components/can";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";

/** The PBX could not be read (not configured, unreachable): say why instead of showing an empty table. */
export function PbxUnavailable({ message }: { message: string }) {
  return (
    <Card role="region" aria-label="PBX unavailable">
      <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
        <ServerOff className="size-10 text-muted-foreground" aria-hidden />
        <p className="max-w-xl text-sm" role="alert" data-testid="sync-error">
          {message}
        </p>
        {/* Credentials are an administrator's. */}
        <Can minRole="admin">
          <Button asChild variant="outline">
            <Link to="/settings">Open API Settings</Link>
          </Button>
        </Can>
      </CardContent>
    </Card>
  );
}

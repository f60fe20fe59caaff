import { Cable, LoaderCircle, Trash2 } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { runningFor } from "@/lib/mutations";
import type { SipConnection } from "../../../shared/telnyx";
import { failureText, useDeleteConnection } from "./api";
import { formatDate } from "./format";

/** The connections; deleting (an operator's) is not offered to a viewer. */
export function ConnectionsList({ connections }: { connections: SipConnection[] }) {
  const canWrite = useCan("operator");
  // Deleted at once, without a confirmation.
  const remove = useDeleteConnection({
    onSuccess: () => toast({ title: "Success", description: "Connection deleted successfully" }),
    onError: (err) =>
      toast({ title: "Error", description: failureText(err, "Failed to delete connection"), variant: "destructive" }),
  });

  return (
    <Card role="region" aria-label="Active Connections">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Cable className="size-4 text-muted-foreground" aria-hidden />
          Active Connections
          <Badge variant="secondary" data-testid="connection-count">
            {connections.length}
          </Badge>
        </CardTitle>
      </CardHeader>
      <CardContent>
        {connections.length === 0 ? (
          <p className="py-6 text-center text-muted-foreground text-sm">
            {canWrite ? "No connections yet. Create one above to get started." : "No connections yet."}
          </p>
        ) : (
          <ul className="grid gap-2">
            {connections.map((c) => {
              const deleting = runningFor(remove, c.id);
              return (
                <li
                  key={c.id}
                  aria-label={c.connection_name}
                  className="flex items-center justify-between gap-3 rounded-md border p-3"
                >
                  <div className="min-w-0">
                    <p className="truncate font-medium">{c.connection_name}</p>
                    <p className="truncate text-muted-foreground text-xs">
                      Username <span className="font-mono">{c.user_name}</span> · created {formatDate(c.created_at)}
                    </p>
                  </div>
                  {canWrite && (
                    <Button
                      variant="ghost"
                      size="icon"
                      className="text-muted-foreground hover:text-destructive"
                      aria-label={`Delete ${c.connection_name}`}
                      disabled={deleting}
                      onClick={() => remove.mutate(c.id)}
                    >
                      {deleting ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
                    </Button>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

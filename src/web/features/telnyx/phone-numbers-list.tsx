import { LoaderCircle, Phone } from "lucide-react";
import { useId } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import type { PhoneNumber, SipConnection } from "../../../shared/telnyx";
import { failureText, useRouteNumber } from "./api";
import { formatDateTime } from "./format";
import { RequirementsDialog } from "./requirements-dialog";

/** Radix Select items cannot have an empty value: this stands for "not routed" (sent as ""). */
const NOT_ROUTED = "__not_routed__";

/** One number; routing it (a POST, an operator's) is not offered to a viewer, who sees its connection badge. */
function NumberRow({ number, connections }: { number: PhoneNumber; connections: SipConnection[] }) {
  const selectId = useId();
  const canRoute = useCan("operator");
  const route = useRouteNumber(number.id, {
    onSuccess: () => toast({ title: "Success", description: "Phone number routing configured successfully" }),
    onError: (err) =>
      toast({
        title: "Error",
        description: failureText(err, "Failed to configure phone number routing"),
        variant: "destructive",
      }),
  });
  // Routed to a connection this page does not list (e.g. an IP or FQDN connection): keep showing it.
  const foreign =
    number.connection_id && !connections.some((c) => c.id === number.connection_id) ? number.connection_id : null;
  const value = route.isPending ? route.variables || NOT_ROUTED : (number.connection_id ?? NOT_ROUTED);

  return (
    <li
      aria-label={number.phone_number}
      className="flex flex-col gap-3 rounded-md border p-4 md:flex-row md:items-center md:justify-between"
    >
      <div className="grid gap-1.5">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-medium font-mono">{number.phone_number}</span>
          <Badge variant={number.status === "active" ? "success" : "warning"} data-testid="number-status">
            {number.status}
          </Badge>
          {number.connection_name && (
            <Badge variant="outline" data-testid="number-connection">
              {number.connection_name}
            </Badge>
          )}
        </div>
        <span className="text-muted-foreground text-xs">Updated {formatDateTime(number.updated_at)}</span>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {canRoute && (
          <>
            <Label htmlFor={selectId} className="text-muted-foreground">
              Route to
            </Label>
            <Select
              value={value}
              onValueChange={(v) => route.mutate(v === NOT_ROUTED ? "" : v)}
              disabled={route.isPending}
            >
              <SelectTrigger id={selectId} className="w-48">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={NOT_ROUTED}>Not routed</SelectItem>
                {foreign && (
                  <SelectItem value={foreign} disabled>
                    {number.connection_name ?? foreign}
                  </SelectItem>
                )}
                {connections.map((c) => (
                  <SelectItem key={c.id} value={c.id}>
                    {c.connection_name}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
            {route.isPending && <LoaderCircle className="size-4 animate-spin text-muted-foreground" aria-hidden />}
          </>
        )}
        <RequirementsDialog phoneNumber={number.phone_number} />
      </div>
    </li>
  );
}

export function PhoneNumbersList({ numbers, connections }: { numbers: PhoneNumber[]; connections: SipConnection[] }) {
  return (
    <Card role="region" aria-label="Phone Numbers">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Phone className="size-4 text-muted-foreground" aria-hidden />
          Phone Numbers
          <Badge variant="secondary">{numbers.length}</Badge>
        </CardTitle>
      </CardHeader>
      <CardContent>
        {numbers.length === 0 ? (
          <p className="py-6 text-center text-muted-foreground text-sm">No phone numbers found</p>
        ) : (
          <ul className="grid gap-3">
            {numbers.map((n) => (
              <NumberRow key={n.id} number={n} connections={connections} />
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

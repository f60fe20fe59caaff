import { ShieldAlert } from "lucide-react";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { formatDateTime, formatNumber } from "@/lib/format";
import type { FleetMember } from "../../../shared/fleet";

/** Seconds as the largest whole unit: 45 s, 12 min, 5 h, 3 d. */
function age(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

const unknown = <span className="text-muted-foreground">—</span>;

function State({ m }: { m: FleetMember }) {
  if (m.reachable) return <Badge variant="success">Reachable</Badge>;
  if (m.pinMismatch)
    return (
      <Badge variant="destructive">
        <ShieldAlert aria-hidden /> Certificate changed
      </Badge>
    );
  return <Badge variant={m.checkedAt ? "destructive" : "secondary"}>{m.checkedAt ? "Unreachable" : "Checking"}</Badge>;
}

/** The members with their live state; one row each, the error under the name. */
export function FleetTable({
  members,
  removing,
  onRemove,
  onRepin,
  repinning,
}: {
  members: FleetMember[];
  removing: (id: number) => boolean;
  onRemove: (m: FleetMember) => void;
  onRepin: (m: FleetMember) => void;
  repinning: (id: number) => boolean;
}) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[56rem] text-sm" aria-label="Fleet members">
        <thead className="text-left text-muted-foreground">
          <tr className="border-b">
            <th scope="col" className="py-2 pr-3 font-medium">
              Console
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              State
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Version
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              PBX (AMI)
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Registered
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Calls
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Alerts
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Last deploy
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Backup age
            </th>
            <th scope="col" className="py-2 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.id} className="border-b align-top last:border-0" data-testid="fleet-row" aria-label={m.name}>
              <th scope="row" className="py-2 pr-3 text-left font-normal">
                <a
                  href={m.url}
                  target="_blank"
                  rel="noreferrer noopener"
                  className="font-medium underline-offset-4 hover:underline"
                >
                  {m.name}
                </a>
                <div className="text-muted-foreground text-xs">{m.url}</div>
                {m.error && (
                  <p className="mt-1 max-w-md text-destructive text-xs" data-testid="fleet-error">
                    {m.error}
                  </p>
                )}
              </th>
              <td className="py-2 pr-3">
                <State m={m} />
                {m.checkedAt && (
                  <div className="mt-1 text-muted-foreground text-xs">checked {formatDateTime(m.checkedAt)}</div>
                )}
              </td>
              <td className="py-2 pr-3 tabular-nums">{m.version ?? unknown}</td>
              <td className="py-2 pr-3">{m.pbx ? m.pbx.ami : unknown}</td>
              <td className="py-2 pr-3 tabular-nums" data-testid="fleet-registrations">
                {m.registrations
                  ? `${formatNumber(m.registrations.registered)} / ${formatNumber(m.registrations.total)}`
                  : unknown}
              </td>
              <td className="py-2 pr-3 tabular-nums" data-testid="fleet-calls">
                {m.activeCalls ?? unknown}
              </td>
              <td className="py-2 pr-3 tabular-nums">
                {m.alertsFiring === null ? (
                  unknown
                ) : m.alertsFiring > 0 ? (
                  <Badge variant="warning">{m.alertsFiring} firing</Badge>
                ) : (
                  "0"
                )}
              </td>
              <td className="py-2 pr-3">{m.lastDeployAt ? formatDateTime(m.lastDeployAt) : unknown}</td>
              <td className="py-2 pr-3 tabular-nums">
                {m.backupAgeSeconds === null ? unknown : age(m.backupAgeSeconds)}
              </td>
              <td className="py-2">
                <div className="flex items-center justify-end gap-1">
                  {m.pinMismatch && m.presentedPin && (
                    <Button
                      type="button"
                      variant="outline"
                      size="sm"
                      disabled={repinning(m.id)}
                      onClick={() => onRepin(m)}
                    >
                      Accept new certificate
                    </Button>
                  )}
                  <DeleteButton
                    label={`Remove member ${m.name}`}
                    pending={removing(m.id)}
                    onClick={() => onRemove(m)}
                  />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

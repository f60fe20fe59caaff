/**
 * The Dashboard's off-site backup status (administrators: the targets are theirs): per target the age of the last
 * good copy of the database and the last restore drill, in the warning colour when the copy is older than two
 * days, the last upload failed or the last drill failed.
 */
import { useQuery } from "@tanstack/react-query";
import { CloudUpload, TriangleAlert } from "lucide-react";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { useCan } from "@/hooks/use-role";
import { cn } from "@/lib/utils";
import { backupTargetsQuery } from "./api";
import { ageText, HEALTH_TEXT, targetHealth } from "./health";

export function OffsiteStatusCard() {
  const isAdmin = useCan("admin");
  const targets = useQuery({ ...backupTargetsQuery(), enabled: isAdmin });
  if (!isAdmin || !targets.data) return null;
  const now = Date.now();
  return (
    <Card className="gap-3" role="region" aria-label="Off-site backups status">
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-sm">
          <CloudUpload className="size-4 text-muted-foreground" aria-hidden />
          Off-site backups
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-2 text-sm">
        {targets.data.length === 0 && (
          <p className="text-muted-foreground">No off-site target: backups stay on this server (Settings).</p>
        )}
        <ul className="grid gap-2">
          {targets.data.map((t) => {
            const health = targetHealth(t, now);
            const drillFailed = t.lastDrill !== null && !t.lastDrill.ok;
            const warn = health !== "ok" || drillFailed;
            return (
              <li
                key={t.id}
                className="grid gap-0.5"
                aria-label={`Off-site ${t.name}`}
                data-state={warn ? "warning" : "ok"}
              >
                <span className={cn("flex items-center gap-1.5 font-medium", warn && "text-warning")}>
                  {warn && <TriangleAlert className="size-4 text-warning" aria-hidden />}
                  {t.name}: {t.lastSuccessAt ? `last copy ${ageText(t.lastSuccessAt, now)}` : "no copy yet"}
                  {health === "failed" || health === "stale" ? ` (${HEALTH_TEXT[health].toLowerCase()})` : ""}
                </span>
                <span className={cn("text-xs", drillFailed ? "text-destructive" : "text-muted-foreground")}>
                  {t.lastDrill
                    ? `Restore drill ${t.lastDrill.ok ? "passed" : "failed"} ${ageText(t.lastDrill.at, now)}${
                        !t.lastDrill.ok && t.lastDrill.lastPassedAt
                          ? `; last passed ${ageText(t.lastDrill.lastPassedAt, now)}`
                          : ""
                      }`
                    : "No restore drill yet"}
                </span>
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}

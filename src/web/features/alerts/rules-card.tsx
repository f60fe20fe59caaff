/**
 * The alert rules as a table: what each watches in words, its channels, how often it repeats and how many of
 * its alerts fire now; for administrators Add, Edit and Delete.
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, Pencil, Trash2, Workflow } from "lucide-react";
import { useState } from "react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { alertChannelsQuery } from "@/features/alert-channels/api";
import { testCallsQuery } from "@/features/test-calls/api";
import { errorText } from "@/lib/error-text";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import type { AlertRule } from "../../../shared/alerts";
import { alertRulesQuery, useDeleteAlertRule } from "./api";
import { durationText, kindLabel, paramsText } from "./format";
import { RuleDialog } from "./rule-dialog";

export function AlertRulesCard() {
  const rules = useQuery(alertRulesQuery());
  const channels = useQuery(alertChannelsQuery());
  const watchesTestCalls = rules.data?.some((r) => r.kind === "test-call-failed") ?? false;
  const testCalls = useQuery({ ...testCallsQuery(), enabled: watchesTestCalls });
  const [editing, setEditing] = useState<AlertRule | null>(null);
  const remove = useDeleteAlertRule(deleteToasts("Alert rule deleted", "Failed to delete the alert rule"));
  const channelName = (id: number) => channels.data?.find((c) => c.id === id)?.name;
  const testCallName = (id: number) => testCalls.data?.find((t) => t.id === id)?.name;

  return (
    <Card className="gap-4" role="region" aria-labelledby="alert-rules-title">
      <CardHeader className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle id="alert-rules-title" className="flex items-center gap-2">
            <Workflow className="size-4 text-muted-foreground" aria-hidden />
            Rules
          </CardTitle>
          <CardDescription>What the console watches, and where each alert goes.</CardDescription>
        </div>
        <RuleDialog />
      </CardHeader>
      <CardContent className="grid gap-4">
        {rules.isError && <FormError message={`Could not load the alert rules: ${errorText(rules.error)}`} />}
        {rules.data?.length ? (
          <div className="overflow-x-auto">
            <table className="w-full text-sm" aria-label="Alert rules">
              <thead className="text-left text-muted-foreground text-xs">
                <tr>
                  <th className="px-3 py-2 font-medium">Name</th>
                  <th className="px-3 py-2 font-medium">Watches</th>
                  <th className="px-3 py-2 font-medium">Channels</th>
                  <th className="px-3 py-2 font-medium">Repeats</th>
                  <th className="px-3 py-2 font-medium">Firing</th>
                  <Can minRole="admin">
                    <th className="px-3 py-2 font-medium">
                      <span className="sr-only">Actions</span>
                    </th>
                  </Can>
                </tr>
              </thead>
              <tbody>
                {rules.data.map((r) => (
                  <tr key={r.id} className="border-t align-top" data-rule={r.name}>
                    <td className="px-3 py-2">
                      <span className="font-medium">{r.name}</span>
                      {!r.enabled && (
                        <Badge variant="secondary" className="ml-2">
                          Off
                        </Badge>
                      )}
                    </td>
                    <td className="px-3 py-2">
                      <span className="grid">
                        <span>{kindLabel(r.kind)}</span>
                        <span className="text-muted-foreground text-xs">{paramsText(r, testCallName)}</span>
                      </span>
                    </td>
                    <td className="px-3 py-2">
                      {r.channelIds.length === 0 ? (
                        <span className="text-muted-foreground">History only</span>
                      ) : (
                        r.channelIds.map((id) => channelName(id) ?? `#${id}`).join(", ")
                      )}
                    </td>
                    <td className="whitespace-nowrap px-3 py-2">
                      {r.repeatMinutes === 0 ? "Once" : `Every ${durationText(r.repeatMinutes * 60_000)}`}
                    </td>
                    <td className="px-3 py-2">
                      {r.firing > 0 ? (
                        <Badge variant="destructive">{r.firing} firing</Badge>
                      ) : (
                        <span className="text-muted-foreground">—</span>
                      )}
                    </td>
                    <Can minRole="admin">
                      <td className="whitespace-nowrap px-3 py-2 text-right">
                        <Button
                          type="button"
                          variant="ghost"
                          size="icon"
                          className="size-8"
                          aria-label={`Edit rule ${r.name}`}
                          title={`Edit rule ${r.name}`}
                          onClick={() => setEditing(r)}
                        >
                          <Pencil />
                        </Button>
                        <Button
                          type="button"
                          variant="ghost"
                          size="icon"
                          className="size-8 text-muted-foreground hover:text-destructive"
                          aria-label={`Delete rule ${r.name}`}
                          title={`Delete rule ${r.name}`}
                          disabled={runningFor(remove, r.id)}
                          onClick={() =>
                            afterConfirm(
                              `Delete the alert rule ${r.name}? Its firing alerts end and stay in the history.`,
                              () => remove.mutate(r.id),
                            )
                          }
                        >
                          {runningFor(remove, r.id) ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
                        </Button>
                      </td>
                    </Can>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : rules.data ? (
          <p className="text-muted-foreground text-sm">
            No rules yet. A rule watches a trunk, the extensions, the manager interface, the disk, backups, sign-ins and
            more, and sends an alert to its channels.
          </p>
        ) : null}
      </CardContent>
      {editing && <RuleDialog editing={editing} onClose={() => setEditing(null)} />}
    </Card>
  );
}

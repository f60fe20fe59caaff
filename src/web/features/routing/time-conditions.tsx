import { useQuery } from "@tanstack/react-query";
import { RoleNotice } from "@/components/can";
import { SelectField } from "@/components/select-field";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { destinationLabel } from "../../../shared/destinations";
import { OVERRIDE_LABELS, type OverrideState } from "../../../shared/time-condition-states";
import type { PbxTimeCondition, TimeConditionGoto } from "../../../shared/time-conditions";
import { pbxTimeConditionsQuery, useSetOverride } from "./api";

const gotoText = (g: TimeConditionGoto) => ("destination" in g ? destinationLabel(g.destination) : g.raw || "nowhere");

/** What an administrator forces from here; a phone's one-time toggle shows as its own state until changed. */
const CHOICES: OverrideState[] = ["auto", "open", "closed"];

function TimeConditionRow({ tc, canChange }: { tc: PbxTimeCondition; canChange: boolean }) {
  const set = useSetOverride({
    onSuccess: (answer) => toast({ title: `${answer.name}: ${OVERRIDE_LABELS[answer.override]}` }),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to change the override", description: errorText(err) }),
  });
  const options = (CHOICES.includes(tc.override) ? CHOICES : [...CHOICES, tc.override]).map((s) => ({
    value: s,
    label: OVERRIDE_LABELS[s],
  }));
  return (
    <li className="grid gap-3 rounded-md border p-3 sm:grid-cols-[1fr_18rem]" data-time-condition={tc.id}>
      <div className="grid gap-1 text-sm">
        <span className="flex flex-wrap items-center gap-2 font-semibold">
          {tc.name}
          {tc.override !== "auto" && <Badge variant="warning">override</Badge>}
        </span>
        <span className="text-muted-foreground">
          {tc.timeGroup ? `${tc.timeGroup.name}: ${tc.timeGroup.rules.join(", ") || "no rows"}` : "No time group"}
          {` (${tc.timeZone ?? "the PBX's time zone"})`}
        </span>
        <span>
          Matched: {gotoText(tc.match)} · Not matched: {gotoText(tc.noMatch)}
        </span>
        {tc.featureCode && (
          <span className="text-muted-foreground text-xs">Phones toggle it with {tc.featureCode}</span>
        )}
      </div>
      <SelectField
        label={`Override of ${tc.name}`}
        value={tc.override}
        disabled={!canChange || set.isPending}
        onValueChange={(s) => {
          if (s === "auto" || s === "open" || s === "closed") set.mutate({ id: tc.id, state: s });
        }}
        options={options}
      />
    </li>
  );
}

/**
 * The PBX's time conditions and their override ("closed for the snow day"): read over SSH, forced through the
 * manager interface at once, as FreePBX's own override does; no deploy involved (ADR 0059).
 */
export function PbxTimeConditionsCard() {
  const list = useQuery(pbxTimeConditionsQuery());
  const canOperate = useCan("operator");
  const canChange = canOperate && list.data?.overridable === true;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Time conditions on the PBX</CardTitle>
        <CardDescription>
          Force one open or closed now (the next call follows it), or set it back to its time group.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {!canOperate && <RoleNotice cannot="change a time condition's override" />}
        {list.data && !list.data.overridable && list.data.reason && (
          <p className="text-muted-foreground text-sm">{list.data.reason}</p>
        )}
        {list.isError && (
          <p className="text-destructive text-sm" data-testid="time-conditions-error">
            Could not read the PBX's time conditions: {errorText(list.error)}
          </p>
        )}
        {list.data?.items.length === 0 && (
          <p className="text-muted-foreground text-sm">The PBX has no time conditions.</p>
        )}
        <ul className="grid gap-3" aria-label="Time conditions">
          {list.data?.items.map((tc) => (
            <TimeConditionRow key={tc.id} tc={tc} canChange={canChange} />
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

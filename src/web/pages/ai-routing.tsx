import { useQuery } from "@tanstack/react-query";
import { Plus, Split } from "lucide-react";
import { useMemo, useState } from "react";
import { Can } from "@/components/can";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { routingRulesQuery, useDeleteRule } from "@/features/ai/api";
import { RouteTester } from "@/features/ai/route-tester";
import { RuleCard } from "@/features/ai/rule-card";
import { RuleDialog } from "@/features/ai/rule-dialog";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { type AiRoutingRule, byRuleOrder } from "../../shared/ai/routing-rules";

export function AiRoutingPage() {
  const rules = useQuery(routingRulesQuery());
  const sorted = useMemo(() => (rules.data ? [...rules.data].sort(byRuleOrder) : undefined), [rules.data]);
  const [dialog, setDialog] = useState<{ open: boolean; editing: AiRoutingRule | null }>({
    open: false,
    editing: null,
  });
  const del = useDeleteRule(
    undoableDeleteToasts("Routing rule deleted successfully", "Failed to delete routing rule", [
      queryKeys.aiRoutingRules,
    ]),
  );

  return (
    <>
      <ScreenHeader
        title="AI Routing Rules"
        subtitle="Decide where calls go based on what callers say"
        action={
          <Can minRole="operator">
            <Button onClick={() => setDialog({ open: true, editing: null })}>
              <Plus />
              Create Rule
            </Button>
          </Can>
        }
      />
      <ListBody
        query={{ ...rules, data: sorted }}
        layout="list"
        label="Routing rules"
        empty={
          <EmptyState
            icon={Split}
            title="No Routing Rules"
            description="Rules send calls to an extension, an IVR, voicemail or an AI assistant, or hang up."
          />
        }
      >
        {(items) =>
          items.map((r) => (
            <RuleCard
              key={r.id}
              rule={r}
              deleting={runningFor(del, r.id)}
              onEdit={() => setDialog({ open: true, editing: r })}
              onDelete={() => del.mutateAsync(r.id)}
            />
          ))
        }
      </ListBody>
      {/* Evaluating is a POST: an operator's. */}
      <Can minRole="operator">
        <RouteTester />
      </Can>
      <RuleDialog
        open={dialog.open}
        editing={dialog.editing}
        onClose={() => setDialog((d) => ({ ...d, open: false }))}
      />
    </>
  );
}

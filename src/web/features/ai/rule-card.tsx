import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { type AiRoutingRule, actionLabel, jsonEntries } from "../../../shared/ai";
import { EditDeleteFooter } from "./card-parts";

function Pairs({ label, text }: { label: string; text: string }) {
  const pairs = jsonEntries(text);
  if (!pairs.length) return null;
  return (
    <ul className="flex flex-wrap gap-1" aria-label={label}>
      {pairs.map(([k, v]) => (
        <li key={k}>
          <Badge variant="outline" className="font-mono">
            {k} = {v}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

export function RuleCard({
  rule: r,
  deleting,
  onEdit,
  onDelete,
}: {
  rule: AiRoutingRule;
  deleting: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <li data-testid="routing-rule">
      <Card className="gap-4">
        <CardHeader className="flex flex-wrap items-start justify-between gap-2">
          <div className="grid min-w-0 gap-1">
            <CardTitle className="flex flex-wrap items-center gap-2 leading-normal">
              <span className="truncate">{r.name}</span>
              <Badge variant="secondary">Priority {r.priority}</Badge>
            </CardTitle>
            {r.description && <CardDescription>{r.description}</CardDescription>}
          </div>
          <Badge variant={r.enabled ? "success" : "secondary"}>{r.enabled ? "Enabled" : "Disabled"}</Badge>
        </CardHeader>
        <CardContent className="grid gap-3 text-sm">
          <div className="grid gap-1">
            <span className="text-muted-foreground text-xs">Conditions</span>
            <Pairs label="Conditions" text={r.conditions} />
          </div>
          <div className="grid gap-1">
            <span className="text-muted-foreground text-xs">Action</span>
            <div className="flex flex-wrap items-center gap-2">
              <Badge>{actionLabel(r.action)}</Badge>
              <Pairs label="Action parameters" text={r.actionParams} />
            </div>
          </div>
        </CardContent>
        <EditDeleteFooter name={r.name} deleting={deleting} onEdit={onEdit} onDelete={onDelete} />
      </Card>
    </li>
  );
}

import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { queryKeys } from "@/lib/query-keys";
import {
  type AiRoutingRule,
  conditionsForBuilder,
  type RuleCondition,
  WEEKDAYS,
} from "../../../shared/ai/routing-rules";
import { EditDeleteFooter } from "./card-parts";
import { actionLabel, jsonEntries } from "./format";

const EVERY_DAY = WEEKDAYS.length;
const cap = (d: string) => `${d[0]?.toUpperCase()}${d.slice(1)}`;

/** One condition as a phrase: "sentiment is not positive", "caller number matches NXXNXXXXXX". */
export function conditionText(c: RuleCondition): string {
  switch (c.kind) {
    case "sentiment":
      return `sentiment ${c.op === "is" ? "is" : "is not"} ${c.value}`;
    case "intent":
      return `intent ${c.op === "is" ? "is" : "is not"} ${c.values.join(" or ")}`;
    case "keywords":
      return `transcript contains ${c.any.map((k) => `“${k}”`).join(" or ")}`;
    case "caller":
      return `caller number ${c.op === "matches" ? "matches" : "starts with"} ${c.pattern}`;
    case "time":
      return `${c.from}–${c.to}${c.days.length === EVERY_DAY ? "" : ` on ${c.days.map(cap).join(", ")}`}`;
    case "fact":
      return `${c.key} = ${c.values.join(" or ")}`;
  }
}

function Conditions({ text }: { text: string }) {
  const parsed = conditionsForBuilder(text);
  if (!parsed) return <span className="text-muted-foreground">Not readable: the rule never matches</span>;
  if (!parsed.conditions.length) return <span className="text-muted-foreground">Every call</span>;
  return (
    <div className="flex flex-wrap items-center gap-1">
      {parsed.conditions.length > 1 && (
        <span className="text-muted-foreground text-xs">{parsed.match === "all" ? "All of" : "Any of"}</span>
      )}
      <ul className="flex flex-wrap gap-1" aria-label="Conditions">
        {parsed.conditions.map((c, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the stored list has no ids; it is shown as stored
          <li key={i}>
            <Badge variant="outline">{conditionText(c)}</Badge>
          </li>
        ))}
      </ul>
    </div>
  );
}

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
  onDelete: () => Promise<unknown>;
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
            <Conditions text={r.conditions} />
          </div>
          <div className="grid gap-1">
            <span className="text-muted-foreground text-xs">Action</span>
            <div className="flex flex-wrap items-center gap-2">
              <Badge>{actionLabel(r.action)}</Badge>
              <Pairs label="Action parameters" text={r.actionParams} />
            </div>
          </div>
        </CardContent>
        <EditDeleteFooter
          name={r.name}
          deleting={deleting}
          onEdit={onEdit}
          onDelete={onDelete}
          confirm={{ what: "routing rule", list: queryKeys.aiRoutingRules, id: r.id }}
        />
      </Card>
    </li>
  );
}

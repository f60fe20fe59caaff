import { FlaskConical, LoaderCircle } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Textarea } from "@/components/ui/textarea";
import { errorText } from "@/lib/error-text";
import { parseJsonObject } from "../../../shared/ai/routing-rules";
import { useRouteTest } from "./api";
import { actionLabel } from "./format";

/** The facts the rule builder's conditions read; `time` (HH:MM) and `day` (mon…sun) try another moment than now. */
const SAMPLE = JSON.stringify(
  {
    sentiment: "negative",
    intent: "billing",
    callerNumber: "2125550100",
    transcript: "I want a refund",
    time: "10:30",
  },
  null,
  2,
);

/** Tries the rules against facts (POST /api/ai/route), as the webhook and the voice bridge would. */
export function RouteTester() {
  const [facts, setFacts] = useState(SAMPLE);
  const [problem, setProblem] = useState<string>();
  const run = useRouteTest({ onError: (err) => setProblem(errorText(err)) });
  const d = run.data;
  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <FlaskConical className="size-4 text-muted-foreground" aria-hidden />
          Test the rules
        </CardTitle>
        <CardDescription>
          Facts of a call as a JSON object (sentiment, intent, transcript, callerNumber; time and day to try another
          moment than now); the first enabled matching rule wins.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        <Textarea
          aria-label="Call facts"
          rows={7}
          className="font-mono"
          spellCheck={false}
          value={facts}
          onChange={(e) => setFacts(e.target.value)}
        />
        <div className="flex flex-wrap items-center gap-3">
          <Button
            type="button"
            variant="outline"
            disabled={run.isPending}
            onClick={() => {
              const body = parseJsonObject(facts);
              setProblem(body ? undefined : "Enter the facts as a JSON object.");
              if (body) run.mutate(body);
            }}
          >
            {run.isPending && <LoaderCircle className="animate-spin" />}
            Evaluate
          </Button>
          <output className="text-sm" aria-live="polite">
            {problem ? (
              <span className="text-destructive">{problem}</span>
            ) : d ? (
              d.matched && d.rule ? (
                <>
                  Rule <strong>{d.rule.name}</strong> (priority {d.rule.priority}): {actionLabel(d.action)}
                </>
              ) : (
                <>No rule matches: {actionLabel(d.action)} (default)</>
              )
            ) : null}
          </output>
        </div>
      </CardContent>
    </Card>
  );
}

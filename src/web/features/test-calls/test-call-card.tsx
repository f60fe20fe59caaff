import { CircleCheck, CircleX, LoaderCircle, Play } from "lucide-react";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { useCan } from "@/hooks/use-role";
import type { TestCall } from "../../../shared/test-calls";
import { measuresText, scheduleText, targetText, whenText } from "./format";
import { TestCallDialog } from "./test-call-dialog";

function LastResult({ call }: { call: TestCall }) {
  const r = call.lastResult;
  if (!r) return <p className="text-muted-foreground">Not run yet</p>;
  return (
    <div className="grid gap-1" data-testid="last-result" data-ok={r.ok}>
      <p className="flex items-center gap-1.5">
        {r.ok ? (
          <CircleCheck className="size-4 shrink-0 text-success" aria-hidden />
        ) : (
          <CircleX className="size-4 shrink-0 text-destructive" aria-hidden />
        )}
        <span className="font-medium">{r.ok ? "Passed" : "Failed"}</span>
        <span className="text-muted-foreground">{whenText(r.at)}</span>
      </p>
      {r.error && (
        <p className="text-destructive" data-testid="last-error">
          {r.error}
        </p>
      )}
      {measuresText(r) && <p className="text-muted-foreground">{measuresText(r)}</p>}
    </div>
  );
}

/** A test call: what it dials, its schedule, its last result, and Run now, Edit and Delete. */
export function TestCallCard({
  call,
  running,
  onRun,
  deleting,
  onDelete,
}: {
  call: TestCall;
  /** This console's own Run now is waiting for the call to end. */
  running: boolean;
  onRun: () => void;
  deleting: boolean;
  onDelete: () => void;
}) {
  const edit = useEditDialog<TestCall>();
  const canRun = useCan("operator");
  const busy = running || call.running;
  const { name } = call;
  return (
    <li data-testid="test-call" data-name={name}>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="grid min-w-0 gap-1">
            <CardTitle className="truncate">{name}</CardTitle>
            <div className="flex flex-wrap gap-1.5">
              {call.lastResult ? (
                <Badge variant={call.lastResult.ok ? "success" : "destructive"}>
                  {call.lastResult.ok ? "Passing" : "Failing"}
                </Badge>
              ) : (
                <Badge variant="outline">No result</Badge>
              )}
              <Badge variant="outline">{scheduleText(call)}</Badge>
              {busy && <Badge variant="secondary">Calling…</Badge>}
            </div>
          </div>
          <EditButton label={`Edit test call ${name}`} buttonRef={edit.buttonRef} onClick={() => edit.show(call)} />
          <EditDialogSlot dialog={edit.editing && <TestCallDialog editing={edit.editing} onClose={edit.close} />} />
          <DeleteButton label={`Delete test call ${name}`} pending={deleting} onClick={onDelete} />
        </CardHeader>
        <CardContent className="grid gap-3 text-sm">
          <p>{targetText(call)}</p>
          <LastResult call={call} />
          {canRun && (
            <Button type="button" variant="outline" className="w-fit" disabled={busy} onClick={onRun}>
              {busy ? <LoaderCircle className="animate-spin" /> : <Play />}
              <span>
                Run now<span className="sr-only"> {name}</span>
              </span>
            </Button>
          )}
        </CardContent>
      </Card>
    </li>
  );
}

import { TriangleAlert } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { type GeneratedConfig, KIND_LABEL } from "./types";

/** Objects left out of the script because FreePBX cannot hold one of their values. */
export function RefusedList({ refused }: { refused: NonNullable<GeneratedConfig["refused"]> }) {
  if (refused.length === 0) return null;
  return (
    <Card role="region" aria-labelledby="refused-title" className="gap-4 border-warning/60 bg-warning/5">
      <CardHeader>
        <CardTitle id="refused-title" className="flex items-center gap-2">
          <TriangleAlert className="size-4 text-warning" aria-hidden />
          Not included in the script ({refused.length})
        </CardTitle>
        <CardDescription>
          These values cannot be stored by FreePBX. Fix them in the console and generate again.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="grid gap-2" aria-label="Not included">
          {refused.map((r) => (
            <li key={`${r.kind}-${r.key}`} className="rounded-md border bg-background p-3 text-sm">
              <span className="font-medium">
                {KIND_LABEL[r.kind] ?? r.kind} <span className="font-mono">{r.key || "(empty)"}</span>
              </span>
              <span className="text-muted-foreground">: {r.reason}</span>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

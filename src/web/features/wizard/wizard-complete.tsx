import { Link } from "@tanstack/react-router";
import { CircleCheck, RotateCcw } from "lucide-react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import type { WizardDeployResult } from "../../../shared/wizard";
import { numberRanges } from "./number-ranges";

type Items = WizardDeployResult["created"];

/** What one side of the result holds, as "label: value" lines (empty when nothing). */
function lines(items: Items) {
  const out: { label: string; value: string; mono?: boolean }[] = [];
  if (items.extensions.length) {
    const n = items.extensions.length;
    out.push({ label: n === 1 ? "Extension" : `${n} extensions`, value: numberRanges(items.extensions), mono: true });
  }
  if (items.trunk) out.push({ label: "Trunk", value: items.trunk });
  if (items.ivr) out.push({ label: "IVR", value: items.ivr });
  return out;
}

function ResultList({ title, items, testId }: { title: string; items: Items; testId: string }) {
  const rows = lines(items);
  if (!rows.length) return null;
  return (
    <section className="grid gap-2 rounded-md border p-4 text-left" data-testid={testId}>
      <h3 className="font-medium text-sm">{title}</h3>
      <ul className="grid gap-1 text-sm">
        {rows.map((r) => (
          <li key={r.label} className="flex justify-between gap-4">
            <span className="text-muted-foreground">{r.label}</span>
            <span className={cn("font-medium", r.mono && "font-mono")}>{r.value}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Step 5: what the deployment created and what was already there. */
export function WizardComplete({ result, onRestart }: { result: WizardDeployResult; onRestart: () => void }) {
  const createdNothing = lines(result.created).length === 0;
  return (
    <div className="flex flex-col items-center gap-5 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-success/15">
        <CircleCheck className="size-7 text-success" aria-hidden />
      </div>
      <div className="grid gap-1">
        <h2 className="font-semibold text-xl">Configuration Complete!</h2>
        <p className="text-muted-foreground text-sm">
          {createdNothing
            ? "Nothing new was needed: everything already existed."
            : "Your starter configuration is in the console. Deploy it to the PBX from the Deployment page."}
        </p>
      </div>
      <div className="grid w-full max-w-md gap-3">
        <ResultList title="Created" items={result.created} testId="wizard-created" />
        <ResultList title="Already existed (left as they were)" items={result.existing} testId="wizard-existing" />
      </div>
      <div className="flex flex-wrap justify-center gap-2">
        <Button variant="outline" asChild>
          <Link to="/extensions">View Extensions</Link>
        </Button>
        <Button onClick={onRestart}>
          <RotateCcw />
          Run Wizard Again
        </Button>
      </div>
    </div>
  );
}

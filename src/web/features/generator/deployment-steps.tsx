import { ListOrdered } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

/** The server's numbered steps for applying the script by hand. */
export function DeploymentSteps({ steps }: { steps: string[] }) {
  return (
    <Card role="region" aria-labelledby="deployment-steps-title" className="gap-4">
      <CardHeader>
        <CardTitle id="deployment-steps-title" className="flex items-center gap-2">
          <ListOrdered className="size-4 text-muted-foreground" aria-hidden />
          Deployment Steps
        </CardTitle>
        <CardDescription>How the generated script reaches FreePBX.</CardDescription>
      </CardHeader>
      <CardContent>
        <ol className="grid gap-2" aria-label="Deployment steps">
          {steps.map((step, i) => (
            <li key={step} className="flex gap-3 text-sm">
              <span
                className="flex size-6 shrink-0 items-center justify-center rounded-full bg-primary font-medium text-primary-foreground text-xs tabular-nums"
                aria-hidden
              >
                {i + 1}
              </span>
              <span className="pt-0.5">{step}</span>
            </li>
          ))}
        </ol>
      </CardContent>
    </Card>
  );
}

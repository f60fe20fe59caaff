import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, RefreshCw } from "lucide-react";
import { RoleNotice } from "@/components/can";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-field";
import { generatedConfigQuery } from "@/features/generator/api";
import { DeploymentSteps } from "@/features/generator/deployment-steps";
import { ManualChecklist } from "@/features/generator/manual-checklist";
import { RefusedList } from "@/features/generator/refused-list";
import { SqlViewer } from "@/features/generator/sql-viewer";
import { SummaryCounts } from "@/features/generator/summary-counts";
import { useCan } from "@/hooks/use-role";
import { errorMessage } from "@/lib/error-text";

export function ConfigGeneratorPage() {
  // The script carries the extensions' SIP secrets: GET /api/config/generate is an operator's, so a
  // viewer is told so and the request is not sent.
  const canGenerate = useCan("operator");
  const config = useQuery({ ...generatedConfigQuery(), enabled: canGenerate });

  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <PageHeader title="Configuration Generator" subtitle="Generate SQL statements and manual deployment steps" />
        {config.data && (
          <Button variant="outline" onClick={() => config.refetch()} disabled={config.isFetching}>
            {config.isFetching ? <LoaderCircle className="animate-spin" /> : <RefreshCw />}
            Regenerate
          </Button>
        )}
      </div>
      {!canGenerate ? (
        <RoleNotice cannot="generate the configuration script: it contains the extensions' SIP passwords" />
      ) : config.isPending ? (
        <output className="flex items-center justify-center gap-2 py-16 text-muted-foreground">
          <LoaderCircle className="size-5 animate-spin" aria-hidden />
          Generating configuration...
        </output>
      ) : config.isError ? (
        <FormError message={`Could not generate the configuration: ${errorMessage(config.error)}`} />
      ) : (
        <>
          <SummaryCounts summary={config.data.summary} />
          <RefusedList refused={config.data.refused ?? []} />
          <div className="grid grid-cols-1 items-start gap-6 xl:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
            <SqlViewer config={config.data} />
            <DeploymentSteps steps={config.data.deployment.steps} />
          </div>
          <ManualChecklist />
        </>
      )}
    </>
  );
}

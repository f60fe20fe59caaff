import { ChevronLeft, ChevronRight, LoaderCircle, Rocket } from "lucide-react";
import { useState } from "react";
import { RoleNotice } from "@/components/can";
import { useSchemaForm } from "@/components/form-kit";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Progress } from "@/components/ui/progress";
import { toast } from "@/components/ui/use-toast";
import { useWizardDeploy } from "@/features/wizard/api";
import { WizardComplete } from "@/features/wizard/wizard-complete";
import {
  ExtensionsStep,
  FeaturesStep,
  ReviewStep,
  STEP_FIELDS,
  STEPS,
  TrunkStep,
} from "@/features/wizard/wizard-steps";
import { useCan } from "@/hooks/use-role";
import { fieldMessages } from "@/lib/error-text";
import type { WizardDeployResult } from "../../shared/wizard";
import { WIZARD_DEFAULTS, wizardDeploySchema } from "../../shared/wizard";

type Step = 1 | 2 | 3 | 4 | 5;
const INPUT_STEPS = 4;
const TOTAL_STEPS = 5;
const ALL_FIELDS = Object.values(STEP_FIELDS).flat();

/** The first input step owning one of these fields (to send the user back to its error). */
const stepOf = (fields: object) => ([1, 2, 3] as const).find((s) => STEP_FIELDS[s].some((f) => f in fields));

export function WizardPage() {
  const [step, setStep] = useState<Step>(1);
  const [result, setResult] = useState<WizardDeployResult>();
  // The wizard ends in a deploy that creates objects: an operator's.
  const canDeploy = useCan("operator");
  // The wizard's own page shows no form-level message: a refusal sends the user back to the step at fault.
  const { form, showServerError } = useSchemaForm(wizardDeploySchema, { ...WIZARD_DEFAULTS });

  const deploy = useWizardDeploy({
    onSuccess: (res) => {
      setResult(res);
      setStep(5);
      const n = res.created.extensions.length;
      toast({
        title: "Configuration deployed",
        description: n ? `${n} ${n === 1 ? "extension" : "extensions"} created.` : "Nothing new was needed.",
      });
    },
    onError: (err) => {
      showServerError(err, ALL_FIELDS);
      const fields = fieldMessages(err);
      const back = fields ? stepOf(fields) : undefined;
      if (back) setStep(back);
      toast({
        variant: "destructive",
        title: "Deployment failed",
        description: "Failed to deploy configuration. Please try again.",
      });
    },
  });

  async function next() {
    if (step >= INPUT_STEPS) return;
    if (await form.trigger(STEP_FIELDS[step as 1 | 2 | 3])) setStep((step + 1) as Step);
  }

  const submit = form.handleSubmit(
    (values) => deploy.mutate(values),
    (errors) => setStep(stepOf(errors) ?? 4),
  );

  function restart() {
    form.reset({ ...WIZARD_DEFAULTS });
    setResult(undefined);
    setStep(1);
  }

  const header = <PageHeader title="Configuration Wizard" subtitle="Deploy a starter configuration in a few steps" />;
  if (!canDeploy) {
    return (
      <>
        {header}
        <RoleNotice
          cannot="run the configuration wizard: it creates extensions, a trunk and routes"
          className="max-w-2xl"
        />
      </>
    );
  }

  const percent = (step / TOTAL_STEPS) * 100;
  const current = step <= INPUT_STEPS ? STEPS[step - 1] : undefined;

  return (
    <>
      {header}
      <Card className="w-full max-w-2xl">
        <CardHeader className="gap-3">
          <div className="flex items-center justify-between text-muted-foreground text-sm">
            <span>{current ? `Step ${step} of ${INPUT_STEPS}` : "Complete"}</span>
            <span>{percent}%</span>
          </div>
          <Progress value={percent} aria-label="Wizard progress" />
          {current && (
            <div className="grid gap-1.5 pt-2">
              <CardTitle className="text-lg">{current.title}</CardTitle>
              <CardDescription>{current.description}</CardDescription>
            </div>
          )}
        </CardHeader>
        {step === 5 && result ? (
          <CardContent>
            <WizardComplete result={result} onRestart={restart} />
          </CardContent>
        ) : (
          <form
            noValidate
            className="flex flex-col gap-6"
            onSubmit={(e) => {
              // Enter moves on through steps 1-3; on step 4 it deploys.
              if (step < INPUT_STEPS) {
                e.preventDefault();
                void next();
              } else void submit(e);
            }}
          >
            <CardContent>
              {step === 1 && <ExtensionsStep form={form} />}
              {step === 2 && <TrunkStep form={form} />}
              {step === 3 && <FeaturesStep form={form} />}
              {step === 4 && <ReviewStep form={form} />}
            </CardContent>
            <CardFooter className="justify-between border-t pt-6">
              <Button
                type="button"
                variant="outline"
                disabled={step === 1 || deploy.isPending}
                onClick={() => setStep((s) => Math.max(1, s - 1) as Step)}
              >
                <ChevronLeft />
                Back
              </Button>
              {step < INPUT_STEPS ? (
                <Button type="submit">
                  Next
                  <ChevronRight />
                </Button>
              ) : (
                <Button type="submit" disabled={deploy.isPending}>
                  {deploy.isPending ? <LoaderCircle className="animate-spin" /> : <Rocket />}
                  Deploy
                </Button>
              )}
            </CardFooter>
          </form>
        )}
      </Card>
    </>
  );
}

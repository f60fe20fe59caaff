import { type QueryKey, useQuery } from "@tanstack/react-query";
import {
  Clock,
  Grid3x3,
  ListOrdered,
  LoaderCircle,
  Megaphone,
  Network,
  Phone,
  PhoneCall,
  Radio,
  Rocket,
} from "lucide-react";
import { useState } from "react";
import { Can, RoleNotice } from "@/components/can";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { announcementsQuery } from "@/features/announcements/api";
import { DocumentCard } from "@/features/config-document/document-card";
import { useRefreshAfterDeploy } from "@/features/deployment/api";
import { DeployCountCard } from "@/features/deployment/deploy-count-card";
import { DeployHistoryCard } from "@/features/deployment/history-card";
import { type DeployRun, type DeployTarget, jobRun, runToast, TARGET_TEXT } from "@/features/deployment/model";
import { PbxStatusCard } from "@/features/deployment/pbx-status-card";
import { ResultsPanel } from "@/features/deployment/results-panel";
import { ReviewDialog } from "@/features/deployment/review-dialog";
import { extensionsQuery } from "@/features/extensions/api";
import { ivrsQuery } from "@/features/ivrs/api";
import { useShownJob } from "@/features/jobs/api";
import { finalText, JobProgressCard } from "@/features/jobs/job-progress";
import { pttGroupsQuery } from "@/features/ptt/api";
import { queuesQuery } from "@/features/queues/api";
import { ringGroupsQuery } from "@/features/ring-groups/api";
import { timeConditionsQuery } from "@/features/time-conditions/api";
import { trunksQuery } from "@/features/trunks/api";
import type { Job } from "../../shared/jobs";

/** A list's length for a count card (the lists stay fresh through the sync socket). */
function useCount(list: { queryKey: QueryKey }) {
  return useQuery<unknown[]>({ ...list, refetchOnMount: "always" }).data?.length;
}

export function DeploymentPage() {
  const trunks = useCount(trunksQuery());
  const extensions = useCount(extensionsQuery());
  const pttGroups = useCount(pttGroupsQuery());
  const ringGroups = useCount(ringGroupsQuery());
  const queues = useCount(queuesQuery());
  const ivrs = useCount(ivrsQuery());
  const announcements = useCount(announcementsQuery());
  const timeConditions = useCount(timeConditionsQuery());
  const [run, setRun] = useState<DeployRun | null>(null);
  const refresh = useRefreshAfterDeploy();
  // A deployment is a job (ADR 0024): its progress shows while it runs, also after a page reload, and
  // its final summary becomes the results and the toast.
  const shown = useShownJob("deploy", (job: Job, startedHere: boolean) => {
    refresh();
    const done = jobRun(job);
    setRun(done);
    if (!startedHere) return;
    const text = TARGET_TEXT[job.target === "recordings" ? "all" : job.target];
    if (job.state === "cancelled") toast({ title: "Deployment Cancelled", description: finalText(job) });
    else if (done) toast(runToast(done));
    else
      toast({
        title: "Deployment Failed",
        description: `Failed to deploy ${text.what} to the PBX server. ${job.error ?? ""}`.trim(),
        variant: "destructive",
      });
  });
  // Every deploy button opens the review of its plan (ADR 0025); Apply there starts the job shown here.
  const [review, setReview] = useState<DeployTarget | null>(null);
  const deploy = { mutate: (target: DeployTarget) => setReview(target) };
  const pending = review !== null || shown.running;
  const busy = (target: DeployTarget) => review === target || (shown.running && shown.job?.target === target);

  return (
    <>
      <PageHeader
        title="Deployment"
        subtitle="Push trunks, extensions, ring groups, queues, IVRs, announcements, time conditions and PTT groups to the PBX server"
      />
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="grid gap-6">
          <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3 2xl:grid-cols-5">
            <DeployCountCard
              title="Trunks"
              caption="SIP trunks to providers"
              icon={Network}
              count={trunks}
              buttonLabel="Deploy Trunks"
              busy={busy("trunks")}
              pending={pending}
              onDeploy={() => deploy.mutate("trunks")}
            />
            <DeployCountCard
              title="Extensions"
              caption="Phones and softphones"
              icon={Phone}
              count={extensions}
              buttonLabel="Deploy Extensions"
              busy={busy("extensions")}
              pending={pending}
              onDeploy={() => deploy.mutate("extensions")}
            />
            <DeployCountCard
              title="Ring Groups"
              caption="Ring several phones for one number"
              icon={PhoneCall}
              count={ringGroups}
              buttonLabel="Deploy Ring Groups"
              busy={busy("ring-groups")}
              pending={pending}
              onDeploy={() => deploy.mutate("ring-groups")}
            />
            <DeployCountCard
              title="Queues"
              caption="Callers waiting for agents"
              icon={ListOrdered}
              count={queues}
              buttonLabel="Deploy Queues"
              busy={busy("queues")}
              pending={pending}
              onDeploy={() => deploy.mutate("queues")}
            />
            <DeployCountCard
              title="IVRs"
              caption="Menus callers choose from by key"
              icon={Grid3x3}
              count={ivrs}
              buttonLabel="Deploy IVRs"
              busy={busy("ivrs")}
              pending={pending}
              onDeploy={() => deploy.mutate("ivrs")}
            />
            <DeployCountCard
              title="Announcements"
              caption="A recording, then the call goes on"
              icon={Megaphone}
              count={announcements}
              buttonLabel="Deploy Announcements"
              busy={busy("announcements")}
              pending={pending}
              onDeploy={() => deploy.mutate("announcements")}
            />
            <DeployCountCard
              title="Time Conditions"
              caption="Open hours, with their time groups"
              icon={Clock}
              count={timeConditions}
              buttonLabel="Deploy Time Conditions"
              busy={busy("time-conditions")}
              pending={pending}
              onDeploy={() => deploy.mutate("time-conditions")}
            />
            <DeployCountCard
              title="PTT Groups"
              caption="Deployed as page groups"
              icon={Radio}
              count={pttGroups}
              buttonLabel="Deploy PTT Groups"
              busy={busy("ptt-groups")}
              pending={pending}
              onDeploy={() => deploy.mutate("ptt-groups")}
            />
          </div>
          <Can minRole="operator" fallback={<RoleNotice cannot="deploy to the PBX" />}>
            <Card className="gap-4">
              <CardHeader>
                <CardTitle className="flex items-center gap-2">
                  <Rocket className="size-4 text-muted-foreground" aria-hidden />
                  Deploy Everything
                </CardTitle>
                <CardDescription>
                  Trunks, extensions, ring groups, queues, announcements, IVRs and time conditions, then the outbound
                  and inbound routes that use them, followed by one FreePBX reload.
                </CardDescription>
              </CardHeader>
              <CardContent>
                <Button
                  size="lg"
                  className="w-full sm:w-auto"
                  disabled={pending || (!trunks && !extensions)}
                  onClick={() => deploy.mutate("all")}
                >
                  {busy("all") ? <LoaderCircle className="animate-spin" /> : <Rocket />}
                  Deploy All Configurations
                </Button>
              </CardContent>
            </Card>
          </Can>
          <ReviewDialog
            target={review}
            onOpenChange={(open) => !open && setReview(null)}
            onStarted={(jobId) => {
              setRun(null);
              shown.started(jobId);
            }}
          />
          {shown.job && <JobProgressCard job={shown.job} />}
          <ResultsPanel run={run} />
          <DocumentCard />
          <DeployHistoryCard />
        </div>
        {/* On narrow screens the PBX status comes first: it says whether deploying can work at all. */}
        <div className="order-first lg:order-none">
          <PbxStatusCard />
        </div>
      </div>
    </>
  );
}

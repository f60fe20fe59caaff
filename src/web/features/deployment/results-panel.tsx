import { Check, CircleCheck, CircleX, Copy, KeyRound, ListChecks, LoaderCircle } from "lucide-react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { toast } from "@/components/ui/use-toast";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";
import { errorText } from "@/lib/error-text";
import { formatTime } from "@/lib/format";
import type { DeployItemResult, ReloadResult } from "../../../shared/pbx";
import { useShowVoicemailPins } from "./api";
import { type DeployRun, type ResultGroup, totals } from "./model";

const VIA_LABEL = { ssh: "SSH", graphql: "GraphQL" } as const;

function ItemRow({ item }: { item: DeployItemResult }) {
  const ok = item.status === "success";
  return (
    <li className="flex items-start gap-3 rounded-md border p-3" aria-label={item.label || item.name}>
      {ok ? (
        <CircleCheck className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
      ) : (
        <CircleX className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
      )}
      <div className="grid min-w-0 flex-1 gap-1">
        <div className="flex flex-wrap items-center gap-2">
          <span className="truncate font-medium">{item.label || item.name}</span>
          <Badge variant={ok ? "success" : "destructive"} data-testid="item-status">
            {ok ? "Success" : "Failed"}
          </Badge>
          {item.via && (
            <Badge variant="outline" data-testid="item-via">
              via {VIA_LABEL[item.via]}
            </Badge>
          )}
        </div>
        <p className="break-words text-muted-foreground text-sm">{item.message}</p>
      </div>
    </li>
  );
}

function GroupSection({ group }: { group: ResultGroup }) {
  const { deployed, failed, results } = group.result;
  return (
    <section aria-label={`${group.title} results`} className="grid gap-2">
      <h3 className="flex items-center gap-2 font-medium text-sm">
        {group.title}
        <span className="font-normal text-muted-foreground">
          {deployed} deployed · {failed} failed
        </span>
      </h3>
      <ul className="grid gap-2">
        {results.map((item) => (
          <ItemRow key={`${item.kind}-${item.name}`} item={item} />
        ))}
      </ul>
    </section>
  );
}

function ReloadOutcome({ reload }: { reload: ReloadResult | null }) {
  if (!reload) {
    return (
      <p className="text-muted-foreground text-sm" data-testid="reload-outcome">
        FreePBX reload: not run (nothing was written).
      </p>
    );
  }
  return (
    <section aria-label="FreePBX reload" className="grid gap-2 rounded-md border p-3">
      <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="reload-outcome">
        <span className="font-medium">FreePBX reload</span>
        <Badge variant={reload.ok ? "success" : "destructive"}>{reload.ok ? "OK" : "Failed"}</Badge>
        <Badge variant="outline">via {VIA_LABEL[reload.via]}</Badge>
        {reload.exitCode !== null && <span className="text-muted-foreground">exit code {reload.exitCode}</span>}
      </div>
      {reload.output && (
        <details open={!reload.ok}>
          <summary className="cursor-pointer text-muted-foreground text-sm">Output</summary>
          <pre
            className="mt-2 max-h-64 overflow-auto whitespace-pre-wrap rounded-md bg-muted/40 p-3 font-mono text-xs"
            data-testid="reload-output"
          >
            {reload.output}
          </pre>
        </details>
      )}
    </section>
  );
}

/** The extensions of a run whose mailbox it created, with their PIN handles. */
const newMailboxes = (run: DeployRun) =>
  run.groups.flatMap((g) => g.result.results).filter((r) => r.voicemailPin !== undefined);

/**
 * The random PINs of the mailboxes the run created (ADR 0050): shown once, on request, and kept only in this
 * component; the server forgets each PIN as it answers it.
 */
function NewVoicemailPins({ items }: { items: DeployItemResult[] }) {
  const show = useShowVoicemailPins();
  const [copied, flash] = useCopiedFlag();
  const pins = show.data?.pins ?? [];
  const text = pins.map((p) => `${p.extension} [${p.context}]: ${p.pin}`).join("\n");
  const numbers = items.map((i) => i.name).join(", ");
  return (
    <section
      aria-label="New voicemail PINs"
      className="grid gap-2 rounded-md border border-warning/50 bg-warning/10 p-3 text-sm"
      data-testid="voicemail-pins"
    >
      <p className="flex items-start gap-2">
        <KeyRound className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
        <span>
          New voicemail mailboxes with a random PIN: {numbers}. The console shows each PIN once and keeps it for at most
          an hour (not across a restart); FreePBX shows and changes it under the extension's Voicemail tab.
        </span>
      </p>
      {pins.length > 0 ? (
        <>
          <p className="font-medium">Note the PINs now: they are not shown again.</p>
          <ul className="grid gap-1 font-mono" aria-label="Voicemail PINs">
            {pins.map((p) => (
              <li key={p.handle} aria-label={`Extension ${p.extension}`}>
                {p.extension} <span className="text-muted-foreground">[{p.context}]</span>{" "}
                <span data-testid="voicemail-pin">{p.pin}</span>
              </li>
            ))}
          </ul>
          {(show.data?.gone.length ?? 0) > 0 && (
            <p className="text-muted-foreground">
              {show.data?.gone.length} PIN(s) were no longer kept: see them in FreePBX.
            </p>
          )}
          <Button
            type="button"
            variant="outline"
            size="sm"
            className="justify-self-start"
            onClick={() =>
              copyText(text).then(flash, (err: Error) =>
                toast({ variant: "destructive", title: "Copy failed", description: err.message }),
              )
            }
          >
            {copied ? <Check /> : <Copy />}
            Copy PINs
          </Button>
        </>
      ) : (
        <Can minRole="operator">
          <Button
            type="button"
            variant="outline"
            size="sm"
            className="justify-self-start"
            disabled={show.isPending || show.isError}
            onClick={() => show.mutate(items.map((i) => i.voicemailPin?.handle as string))}
          >
            {show.isPending ? <LoaderCircle className="animate-spin" /> : <KeyRound />}
            Show PINs once
          </Button>
        </Can>
      )}
      {show.isError && <FormError message={errorText(show.error)} />}
    </section>
  );
}

/** Each item of the last deploy with its status, message and path, then the reload outcome. */
export function ResultsPanel({ run }: { run: DeployRun | null }) {
  if (!run) return null;
  const { deployed, failed } = totals(run);
  const mailboxes = newMailboxes(run);
  return (
    <Card role="region" aria-labelledby="deploy-results-title" className="gap-4">
      <CardHeader>
        <CardTitle id="deploy-results-title" className="flex items-center gap-2">
          <ListChecks className="size-4 text-muted-foreground" aria-hidden />
          Deployment Results
        </CardTitle>
        <CardDescription>
          {deployed} deployed, {failed} failed · {formatTime(run.finishedAt)}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {mailboxes.length > 0 && (
          <NewVoicemailPins key={mailboxes.map((m) => m.voicemailPin?.handle).join(" ")} items={mailboxes} />
        )}
        {run.groups.length === 0 ? (
          <p className="text-muted-foreground text-sm">Nothing to deploy.</p>
        ) : (
          run.groups.map((g) => <GroupSection key={g.title} group={g} />)
        )}
        <ReloadOutcome reload={run.reload} />
      </CardContent>
    </Card>
  );
}

import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Check, Copy, PhoneCall, TriangleAlert } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";
import { formatDateTime } from "@/lib/format";
import { aiCallsQuery, sipUriQuery } from "./api";

function CopyRow({ label, value }: { label: string; value: string }) {
  const [copied, flash] = useCopiedFlag();
  return (
    <div className="grid gap-1">
      <span className="text-muted-foreground text-xs">{label}</span>
      <div className="flex items-center gap-2">
        <Input readOnly aria-label={label} value={value} className="min-w-0 flex-1 font-mono text-sm" />
        <Button
          type="button"
          variant="outline"
          size="icon"
          className="size-8"
          aria-label={`Copy ${label}`}
          title={`Copy ${label}`}
          onClick={() =>
            copyText(value).then(flash, (err: Error) =>
              toast({ variant: "destructive", title: "Copy failed", description: err.message }),
            )
          }
        >
          {copied ? <Check /> : <Copy />}
        </Button>
      </div>
    </div>
  );
}

/** Where the FreePBX trunk and the OpenAI project webhook must point (README: AI voice). */
export function SipConnectorCard() {
  const info = useQuery(sipUriQuery());
  const d = info.data;
  const missing = d
    ? [!d.apiKeySet && "API key", !d.webhookSecretSet && "webhook signing secret", !d.uri && "project ID"].filter(
        (x): x is string => Boolean(x),
      )
    : [];
  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <PhoneCall className="size-4 text-muted-foreground" aria-hidden />
          OpenAI SIP connector
        </CardTitle>
        <CardDescription>
          Point a FreePBX trunk at this SIP URI and the OpenAI project webhook (event realtime.call.incoming) at this
          URL. Calls go to the active assistant whose extension is the called number.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 md:grid-cols-2">
        {d?.uri ? (
          <CopyRow label="SIP URI" value={d.uri} />
        ) : (
          <div className="grid gap-1">
            <span className="text-muted-foreground text-xs">SIP URI</span>
            <p className="text-sm">Set the OpenAI project ID (proj_…) under API Settings to see the SIP URI.</p>
          </div>
        )}
        <CopyRow label="Webhook URL" value={`${window.location.origin}${d?.webhookPath ?? "/api/ai/openai/webhook"}`} />
        {missing.length > 0 && (
          <p className="flex items-center gap-2 text-sm text-warning md:col-span-2" role="status">
            <TriangleAlert className="size-4 shrink-0" aria-hidden />
            Missing under API Settings → OpenAI: {missing.join(", ")}.
          </p>
        )}
      </CardContent>
    </Card>
  );
}

const OUTCOME_VARIANT = { accept: "success", refer: "secondary", reject: "warning", error: "destructive" } as const;

/** The last answered calls (the call log the webhook writes). */
export function RecentCallsCard() {
  const calls = useQuery(aiCallsQuery());
  if (!calls.data?.length) return null;
  return (
    <Card className="gap-3">
      <CardHeader>
        <CardTitle>Recent AI calls</CardTitle>
        <CardDescription>What the webhook did with the last incoming calls.</CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="grid gap-2" aria-label="Recent AI calls">
          {calls.data.slice(0, 10).map((c) => (
            <li key={c.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
              <Badge variant={OUTCOME_VARIANT[c.outcome]}>{c.outcome}</Badge>
              <Link
                to="/ai/calls/$callId"
                params={{ callId: c.callId }}
                className="text-primary underline-offset-4 hover:underline"
                aria-label={`Call of ${formatDateTime(c.createdAt)} from ${c.callerNumber ?? "an unknown caller"}: cost, latency and analysis`}
              >
                {formatDateTime(c.createdAt)}
              </Link>
              <span className="font-mono">{c.calledNumber ?? "unknown number"}</span>
              <span className="min-w-0 flex-1 truncate text-muted-foreground" title={c.detail ?? ""}>
                {c.detail}
              </span>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, Route } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Switch } from "@/components/ui/switch";
import { inboundRoutesQuery } from "@/features/call-routes/api";
import { fieldMessages, serverMessage } from "@/lib/error-text";
import type { SimulateAnswer } from "../../../shared/routing";
import { type SimulateRequest, useSimulateCall } from "./api";
import { PathView } from "./path-view";

/**
 * The routing simulator: a call's DID, caller ID, time, the keys the caller presses in IVRs and "nobody answers" in;
 * its path out.
 */
export function RoutingSimulator() {
  const routes = useQuery(inboundRoutesQuery());
  const [form, setForm] = useState({ did: "", callerId: "", when: "", digits: "", unanswered: false, plan: false });
  const [answer, setAnswer] = useState<SimulateAnswer | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const simulate = useSimulateCall({
    onSuccess: (a) => {
      setAnswer(a);
      setErrors({});
      setFormError(undefined);
    },
    onError: (err) => {
      setAnswer(null);
      const fields = fieldMessages(err) ?? {};
      setErrors(fields);
      setFormError(Object.keys(fields).length ? undefined : (serverMessage(err) ?? err.message));
    },
  });
  const dids = useId();
  const set = (key: keyof typeof form) => (value: string | boolean) => setForm((f) => ({ ...f, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { when, ...rest } = form;
    // The browser's local time, sent as an instant: the server reads it in each time condition's zone.
    const at = when ? new Date(when) : null;
    const body: SimulateRequest = { ...rest, ...(at && !Number.isNaN(at.getTime()) ? { at: at.toISOString() } : {}) };
    simulate.mutate(body);
  };
  const known = [...new Set((routes.data ?? []).map((r) => r.didNumber).filter((d): d is string => Boolean(d)))];

  return (
    <div className="grid gap-6">
      <Card>
        <CardHeader>
          <CardTitle>Follow a call</CardTitle>
        </CardHeader>
        <CardContent>
          <form className="grid gap-4" onSubmit={submit} noValidate aria-label="Follow a call">
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="DID (number called)" error={errors.did}>
                {(control) => (
                  <Input
                    {...control}
                    list={dids}
                    inputMode="tel"
                    placeholder="15550100"
                    value={form.did}
                    onChange={(e) => set("did")(e.target.value)}
                  />
                )}
              </FormField>
              <datalist id={dids}>
                {known.map((d) => (
                  <option key={d} value={d} />
                ))}
              </datalist>
              <FormField label="Caller ID" error={errors.callerId}>
                {(control) => (
                  <Input
                    {...control}
                    inputMode="tel"
                    placeholder="Any"
                    value={form.callerId}
                    onChange={(e) => set("callerId")(e.target.value)}
                  />
                )}
              </FormField>
              <FormField label="Keys pressed in IVRs (in order; empty: none)" error={errors.digits}>
                {(control) => (
                  <Input
                    {...control}
                    inputMode="tel"
                    placeholder="1#"
                    value={form.digits}
                    onChange={(e) => set("digits")(e.target.value)}
                  />
                )}
              </FormField>
              <FormField label="When (your local time; empty: now)" error={errors.at}>
                {(control) => (
                  <Input
                    {...control}
                    type="datetime-local"
                    value={form.when}
                    onChange={(e) => set("when")(e.target.value)}
                  />
                )}
              </FormField>
            </div>
            <div className="flex flex-wrap items-center gap-6">
              <ToggleField label="Nobody answers" checked={form.unanswered} onChange={(v) => set("unanswered")(v)} />
              <ToggleField label="Compare with the PBX now" checked={form.plan} onChange={(v) => set("plan")(v)} />
              <Button type="submit" disabled={simulate.isPending} className="ml-auto">
                {simulate.isPending ? <LoaderCircle className="animate-spin" aria-hidden /> : <Route aria-hidden />}
                Follow the call
              </Button>
            </div>
            {errors.plan && <FormError message={errors.plan} />}
            <FormError message={formError} />
          </form>
        </CardContent>
      </Card>
      {answer && <Answer answer={answer} />}
    </div>
  );
}

function ToggleField({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="flex items-center gap-2">
      <Switch id={id} checked={checked} onCheckedChange={onChange} />
      <Label htmlFor={id}>{label}</Label>
    </div>
  );
}

function Answer({ answer }: { answer: SimulateAnswer }) {
  const when = new Date(answer.at).toLocaleString();
  if (!answer.live)
    return (
      <Card>
        <CardHeader>
          <CardTitle>The call's path at {when}</CardTitle>
        </CardHeader>
        <CardContent>
          <PathView path={answer} label="The call's path" />
        </CardContent>
      </Card>
    );
  return (
    <Card>
      <CardHeader className="flex flex-row flex-wrap items-center gap-3">
        <CardTitle>The call's path at {when}</CardTitle>
        {answer.live.changed ? (
          <Badge variant="warning">The pending deploy changes this call's path</Badge>
        ) : (
          <Badge variant="success">The PBX routes this call as the console does</Badge>
        )}
      </CardHeader>
      <CardContent className="grid gap-6 lg:grid-cols-2">
        <div className="grid content-start gap-3">
          <h3 className="font-medium">On the PBX now</h3>
          <PathView path={answer.live} label="On the PBX now" />
        </div>
        <div className="grid content-start gap-3">
          <h3 className="font-medium">After the deploy (the console's configuration)</h3>
          <PathView path={answer} label="After the deploy" />
        </div>
      </CardContent>
    </Card>
  );
}

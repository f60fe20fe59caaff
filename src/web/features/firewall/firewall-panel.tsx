/**
 * The PBX Security screen's firewall (ADR 0067): each configured fail2ban jail as fail2ban has it (banned
 * addresses with their times, Unban), a ban of any address, and the console's trusted networks (never
 * banned, copied into every jail's ignoreip). Administrators act; everyone sees the state.
 */
import { useQuery } from "@tanstack/react-query";
import { Ban, LoaderCircle, RotateCw, ShieldCheck, ShieldOff, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import { SelectField } from "@/components/form-fields";
import { useSchemaForm } from "@/components/form-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { afterConfirm } from "@/lib/mutations";
import { cn } from "@/lib/utils";
import { type FirewallState, firewallBanSchema, type JailState, trustedNetworkSchema } from "../../../shared/firewall";
import { firewallQuery, useBan, useTrust, useUnban, useUntrust } from "./api";

const when = (iso: string | null, none: string) => (iso ? formatDateTime(iso) : none);

function JailTable({ jail, isAdmin }: { jail: JailState; isAdmin: boolean }) {
  const unban = useUnban({
    onSuccess: (r) => toast({ title: `Unbanned ${r.id}`, description: `From ${r.jail}` }),
    onError: (err) => toast({ variant: "destructive", title: "Unban failed", description: errorText(err) }),
  });
  return (
    <section className="grid gap-2" aria-label={`Jail ${jail.name}`} data-testid="jail" data-jail={jail.name}>
      <h3 className="flex flex-wrap items-center gap-2 font-medium text-sm">
        <span className="font-mono">{jail.name}</span>
        {jail.present ? (
          <Badge variant="secondary">{jail.banned.length} banned</Badge>
        ) : (
          <Badge variant="outline">Not in fail2ban</Badge>
        )}
      </h3>
      {jail.error && <p className="text-muted-foreground text-sm">{jail.error}</p>}
      {jail.present && !jail.error && jail.banned.length === 0 && (
        <p className="text-muted-foreground text-sm">No address is banned in this jail.</p>
      )}
      {jail.banned.length > 0 && (
        <div className="overflow-x-auto rounded-md border">
          <table className="w-full text-sm" aria-label={`Banned in ${jail.name}`}>
            <thead className="bg-muted/50">
              <tr className="border-b">
                {["Address", "Banned", "Until", ...(isAdmin ? ["Action"] : [])].map((h) => (
                  <th key={h} scope="col" className="px-3 py-2 text-left font-medium text-muted-foreground">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {jail.banned.map((b) => (
                <tr key={b.address} className="border-b last:border-b-0" data-testid="banned" data-address={b.address}>
                  <td className="px-3 py-2 font-mono">{b.address}</td>
                  <td className="whitespace-nowrap px-3 py-2">{when(b.bannedAt, "—")}</td>
                  <td className="whitespace-nowrap px-3 py-2">{when(b.expiresAt, "Permanent")}</td>
                  {isAdmin && (
                    <td className="px-3 py-2">
                      <Button
                        type="button"
                        variant="outline"
                        size="sm"
                        disabled={unban.isPending && unban.variables?.address === b.address}
                        aria-label={`Unban ${b.address} from ${jail.name}`}
                        onClick={() => unban.mutate({ address: b.address, jail: jail.name })}
                      >
                        Unban
                      </Button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function BanForm({ state }: { state: FirewallState }) {
  const present = state.jails.filter((j) => j.present).map((j) => j.name);
  const [jail, setJail] = useState(state.defaultJail ?? "");
  const { form, formError, showServerError, submit } = useSchemaForm(firewallBanSchema, { address: "" });
  const ban = useBan({
    onSuccess: (r) => {
      toast({ title: `Banned ${r.id}`, description: `In the ${r.jail} jail` });
      form.reset({ address: "" });
    },
    onError: (err) => {
      const message = showServerError(err, ["address", "jail"]);
      toast({ variant: "destructive", title: "Ban refused", description: message ?? errorText(err) });
    },
  });
  return (
    <form
      noValidate
      className="grid gap-2"
      aria-label="Ban an address"
      onSubmit={submit((values) => ban.mutate({ address: values.address, jail: jail || undefined }))}
    >
      <div className="flex flex-wrap items-end gap-3">
        <FormField label="Address to ban" error={form.formState.errors.address?.message} className="min-w-48 flex-1">
          {(control) => <Input {...control} placeholder="203.0.113.7" {...form.register("address")} />}
        </FormField>
        {present.length > 1 && (
          <SelectField
            label="Jail"
            value={jail}
            onValueChange={setJail}
            options={present.map((j) => ({ value: j, label: j }))}
            className="min-w-40"
          />
        )}
        <Button type="submit" variant="destructive" disabled={ban.isPending || present.length === 0}>
          {ban.isPending ? <LoaderCircle className="animate-spin" /> : <Ban aria-hidden />}
          Ban
        </Button>
      </div>
      <FormError message={formError} />
    </form>
  );
}

function TrustedNetworks({ state, isAdmin }: { state: FirewallState; isAdmin: boolean }) {
  const titleId = useId();
  const { form, formError, showServerError, submit } = useSchemaForm(trustedNetworkSchema, { network: "", note: "" });
  const trust = useTrust({
    onSuccess: (r) => {
      toast({
        title: `Trusted ${r.id}`,
        description: r.notApplied.length
          ? `fail2ban did not take it in ${r.notApplied.join(", ")} yet: the console adds it when fail2ban answers`
          : "Added to every jail's ignoreip",
      });
      form.reset({ network: "", note: "" });
    },
    onError: (err) => {
      const message = showServerError(err, ["network", "note"]);
      toast({ variant: "destructive", title: "Could not trust the network", description: message ?? errorText(err) });
    },
  });
  const untrust = useUntrust({
    onSuccess: (r) => toast({ title: `No longer trusted: ${r.id}` }),
    onError: (err) => toast({ variant: "destructive", title: "Could not remove it", description: errorText(err) }),
  });
  return (
    <section className="grid gap-3" aria-labelledby={titleId}>
      <h3 id={titleId} className="flex items-center gap-2 font-medium text-sm">
        <ShieldCheck className="size-4 text-muted-foreground" aria-hidden />
        Trusted networks
      </h3>
      {state.trusted.length === 0 ? (
        <p className="text-muted-foreground text-sm">None yet. The console never bans an address inside one.</p>
      ) : (
        <ul className="grid gap-2" aria-label="Trusted networks">
          {state.trusted.map((t) => (
            <li
              key={t.network}
              className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border p-2 text-sm"
              data-testid="trusted"
              data-network={t.network}
            >
              <span className="font-mono">{t.network}</span>
              {t.note && <span>{t.note}</span>}
              <span className="text-muted-foreground text-xs">
                added {formatDateTime(t.addedAt)} by {t.addedBy}
              </span>
              {isAdmin && (
                <Button
                  type="button"
                  variant="ghost"
                  size="sm"
                  className="ml-auto text-destructive hover:text-destructive"
                  disabled={untrust.isPending && untrust.variables === t.network}
                  aria-label={`Remove ${t.network}`}
                  onClick={() =>
                    afterConfirm(`Stop trusting ${t.network}? Addresses in it can be banned again.`, () =>
                      untrust.mutate(t.network),
                    )
                  }
                >
                  <Trash2 aria-hidden />
                  Remove
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {isAdmin && (
        <form
          noValidate
          className="grid gap-2"
          aria-label="Trust a network"
          onSubmit={submit((values) => trust.mutate(values))}
        >
          <div className="flex flex-wrap items-end gap-3">
            <FormField label="Network" error={form.formState.errors.network?.message} className="min-w-48 flex-1">
              {(control) => <Input {...control} placeholder="198.51.100.0/24" {...form.register("network")} />}
            </FormField>
            <FormField label="Note" error={form.formState.errors.note?.message} className="min-w-40 flex-1">
              {(control) => <Input {...control} placeholder="Office" {...form.register("note")} />}
            </FormField>
            <Button type="submit" disabled={trust.isPending}>
              {trust.isPending && <LoaderCircle className="animate-spin" />}
              Trust
            </Button>
          </div>
          <FormError message={formError} />
        </form>
      )}
    </section>
  );
}

export function FirewallPanel() {
  const titleId = useId();
  const isAdmin = useCan("admin");
  const q = useQuery(firewallQuery());
  const state = q.data;
  return (
    // Busy while fail2ban is read (a read runs fail2ban-client on the host and takes a moment).
    <Card
      role="region"
      aria-labelledby={titleId}
      aria-busy={q.isFetching}
      className="gap-4 py-4"
      data-testid="firewall"
    >
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-2 px-4">
        <div className="grid gap-1">
          <CardTitle id={titleId} className="text-base">
            Firewall (fail2ban)
          </CardTitle>
          <CardDescription>
            Banned addresses as fail2ban has them{state?.yourAddress ? `; you are ${state.yourAddress}` : ""}.
          </CardDescription>
        </div>
        <Button type="button" variant="outline" size="sm" onClick={() => void q.refetch()} disabled={q.isFetching}>
          <RotateCw className={cn(q.isFetching && "animate-spin")} aria-hidden />
          Refresh
        </Button>
      </CardHeader>
      <CardContent className="grid gap-5 px-4">
        {q.isPending && <p className="text-muted-foreground text-sm">Reading fail2ban…</p>}
        {q.isError && <FormError message={`Could not read the firewall: ${errorText(q.error)}`} />}
        {state && !state.available && (
          <div className="flex items-start gap-2 text-sm" role="status" data-testid="firewall-unavailable">
            <ShieldOff className="mt-0.5 size-4 text-muted-foreground" aria-hidden />
            <span>{state.reason}</span>
          </div>
        )}
        {state?.available && state.jails.map((j) => <JailTable key={j.name} jail={j} isAdmin={isAdmin} />)}
        {state?.available && isAdmin && <BanForm state={state} />}
        {state && <TrustedNetworks state={state} isAdmin={isAdmin} />}
      </CardContent>
    </Card>
  );
}

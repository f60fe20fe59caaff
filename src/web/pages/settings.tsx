import { useQuery } from "@tanstack/react-query";
import { RoleNotice } from "@/components/can";
import { PageHeader } from "@/components/layout/page-header";
import { FormError } from "@/components/ui/form-field";
import { AccountCard } from "@/features/account/account-card";
import { AccessTokensCard } from "@/features/api-tokens/access-tokens-card";
import { ApiTokensCard } from "@/features/api-tokens/api-tokens-card";
import { MetricsTokenCard } from "@/features/metrics-token/metrics-token-card";
import { OffsiteBackupsCard } from "@/features/offsite-backups/offsite-backups-card";
import { connectionStatusQuery, credentialsQuery } from "@/features/settings/api";
import { AudioSettingsCard } from "@/features/settings/audio-settings-card";
import { SecurityNotice } from "@/features/settings/security-notice";
import { ServiceCard } from "@/features/settings/service-card";
import { SERVICES } from "@/features/settings/services";
import { SipHostCard } from "@/features/softphone/sip-host-card";
import { UpdateCard } from "@/features/update/update-card";
import { useCan } from "@/hooks/use-role";
import { errorMessage } from "@/lib/error-text";

export function SettingsPage() {
  // Credentials and API tokens are the administrators' (the server refuses other roles).
  const isAdmin = useCan("admin");
  const credentials = useQuery({ ...credentialsQuery(), enabled: isAdmin });
  const status = useQuery({ ...connectionStatusQuery(), enabled: isAdmin });
  const error = credentials.error ?? status.error;

  return (
    <>
      <PageHeader
        title="API Settings"
        subtitle="Credentials for the VPS host, the FreePBX GraphQL API, device management and the other services"
      />
      {error && <FormError message={`Could not load the saved credentials: ${errorMessage(error)}`} />}
      {isAdmin && (
        <div className="grid gap-6 lg:grid-cols-2 [&>*]:min-w-0">
          {SERVICES.map((meta) => {
            const view = credentials.data?.find((c) => c.type === meta.type);
            const fromStatus = status.data?.[meta.type];
            const fallback = view ? { configured: view.configured, connected: view.connected } : undefined;
            return <ServiceCard key={meta.type} meta={meta} view={view} status={fromStatus ?? fallback} />;
          })}
        </div>
      )}
      {isAdmin && <SipHostCard />}
      {isAdmin && <AudioSettingsCard />}
      {isAdmin && <UpdateCard />}
      {isAdmin && <AccessTokensCard />}
      {isAdmin && <ApiTokensCard />}
      {isAdmin && <MetricsTokenCard />}
      {isAdmin && <OffsiteBackupsCard />}
      {!isAdmin && (
        <RoleNotice cannot="see or change the service credentials or tokens: an administrator manages them" />
      )}
      <AccountCard />
      <SecurityNotice />
    </>
  );
}

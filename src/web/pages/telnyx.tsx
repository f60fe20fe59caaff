import { useQuery } from "@tanstack/react-query";
import { LoaderCircle } from "lucide-react";
import { RoleNotice } from "@/components/can";
import { PageHeader } from "@/components/layout/page-header";
import { FormError } from "@/components/ui/form-field";
import { Skeleton } from "@/components/ui/skeleton";
import {
  connectionsQuery,
  failureText,
  isNotConfigured,
  phoneNumbersQuery,
  sipCredentialsQuery,
  sipServerQuery,
} from "@/features/telnyx/api";
import { ConnectionsList } from "@/features/telnyx/connections-list";
import { CredentialsList } from "@/features/telnyx/credentials-list";
import { GenerateCredentialForm } from "@/features/telnyx/generate-credential-form";
import { NotConfigured } from "@/features/telnyx/not-configured";
import { PhoneNumbersList } from "@/features/telnyx/phone-numbers-list";
import { SipServerCard } from "@/features/telnyx/sip-server-card";
import { CreateConnectionForm } from "@/forms/inventory-deferred";
import { useCan } from "@/hooks/use-role";

const Loading = () => (
  <div className="flex items-center gap-2 text-muted-foreground text-sm">
    <LoaderCircle className="size-4 animate-spin" aria-hidden />
    Loading...
  </div>
);

export function TelnyxPage() {
  const sipServer = useQuery(sipServerQuery());
  const connections = useQuery(connectionsQuery());
  const credentials = useQuery(sipCredentialsQuery());
  const numbers = useQuery(phoneNumbersQuery());
  // Creating, deleting, generating and routing are an operator's; a viewer reads the lists.
  const canWrite = useCan("operator");

  const header = (
    <PageHeader
      title="SIP Provider"
      subtitle="Telnyx SIP connections, extension credentials and phone number routing"
    />
  );

  if (isNotConfigured(connections.error)) {
    return (
      <>
        {header}
        <NotConfigured message={failureText(connections.error, "Telnyx is not configured.")} />
      </>
    );
  }

  const connectionList = connections.data ?? [];

  return (
    <>
      {header}
      {sipServer.data && <SipServerCard info={sipServer.data} />}
      {!canWrite && (
        <RoleNotice cannot="create or delete SIP connections, generate credentials or route phone numbers" />
      )}
      <div className={canWrite ? "grid gap-6 lg:grid-cols-2" : "grid gap-6"}>
        {canWrite && <CreateConnectionForm />}
        {connections.isPending ? (
          <Skeleton className="h-48" />
        ) : connections.isError ? (
          <FormError
            message={`Could not load connections: ${failureText(connections.error, connections.error.message)}`}
          />
        ) : (
          <ConnectionsList connections={connectionList} />
        )}
      </div>
      {canWrite && connectionList.length > 0 && <GenerateCredentialForm connections={connectionList} />}
      {numbers.isPending ? (
        <Loading />
      ) : numbers.isError ? (
        <FormError message={`Could not load phone numbers: ${failureText(numbers.error, numbers.error.message)}`} />
      ) : (
        <PhoneNumbersList numbers={numbers.data} connections={connectionList} />
      )}
      {credentials.isError && !isNotConfigured(credentials.error) && (
        <FormError
          message={`Could not load credentials: ${failureText(credentials.error, credentials.error.message)}`}
        />
      )}
      {credentials.data && credentials.data.length > 0 && <CredentialsList credentials={credentials.data} />}
    </>
  );
}

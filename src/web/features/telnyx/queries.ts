import { useQuery } from "@tanstack/react-query";
import { ApiError, getJson } from "@/lib/api";
import type {
  PhoneNumber,
  RegulatoryRequirement,
  SipConnection,
  SipCredential,
  SipServerInfo,
} from "../../../shared/telnyx";

/** Spec section 9: the regulatory lookup is fixed to Israel, local numbers. */
export const REQUIREMENTS_URL = "/api/telnyx/regulatory-requirements?countryCode=IL&phoneNumberType=local";

export const telnyxKeys = {
  sipServer: ["/api/telnyx/sip-server"],
  connections: ["/api/telnyx/connections"],
  credentials: ["/api/telnyx/credentials"],
  phoneNumbers: ["/api/telnyx/phone-numbers"],
  requirements: [REQUIREMENTS_URL],
} as const;

export const useSipServer = () => useQuery<SipServerInfo>({ queryKey: telnyxKeys.sipServer, refetchOnMount: "always" });
export const useConnections = () => useQuery<SipConnection[]>({ queryKey: telnyxKeys.connections });
export const useSipCredentials = () => useQuery<SipCredential[]>({ queryKey: telnyxKeys.credentials });
export const usePhoneNumbers = () =>
  useQuery<PhoneNumber[]>({ queryKey: telnyxKeys.phoneNumbers, refetchOnMount: "always" });

/** Fetched only while the dialog is open (spec section 7). */
export const useRequirements = (enabled: boolean) =>
  useQuery<RegulatoryRequirement[]>({
    queryKey: telnyxKeys.requirements,
    enabled,
    queryFn: async ({ signal }) => {
      try {
        return await getJson<RegulatoryRequirement[]>(REQUIREMENTS_URL, signal);
      } catch (err) {
        throw new Error(
          err instanceof ApiError && err.serverMessage ? err.serverMessage : "Failed to fetch requirements",
        );
      }
    },
  });

/** The server's message (Telnyx's own `detail` comes through as it), or the spec's fallback text. */
export function failureText(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.serverMessage) return err.serverMessage;
  if (err instanceof TypeError) return "Could not reach the server. Check the connection and try again.";
  return fallback;
}

/** A list call answered 400: the provider is not configured (every other failure is shown as it is). */
export const isNotConfigured = (err: unknown) => err instanceof ApiError && err.status === 400;

export const formatDate = (iso: string) => new Date(iso).toLocaleDateString("en-US");
export const formatDateTime = (iso: string) => new Date(iso).toLocaleString("en-US");

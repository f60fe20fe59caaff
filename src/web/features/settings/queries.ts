import { useQuery } from "@tanstack/react-query";
import type { ConnectionStatus, CredentialView } from "../../../shared/credentials";

export const credentialKeys = {
  all: ["/api/credentials"],
  status: ["/api/credentials", "connection-status"],
} as const;

export const useCredentials = () => useQuery<CredentialView[]>({ queryKey: credentialKeys.all });
export const useConnectionStatus = () => useQuery<ConnectionStatus>({ queryKey: credentialKeys.status });

import { QueryClient, type QueryFunction } from "@tanstack/react-query";
import { getJson } from "./api";

/**
 * Query keys are URL path arrays (lib/query-keys.ts: `["/api/extensions"]`,
 * `["/api/extensions", id, "provisioning"]`); the default query function GETs the segments joined with "/".
 */
export const defaultQueryFn: QueryFunction = ({ queryKey, signal }) =>
  getJson(queryKey.map((segment) => String(segment)).join("/"), signal);

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: defaultQueryFn,
        retry: false,
        refetchOnWindowFocus: false,
        refetchInterval: false,
        staleTime: Number.POSITIVE_INFINITY,
      },
      mutations: { retry: false },
    },
  });
}

export const queryClient = createQueryClient();

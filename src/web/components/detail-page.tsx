/**
 * What a one-object page (a call, an AI call) is made of around its body: the link back to its list, a Retry
 * for a failed read, and following an object in progress through a list the sync socket keeps fresh.
 */
import { type QueryKey, type UseQueryOptions, useQuery } from "@tanstack/react-query";
import { Link, type LinkProps } from "@tanstack/react-router";
import { ArrowLeft, RotateCw } from "lucide-react";
import { type ReactNode, useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";

export function BackLink({ to, children }: { to: LinkProps["to"]; children: ReactNode }) {
  return (
    <Link
      to={to}
      className="inline-flex w-fit items-center gap-1.5 text-muted-foreground text-sm underline-offset-4 hover:text-foreground hover:underline"
    >
      <ArrowLeft className="size-4" aria-hidden />
      {children}
    </Link>
  );
}

export function RetryButton({ query }: { query: { isFetching: boolean; refetch: () => unknown } }) {
  return (
    <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
      <RotateCw className={cn(query.isFetching && "animate-spin")} />
      Retry
    </Button>
  );
}

/**
 * While `live`, each new answer of `source` (a list of things in progress, refetched by the sync socket's
 * events, never polled) refetches the page's object, so the page follows it to its end.
 */
export function useFollowLive<T, K extends QueryKey>(
  source: UseQueryOptions<T, Error, T, K>,
  live: boolean,
  refetch: () => unknown,
) {
  const active = useQuery({ ...source, enabled: live });
  const seen = useRef(active.dataUpdatedAt);
  useEffect(() => {
    if (active.dataUpdatedAt === seen.current) return;
    seen.current = active.dataUpdatedAt;
    if (live) void refetch();
  }, [live, active.dataUpdatedAt, refetch]);
}

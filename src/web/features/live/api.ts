/**
 * The live PBX from Asterisk's manager interface (AMI): registrations, device states, trunk
 * registrations, the number of calls in progress, and failed SIP sign-ins. Never polled: the sync
 * socket's `pbx-status-updated` / `pbx-security-updated` make these stale (lib/query-keys.ts).
 */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { errorText } from "@/lib/error-text";
import { queryKeys } from "@/lib/query-keys";
import type { ExtensionLive, PbxLiveStatus, PbxSecurity, TrunkLive } from "../../../shared/live";

/** GET /api/pbx/status */
export const pbxLiveQuery = () => queryOptions<PbxLiveStatus>({ queryKey: queryKeys.pbxLive });

/** GET /api/pbx/security */
export const pbxSecurityQuery = () => queryOptions<PbxSecurity>({ queryKey: queryKeys.pbxSecurity });

/**
 * What the console knows about one live object: still loading, unknown (AMI not connected or the
 * status could not be read; `reason` says why), or known (`live` null: Asterisk has no such endpoint).
 */
export type LiveLookup<T> =
  | { status: "loading" }
  | { status: "unknown"; reason: string }
  | { status: "known"; live: T | null };

/** The reason the views are unknown, from the status or from the failed request. */
export function unknownReason(status: { connected: boolean; reason: string | null } | undefined, error: unknown) {
  if (status && !status.connected) return status.reason ?? "The Asterisk manager interface is not connected.";
  return `The live status could not be read: ${errorText(error)}`;
}

function useLiveLookup<T>(pick: (s: PbxLiveStatus) => T | null): LiveLookup<T> {
  const q = useQuery({
    ...pbxLiveQuery(),
    select: (s): LiveLookup<T> =>
      s.connected ? { status: "known", live: pick(s) } : { status: "unknown", reason: unknownReason(s, null) },
  });
  if (q.data) return q.data;
  if (q.isError) return { status: "unknown", reason: unknownReason(undefined, q.error) };
  return { status: "loading" };
}

/** One extension's registration and device state, selected from GET /api/pbx/status. */
export function useLiveExtension(extension: string): LiveLookup<ExtensionLive> {
  return useLiveLookup((s) => s.extensions.find((e) => e.extension === extension) ?? null);
}

/** Every extension's lookup from one read of the status (a table's rows), and its rank for sorting. */
export interface LiveExtensions {
  lookup: (extension: string) => LiveLookup<ExtensionLive>;
  /** Registered 2, not registered 1, not known 0. */
  rank: (extension: string) => number;
}

/** By number, or the reason the status is unknown (a stable function: `select` runs once per answer). */
const byExtension = (s: PbxLiveStatus): Map<string, ExtensionLive> | string =>
  s.connected ? new Map(s.extensions.map((e) => [e.extension, e])) : unknownReason(s, null);

export function useLiveExtensions(): LiveExtensions {
  const q = useQuery({ ...pbxLiveQuery(), select: byExtension });
  return useMemo(() => {
    const data = q.data;
    if (data instanceof Map) {
      return {
        lookup: (extension) => ({ status: "known", live: data.get(extension) ?? null }),
        rank: (extension) => {
          const live = data.get(extension);
          return live ? (live.registered ? 2 : 1) : 0;
        },
      };
    }
    const unknown: LiveLookup<ExtensionLive> =
      typeof data === "string"
        ? { status: "unknown", reason: data }
        : q.isError
          ? { status: "unknown", reason: unknownReason(undefined, q.error) }
          : { status: "loading" };
    return { lookup: () => unknown, rank: () => 0 };
  }, [q.data, q.isError, q.error]);
}

/** One trunk's registration and reachability, selected from GET /api/pbx/status. */
export function useLiveTrunk(name: string): LiveLookup<TrunkLive> {
  return useLiveLookup((s) => s.trunks.find((t) => t.name === name) ?? null);
}

/**
 * A trunk counts as up when it is registered, or (IP-authenticated, no registration) when it answers
 * qualify; never when qualify says it is unreachable.
 */
export function trunkIsUp(t: TrunkLive): boolean {
  if (t.reachable === false) return false;
  return t.registration === "registered" || (t.registration === "not-registering" && t.reachable === true);
}

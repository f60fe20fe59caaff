/**
 * The Sync screen's reads and imports: the PBX compared with the console's own
 * list, per kind (extensions, trunks, ring groups, queues, IVRs, announcements); an import's plan, then the
 * import of that plan.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useStartJob } from "@/features/jobs/api";
import { stalePlanOf } from "@/features/review/stale-plan";
import { sendJson } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import type { CompareResponse } from "../../../shared/pbx";
import type { ImportKind, ImportPlan } from "../../../shared/plan";

/** The kinds the Sync screen imports (shared/plan.ts). */
export type SyncKind = ImportKind;

/** How the screen names one and several objects of a kind. */
export const SYNC_WORDS: Record<SyncKind, { one: string; many: string }> = {
  extensions: { one: "extension", many: "extensions" },
  trunks: { one: "trunk", many: "trunks" },
  "ring-groups": { one: "ring group", many: "ring groups" },
  queues: { one: "queue", many: "queues" },
  ivrs: { one: "IVR", many: "IVRs" },
  announcements: { one: "announcement", many: "announcements" },
};

const COMPARISON = {
  extensions: queryKeys.extensionsComparison,
  trunks: queryKeys.trunksComparison,
  "ring-groups": queryKeys.ringGroupsComparison,
  queues: queryKeys.queuesComparison,
  ivrs: queryKeys.ivrsComparison,
  announcements: queryKeys.announcementsComparison,
} as const;
const LIST = {
  extensions: queryKeys.extensions,
  trunks: queryKeys.trunks,
  "ring-groups": queryKeys.ringGroups,
  queues: queryKeys.queues,
  ivrs: queryKeys.ivrs,
  announcements: queryKeys.announcements,
} as const;
/** The field of a plan's or an import's body that holds the selection. */
const SELECTION_FIELD: Record<SyncKind, string> = {
  extensions: "extensions",
  trunks: "trunks",
  "ring-groups": "ringGroups",
  queues: "queues",
  ivrs: "ivrs",
  announcements: "announcements",
};

/** The PBX changes without telling the console: read it again whenever the tab opens. */
export const comparisonQuery = <Row>(kind: SyncKind) =>
  queryOptions<CompareResponse<Row>>({ queryKey: COMPARISON[kind], refetchOnMount: "always" });

export type ImportRequest = { mode: "all"; keys: [] } | { mode: "selected"; keys: string[] };

/**
 * The comparison depends on the console's own list as well as the PBX. The sync socket refetches
 * the list on its kind's event (`extensions-updated`, `ring-groups-updated`…); whenever the list's data actually changes
 * (an import in another console, a create or delete anywhere), the comparison is fetched again too.
 * The first data seen is only remembered.
 */
export function useRefetchComparisonOnListChange(kind: SyncKind) {
  const client = useQueryClient();
  const list = useQuery<unknown[]>({ queryKey: LIST[kind] });
  const seen = useRef<unknown[] | undefined>(undefined);
  useEffect(() => {
    if (list.data === undefined) return;
    const before = seen.current;
    seen.current = list.data;
    // Structural sharing keeps the same array when nothing changed.
    if (before !== undefined && before !== list.data) {
      void client.invalidateQueries({ queryKey: COMPARISON[kind], exact: true });
    }
  }, [list.data, client, kind]);
}

/** The body of a plan or an import: the selection under the kind's name (`extensions`, `ringGroups`…). */
const selection = (kind: SyncKind, req: ImportRequest) => ({ [SELECTION_FIELD[kind]]: req.keys, mode: req.mode });

/**
 * The plan of an import (ADR 0025 "Sync import"): what importing the selection would do in the console,
 * per PBX object. Reading the PBX takes a moment; nothing is written.
 */
export const useImportPlan = (kind: SyncKind) =>
  useMutation<ImportPlan, Error, ImportRequest>({
    mutationFn: (req) => sendJson<ImportPlan>("POST", `/api/sync/${kind}/plan`, selection(kind, req)),
  });

/**
 * Imports exactly the reviewed plan (its fingerprint): a job (ADR 0024) that answers at once with its id.
 * A 409 either names a running job or says the PBX or the console changed since the plan and carries the
 * new one (`staleImportPlanOf`).
 */
export const useStartImport = (kind: SyncKind) =>
  useStartJob((req: ImportRequest & { fingerprint: string }) => ({
    path: `/api/sync/${kind}/import`,
    body: { ...selection(kind, req), fingerprint: req.fingerprint },
  }));

/** The new plan a 409 "changed since this plan" carries; undefined for any other error. */
export const staleImportPlanOf = (err: unknown) => stalePlanOf<ImportPlan>(err);

/** After an import: the console's list, then the comparison (reusing a read already in flight). */
export function useRefreshAfterImport(kind: SyncKind) {
  const client = useQueryClient();
  return async () => {
    // When the list changed, useRefetchComparisonOnListChange reads the PBX again; otherwise (or when the
    // sync socket already brought the change) the comparison is read here.
    const before = client.getQueryData(LIST[kind]);
    await client.invalidateQueries({ queryKey: LIST[kind] });
    if (client.getQueryData(LIST[kind]) === before) {
      await client.invalidateQueries({ queryKey: COMPARISON[kind], exact: true }, { cancelRefetch: false });
    }
  };
}

/**
 * The Sync screen's comparison: each row on the live PBX next to the console's
 * row of the same number (extensions, ring groups, queues) or name (trunks). A row needs sync when
 * both sides have it and the shown field differs (ring groups and queues: any field the import writes).
 */
import { extensions, trunks } from "../../../db/schema";
import type { CallGroupComparison, CompareResponse, ExtensionComparison, TrunkComparison } from "../../../shared/pbx";
import { byNumber } from "../../../shared/sort";
import type { Deps } from "../../core/deps";
import { type CallGroupKind, compareCallGroups, readPbxQueues, readPbxRingGroups } from "./call-groups";
import { type PbxReadDeps, readPbxExtensions, readPbxTrunks } from "./read";

export async function compareExtensions(
  deps: PbxReadDeps & Pick<Deps, "db">,
): Promise<CompareResponse<ExtensionComparison>> {
  const pbx = await readPbxExtensions(deps);
  const mine = new Map(
    deps.db
      .select()
      .from(extensions)
      .all()
      .map((e) => [e.extension, e]),
  );
  const comparison: ExtensionComparison[] = pbx.rows
    .sort((a, b) => byNumber(a.extension, b.extension))
    .map((p) => {
      const d = mine.get(p.extension);
      return {
        extension: p.extension,
        inDashboard: Boolean(d),
        needsSync: Boolean(d) && (d?.name ?? null) !== p.name,
        freepbx: { name: p.name },
        dashboard: { name: d?.name ?? null },
      };
    });
  return { freepbxCount: pbx.rows.length, dashboardCount: mine.size, comparison, via: pbx.via };
}

export async function compareTrunks(deps: Pick<Deps, "db" | "credentials">): Promise<CompareResponse<TrunkComparison>> {
  const pbx = await readPbxTrunks(deps);
  const mine = new Map(
    deps.db
      .select()
      .from(trunks)
      .all()
      .map((t) => [t.name, t]),
  );
  const comparison: TrunkComparison[] = pbx.rows.map((p) => {
    const d = mine.get(p.name);
    return {
      name: p.name,
      inDashboard: Boolean(d),
      needsSync: Boolean(d) && (d?.host ?? null) !== p.host,
      freepbx: { host: p.host },
      dashboard: { host: d?.host ?? null },
    };
  });
  return { freepbxCount: pbx.rows.length, dashboardCount: mine.size, comparison, via: pbx.via };
}

/** The PBX's ring groups or queues next to the console's (SSH only). */
export async function compareCallGroupsOnPbx(
  deps: PbxReadDeps & Pick<Deps, "db">,
  kind: CallGroupKind,
): Promise<CompareResponse<CallGroupComparison>> {
  const pbx = kind === "ringGroup" ? await readPbxRingGroups(deps) : await readPbxQueues(deps);
  const { rows, consoleCount } = compareCallGroups(deps, kind, pbx.rows);
  return {
    freepbxCount: pbx.rows.length,
    dashboardCount: consoleCount,
    comparison: rows.map((r) => ({
      number: r.number,
      inDashboard: r.inDashboard,
      needsSync: r.needsSync,
      freepbx: { name: r.pbxName },
      dashboard: { name: r.consoleName },
    })),
    via: pbx.via,
  };
}

/** The answer of GET /api/config/generate: counts, the script and its SQL per kind, and what was left out. */
export type GeneratedKind = "trunk" | "extension" | "outboundRoute" | "inboundRoute" | "pttGroup";

export interface GeneratedConfig {
  summary: {
    totalTrunks: number;
    totalExtensions: number;
    totalOutboundRoutes: number;
    totalInboundRoutes: number;
    totalPttGroups?: number;
  };
  deployment: { script: string; steps: string[] };
  sql: {
    trunks: string[];
    extensions: string[];
    outboundRoutes: string[];
    inboundRoutes: string[];
    pttGroups?: string[];
  };
  /** Objects left out because FreePBX cannot hold one of their values. */
  refused?: { kind: GeneratedKind; key: string; reason: string }[];
}

export const KIND_LABEL: Record<GeneratedKind, string> = {
  trunk: "Trunk",
  extension: "Extension",
  outboundRoute: "Outbound route",
  inboundRoute: "Inbound route",
  pttGroup: "Page group",
};

/** GET /api/config/generate (spec section 7, plus page groups and the refused items). */
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

export const generatorKeys = { config: ["/api/config/generate"] } as const;

export const KIND_LABEL: Record<GeneratedKind, string> = {
  trunk: "Trunk",
  extension: "Extension",
  outboundRoute: "Outbound route",
  inboundRoute: "Inbound route",
  pttGroup: "Page group",
};

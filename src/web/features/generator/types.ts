/**
 * The answer of GET /api/config/generate: the SQL per kind, what was left out, the steps and the counts.
 * The script itself is not in it (the SQL is sent once, ADR 0032): it is GET /api/config/script.sql.
 */
export type GeneratedKind =
  | "trunk"
  | "extension"
  | "ringGroup"
  | "queue"
  | "announcement"
  | "ivr"
  | "outboundRoute"
  | "inboundRoute"
  | "pttGroup";

export interface GeneratedConfig {
  summary: {
    totalTrunks: number;
    totalExtensions: number;
    totalOutboundRoutes: number;
    totalInboundRoutes: number;
    totalPttGroups?: number;
    totalRingGroups?: number;
    totalQueues?: number;
    totalIvrs?: number;
    totalAnnouncements?: number;
  };
  deployment: { steps: string[] };
  sql: {
    trunks: string[];
    extensions: string[];
    outboundRoutes: string[];
    inboundRoutes: string[];
    pttGroups?: string[];
    ringGroups?: string[];
    queues?: string[];
    announcements?: string[];
    ivrs?: string[];
    /** Destinations to IVRs and announcements, written after every object (the script's second pass). */
    destinations?: string[];
  };
  /** Objects left out because FreePBX cannot hold one of their values. */
  refused?: { kind: GeneratedKind; key: string; reason: string }[];
}

export const KIND_LABEL: Record<GeneratedKind, string> = {
  trunk: "Trunk",
  extension: "Extension",
  ringGroup: "Ring group",
  queue: "Queue",
  announcement: "Announcement",
  ivr: "IVR",
  outboundRoute: "Outbound route",
  inboundRoute: "Inbound route",
  pttGroup: "Page group",
};

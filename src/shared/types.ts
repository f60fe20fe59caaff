/**
 * Records as the API returns them (dates as ISO strings). Lists never carry
 * SIP secrets: `hasSecret` says whether one is stored.
 */
import type { destinationTypes, trunkAuthTypes, trunkTypes } from "./schemas";

export interface Extension {
  id: number;
  extension: string;
  name: string;
  email: string | null;
  position: string | null;
  personalPhone: string | null;
  voicemail: boolean;
  hasSecret: boolean;
  status: string;
  userId: string | null;
  createdAt: string;
}

export interface Trunk {
  id: number;
  name: string;
  type: (typeof trunkTypes)[number];
  host: string;
  port: number | null;
  username: string | null;
  hasSecret: boolean;
  fromDomain: string | null;
  fromUser: string | null;
  contactUser: string | null;
  authType: (typeof trunkAuthTypes)[number];
  registrationEnabled: boolean;
  rewriteContact: boolean;
  trustRpid: boolean;
  sendRpid: boolean;
  status: string;
  createdAt: string;
}

export interface InboundRoute {
  id: number;
  description: string;
  didNumber: string | null;
  trunkId: number | null;
  destination: string;
  destinationType: (typeof destinationTypes)[number];
  createdAt: string;
}

export interface OutboundRoute {
  id: number;
  name: string;
  dialPatterns: string[];
  trunkId: number;
  routeOrder: number;
  createdAt: string;
}

export interface PttGroup {
  id: number;
  name: string;
  extension: string;
  description: string | null;
  members: string[];
  duplex: boolean;
  autoAnswer: boolean;
  createdAt: string;
}

/** Softphone provisioning payload (spec section 3). */
export interface ProvisioningConfig {
  sip_server: string;
  sip_port: number;
  transport: string;
  username: string;
  password: string;
  display_name: string;
  ptt_enabled: boolean;
  ptt_groups: { id: number; name: string; number: string; mode: "duplex" | "simplex" }[];
}

export interface ProvisioningResponse {
  config: ProvisioningConfig;
  link: string;
  qrCode: string;
}

/** GET /api/vps/status */
export interface VpsStatus {
  configured: boolean;
  /** Where the numbers come from: "hostinger", "host" (this machine's /proc) or "none". */
  source: "hostinger" | "host" | "none";
  message: string | null;
  status: string | null;
  ipAddress: string | null;
  hostname: string | null;
  cpu: number | null;
  memory: number | null;
  disk: number | null;
  metrics: {
    cpu: number;
    memory: number;
    disk: number;
    uptime: number;
    network: { in: number; out: number };
  } | null;
}

export interface WizardDeployResult {
  created: { extensions: string[]; trunk: string | null; ivr: string | null };
  existing: { extensions: string[]; trunk: string | null; ivr: string | null };
}

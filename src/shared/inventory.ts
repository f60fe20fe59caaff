/**
 * The PBX inventory: extensions, trunks, inbound and outbound routes, PTT (page) groups.
 * One zod schema per entity (the server validates every body with it, the forms use it
 * through the zod resolver) and the records as the API returns them (dates as ISO strings;
 * lists never carry SIP secrets: `hasSecret` says whether one is stored).
 */
import { z } from "zod";
import { optionalText, required, stringList } from "./fields";

const SIP_SECRET_MIN = 12;

export const extensionSchema = z.object({
  extension: required("Extension", 10).regex(/^\d+$/, "Extension must contain digits only"),
  name: required("Name", 100),
  email: z
    .union([z.literal(""), z.email("Enter a valid email address").max(255)])
    .optional()
    .nullable()
    .transform((v) => (v ? v : null)),
  position: optionalText("Position", 100),
  personalPhone: optionalText("Personal phone", 20),
  voicemail: z.boolean().default(false),
  /** Empty → the server generates a strong one. A weak SIP secret is how PBXs get robbed. */
  secret: optionalText("Secret", 255).refine((v) => v === null || v.length >= SIP_SECRET_MIN, {
    message: `Secret must be at least ${SIP_SECRET_MIN} characters (leave it empty to generate one)`,
  }),
  status: z.string().max(20).default("available"),
});

/** A DNS host name (labels of letters, digits and hyphens). */
export const HOST_RE =
  /^(?=.{1,255}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/;

export const trunkTypes = ["sip", "iax", "dahdi"] as const;
export const trunkAuthTypes = ["outbound", "inbound", "both"] as const;

export const trunkSchema = z.object({
  name: required("Name", 50),
  type: z.enum(trunkTypes, { error: "Type must be sip, iax or dahdi" }),
  host: required("Host", 255),
  port: z
    .number()
    .int("Port must be a whole number")
    .min(1, "Port must be between 1 and 65535")
    .max(65535, "Port must be between 1 and 65535")
    .optional()
    .nullable(),
  username: optionalText("Username", 100),
  secret: optionalText("Secret", 255),
  fromDomain: optionalText("From domain", 255),
  fromUser: optionalText("From user", 100),
  contactUser: optionalText("Contact user", 100),
  authType: z.enum(trunkAuthTypes).default("outbound"),
  registrationEnabled: z.boolean().default(false),
  rewriteContact: z.boolean().default(false),
  trustRpid: z.boolean().default(false),
  sendRpid: z.boolean().default(false),
  status: z.string().max(20).default("unregistered"),
});

export const destinationTypes = ["extension", "ivr", "voicemail", "queue"] as const;

export const inboundRouteSchema = z.object({
  description: required("Description", 100),
  didNumber: optionalText("DID number", 20),
  trunkId: z.number().int().positive().optional().nullable(),
  destination: required("Destination", 100),
  destinationType: z.enum(destinationTypes, {
    error: "Destination type must be extension, ivr, voicemail or queue",
  }),
});

/** FreePBX dial-pattern characters (issue 3): 0-9 * # + - . [ ] x X n N z Z. */
export const DIAL_PATTERN_RE = /^[0-9*#+\-.[\]xXnNzZ]+$/;

export const outboundRouteSchema = z.object({
  name: required("Name", 50),
  dialPatterns: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(100)
        .regex(DIAL_PATTERN_RE, "Dial patterns may only contain 0-9 * # + - . [ ] X N Z")
        .transform((p) => p.toUpperCase()),
    )
    .min(1, "Add at least one dial pattern"),
  trunkId: z.number({ error: "Trunk is required" }).int().positive("Trunk is required"),
  routeOrder: z.number().int().min(0).default(0),
});

export const pttGroupSchema = z.object({
  name: required("Name", 50),
  extension: required("Extension", 10).regex(/^\d+$/, "Extension must contain digits only"),
  description: optionalText("Description", 255),
  members: stringList("member", 10).min(1, "Choose at least one member"),
  duplex: z.boolean().default(false),
  autoAnswer: z.boolean().default(true),
});

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

/** What a softphone reads to configure itself: SIP server and credentials, and its PTT groups. */
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

/**
 * How each outside service appears on the API Settings screen. The fields
 * themselves come from SERVICE_FIELDS (shared with the server); this adds only
 * presentation: titles, toast wording and the kind of input per field.
 */
import {
  Activity,
  Bot,
  Cable,
  Database,
  type LucideIcon,
  Network,
  Send,
  Server,
  Smartphone,
  Terminal,
} from "lucide-react";
import type { ServiceType } from "../../../shared/credentials";

export interface InputSpec {
  type?: "text" | "url" | "number";
  multiline?: boolean;
  placeholder?: string;
  /** Shown as read-only information, not as an input (e.g. the pinned SSH host key). */
  display?: boolean;
}

export interface ServiceMeta {
  type: ServiceType;
  title: string;
  description: string;
  icon: LucideIcon;
  /** Success toast after a save. */
  savedText: string;
  /** Failure toast after a save when the server gives no message. */
  saveFailedText: string;
  inputs: Record<string, InputSpec>;
  /** Renames form fields for POST /api/credentials/test (device management uses publicKey/secretKey). */
  testNames?: Record<string, string>;
}

/** The screen's order: the VPS, PBX and device-management services first, then the others. */
export const SERVICES: ServiceMeta[] = [
  {
    type: "hostinger",
    title: "Hostinger VPS API",
    description: "Server status, metrics and power controls for the VPS.",
    icon: Server,
    savedText: "Hostinger API credentials saved successfully",
    saveFailedText: "Failed to save Hostinger credentials",
    inputs: { vmId: { type: "text", placeholder: "Blank: found automatically" } },
  },
  {
    type: "freepbx",
    title: "FreePBX GraphQL API",
    description: "Reads and writes extensions and trunks on the PBX (Admin → API → Applications).",
    icon: Network,
    savedText: "FreePBX API credentials saved successfully",
    saveFailedText: "Failed to save FreePBX credentials",
    inputs: { apiUrl: { type: "url", placeholder: "e.g. https://pbx.example.com/admin/api/api" } },
  },
  {
    type: "tinymdm",
    title: "TinyMDM API",
    description: "Mobile device management for the handsets.",
    icon: Smartphone,
    savedText: "TinyMDM API credentials saved successfully",
    saveFailedText: "Failed to save TinyMDM credentials",
    inputs: {},
    testNames: { clientId: "publicKey", clientSecret: "secretKey" },
  },
  {
    type: "telnyx",
    title: "Telnyx API",
    description: "SIP connections, credentials and phone numbers (API v2 key).",
    icon: Cable,
    savedText: "Telnyx API credentials saved successfully",
    saveFailedText: "Failed to save Telnyx credentials",
    inputs: {},
  },
  {
    type: "openai",
    title: "OpenAI API",
    description: "Realtime voice for the AI assistants, and the signing secret of its call webhooks.",
    icon: Bot,
    savedText: "OpenAI API credentials saved successfully",
    saveFailedText: "Failed to save OpenAI credentials",
    inputs: {},
  },
  {
    type: "dialer",
    title: "Web Dialer Push",
    description: "Where extension configs are pushed for the web dialer, and the secret that signs them.",
    icon: Send,
    savedText: "Web dialer push credentials saved successfully",
    saveFailedText: "Failed to save web dialer push credentials",
    inputs: { apiUrl: { type: "url", placeholder: "e.g. https://dialer.example.com/hooks/pbx" } },
  },
  {
    type: "ssh",
    title: "PBX Host (SSH)",
    description: "Shell access to the PBX host for deployment and reloads. Use a key, a password, or both.",
    icon: Terminal,
    savedText: "PBX host SSH credentials saved successfully",
    saveFailedText: "Failed to save SSH credentials",
    inputs: {
      host: { placeholder: "e.g. pbx.example.com" },
      port: { type: "number", placeholder: "Blank: 22" },
      username: { placeholder: "e.g. root" },
      privateKey: { multiline: true, placeholder: "-----BEGIN OPENSSH PRIVATE KEY-----" },
      hostKeyFingerprint: { display: true },
    },
  },
  {
    type: "ami",
    title: "Asterisk Manager (AMI)",
    description:
      "Live registrations, calls in progress and failed sign-ins. Blank: read from /etc/asterisk/manager.conf on this host.",
    icon: Activity,
    savedText: "Asterisk manager credentials saved successfully",
    saveFailedText: "Failed to save Asterisk manager credentials",
    inputs: {
      host: { placeholder: "e.g. 127.0.0.1" },
      port: { type: "number", placeholder: "Blank: 5038" },
      username: { placeholder: "e.g. admin" },
    },
  },
  {
    type: "cdr",
    title: "Call Records Database",
    description:
      "The call history (read only). Blank: the database in /etc/freepbx.conf on this host (CDRDBNAME, asteriskcdrdb).",
    icon: Database,
    savedText: "Call records database saved successfully",
    saveFailedText: "Failed to save the call records database",
    inputs: { databaseUrl: { placeholder: "Blank: from /etc/freepbx.conf" } },
  },
];

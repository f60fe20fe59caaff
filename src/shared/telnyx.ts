/** The SIP provider (Telnyx) screen: wire shapes and request schemas. */
import { z } from "zod";

export interface SipConnection {
  id: string;
  connection_name: string;
  user_name: string;
  created_at: string;
}
export interface SipCredential {
  id: number;
  name: string;
  sip_username: string;
  /** Masked in lists; GET /api/telnyx/credentials/{id}/password reveals it. */
  sip_password: string;
  extension: string | null;
  connection_id: string;
  created_at: string;
}
export interface PhoneNumber {
  id: string;
  phone_number: string;
  status: string;
  connection_id: string | null;
  connection_name: string | null;
  updated_at: string;
}
export interface SipServerInfo {
  udp: string;
  tls: string;
}
export interface RegulatoryRequirement {
  description: string;
  field_type: string;
  acceptance_criteria: { time_limit: string | null; locality_limit: string | null };
  record_type: string;
}

export const createConnectionSchema = z.object({
  connectionName: z
    .string({ error: "Connection name is required" })
    .trim()
    .min(1, "Connection name is required")
    .max(100),
  username: z
    .string()
    .trim()
    .regex(/^$|^[A-Za-z0-9]{4,32}$/, "Username: 4-32 letters and digits")
    .optional(),
  password: z
    .string()
    .regex(/^$|^.{8,128}$/, "Password: 8-128 characters")
    .optional(),
});

export const createSipCredentialSchema = z.object({
  connectionId: z
    .string({ error: "Connection and extension are required" })
    .trim()
    .min(1, "Connection and extension are required"),
});

export const routeNumberSchema = z.object({
  /** "" or null: not routed. */
  connectionId: z.string().trim().nullable().optional(),
});

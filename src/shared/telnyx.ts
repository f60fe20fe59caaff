/** The SIP provider (Telnyx) screen: wire shapes and request schemas. */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

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

export const createConnectionSchema = lazySchema(() =>
  z.object({
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
  }),
);

export const createSipCredentialSchema = lazySchema(() =>
  z.object({
    connectionId: z
      .string({ error: "Connection and extension are required" })
      .trim()
      .min(1, "Connection and extension are required"),
  }),
);

export const routeNumberSchema = lazySchema(() =>
  z.object({
    /** "" or null: not routed. */
    connectionId: z.string().trim().nullable().optional(),
  }),
);

/**
 * GET /api/telnyx/regulatory-requirements query: `countryCode` (ISO 3166
 * alpha-2, default IL) and `phoneNumberType` (e.g. local, default local).
 * The server checks their form and answers 400 with its own message.
 */
export const requirementsQuerySchema = lazySchema(() =>
  z.object({
    countryCode: z.string().optional(),
    phoneNumberType: z.string().optional(),
  }),
);

export type CreateConnection = z.output<typeof createConnectionSchema>;
export type CreateSipCredential = z.output<typeof createSipCredentialSchema>;
export type RouteNumber = z.output<typeof routeNumberSchema>;
export type RequirementsQuery = z.output<typeof requirementsQuerySchema>;

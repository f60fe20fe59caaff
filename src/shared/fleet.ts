/**
 * The fleet hub (ADR 0076): a console lists other consoles (members) by URL and REST API token, their health
 * live, and searches all of them at once. Each member answers `GET /api/fleet/self` and
 * `GET /api/fleet/self/search` about itself; the hub reaches it over https with its certificate pinned.
 */
import { z } from "zod";
import { API_TOKEN_PREFIX } from "./api-tokens";
import { serviceUrl } from "./credentials";
import { lazySchema } from "./lazy-schema";

export const FLEET_LIMITS = { url: 500, token: 200, query: 100, searchItems: 50 } as const;

export const FLEET_URL_NOT_HTTPS =
  "Use an https:// URL: the member's token must not cross the network unencrypted, and its certificate is pinned";
export const FLEET_URL_HAS_PATH =
  "Enter the console's address only (https://host[:port]), without a path, query or fragment";
export const FLEET_TOKEN_FORMAT = `Paste a REST API token made on that console (it starts with ${API_TOKEN_PREFIX})`;

/** POST /api/fleet/members: the member console's address and a REST API token made there. */
export const addFleetMemberSchema = lazySchema(() =>
  z.object({
    url: z
      .string({ error: "URL is required" })
      .trim()
      .min(1, "URL is required")
      .max(FLEET_LIMITS.url, `URL must be at most ${FLEET_LIMITS.url} characters`)
      .pipe(serviceUrl("https://pbx2.example.com"))
      .superRefine((value, ctx) => {
        let u: URL;
        try {
          u = new URL(value);
        } catch {
          return; // serviceUrl has said so
        }
        if (u.protocol !== "https:") ctx.addIssue({ code: "custom", message: FLEET_URL_NOT_HTTPS });
        else if ((u.pathname !== "/" && u.pathname !== "") || u.search || u.hash)
          ctx.addIssue({ code: "custom", message: FLEET_URL_HAS_PATH });
      })
      // One spelling per console: the origin (scheme, lower-case host, port only when not 443).
      .transform((value) => {
        try {
          return new URL(value).origin;
        } catch {
          return value;
        }
      }),
    token: z
      .string({ error: "Token is required" })
      .trim()
      .min(1, "Token is required")
      .max(FLEET_LIMITS.token, `Token must be at most ${FLEET_LIMITS.token} characters`)
      .regex(/^pbxt_[A-Za-z0-9_-]+$/, FLEET_TOKEN_FORMAT),
  }),
);
export type AddFleetMember = z.infer<typeof addFleetMemberSchema>;

/** `?q=` of the searches: the text to find (names, numbers, hosts). */
export const fleetSearchQuerySchema = lazySchema(() =>
  z.object({
    q: z
      .string({ error: "Enter something to search for" })
      .trim()
      .min(1, "Enter something to search for")
      .max(FLEET_LIMITS.query, `Search text must be at most ${FLEET_LIMITS.query} characters`),
  }),
);
/** POST /api/fleet/members/:id/repin: the fingerprint the administrator checked and accepts. */
export const repinFleetMemberSchema = lazySchema(() =>
  z.object({
    fingerprint: z
      .string({ error: "Fingerprint is required" })
      .trim()
      .toUpperCase()
      .regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, "Enter the SHA-256 fingerprint as 32 pairs like AB:CD:…"),
  }),
);
export type RepinFleetMember = z.infer<typeof repinFleetMemberSchema>;

export type FleetSearchQuery = z.infer<typeof fleetSearchQuerySchema>;

/** What a console says about itself (GET /api/fleet/self). A figure it cannot know now is null. */
export interface FleetSelf {
  name: string;
  version: string;
  pbx: {
    /** The PBX answers the console's manager connection; null when none is configured. */
    reachable: boolean | null;
    /** The manager connection's state: connected, or why not. */
    ami: string;
  };
  /** Extensions registered of those the PBX has; null while AMI is not connected. */
  registrations: { registered: number; total: number } | null;
  activeCalls: number | null;
  alertsFiring: number;
  /** ISO time of the last successful deployment, null when none. */
  lastDeployAt: string | null;
  /** Seconds since the newest console backup, null when there is none. */
  backupAgeSeconds: number | null;
}

export const FLEET_SEARCH_KINDS = ["extension", "inbound-route", "trunk", "ring-group", "queue", "page-group"] as const;
export type FleetSearchKind = (typeof FLEET_SEARCH_KINDS)[number];

export const FLEET_KIND_LABELS: Record<FleetSearchKind, string> = {
  extension: "Extension",
  "inbound-route": "Inbound route",
  trunk: "Trunk",
  "ring-group": "Ring group",
  queue: "Queue",
  "page-group": "PTT group",
};

/** One object of a console matching a search; `url` is its screen's path on that console. */
export interface FleetSearchItem {
  kind: FleetSearchKind;
  key: string;
  label: string;
  url: string;
}

/** GET /api/fleet/self/search */
export interface FleetSelfSearch {
  items: FleetSearchItem[];
  /** More matched than `items` holds. */
  truncated: boolean;
}

/** A member as the hub lists it: its address, and its last known state (null figures: not known). */
export interface FleetMember {
  id: number;
  url: string;
  name: string;
  /** SHA-256 fingerprint of the pinned certificate (AA:BB:…). */
  pin: string;
  reachable: boolean;
  version: string | null;
  pbx: FleetSelf["pbx"] | null;
  registrations: FleetSelf["registrations"];
  activeCalls: number | null;
  alertsFiring: number | null;
  lastDeployAt: string | null;
  backupAgeSeconds: number | null;
  /** ISO time of the last check (answered or not), null before the first. */
  checkedAt: string | null;
  /** Why the last check failed (unreachable, the token refused, the certificate changed), else null. */
  error: string | null;
  /** The last check failed because the certificate no longer matches the pin (repin to accept it). */
  pinMismatch: boolean;
  /** The fingerprint the member presented instead (what a repin accepts), else null. */
  presentedPin: string | null;
}

export interface FleetList {
  items: FleetMember[];
}

/** A hit of the fleet-wide search: the object and the member console it is on. */
export interface FleetSearchHit extends FleetSearchItem {
  memberId: number;
  memberName: string;
  /** The object's screen on its console (the member's address + `url`). */
  href: string;
}

/** GET /api/fleet/search: the hits, and each member not searched with why. */
export interface FleetSearchAnswer {
  items: FleetSearchHit[];
  notSearched: { memberId: number; memberName: string; reason: string }[];
}

// ---------------------------------------------------------------------------------------------------
// Templates: a document fragment planned and applied on chosen members through their own plan/apply API
// ---------------------------------------------------------------------------------------------------

/** The largest template the hub keeps (a fragment: routes, groups; not a whole PBX). */
export const FLEET_TEMPLATE_MAX_BYTES = 512 * 1024;
export const FLEET_TEMPLATE_NOT_A_DOCUMENT =
  'Enter the fragment as a document: {"version": 1, "outboundRoutes": [...]} (JSON) or its YAML';

/** POST /api/fleet/templates: a name and the fragment (an object, or its YAML/JSON text as typed). */
export const fleetTemplateSchema = lazySchema(() =>
  z.object({
    name: z
      .string({ error: "Name is required" })
      .trim()
      .min(1, "Name is required")
      .max(100, "Name must be at most 100 characters"),
    document: z.union(
      [
        z
          .record(z.string(), z.unknown())
          .refine((d) => typeof d.version === "number", "The document needs its version (1)"),
        z
          .string()
          .trim()
          .min(1, FLEET_TEMPLATE_NOT_A_DOCUMENT)
          .max(FLEET_TEMPLATE_MAX_BYTES, `The fragment must be at most ${FLEET_TEMPLATE_MAX_BYTES / 1024} KiB`),
      ],
      { error: FLEET_TEMPLATE_NOT_A_DOCUMENT },
    ),
  }),
);
export type FleetTemplateInput = z.infer<typeof fleetTemplateSchema>;

export interface FleetTemplate {
  id: number;
  name: string;
  document: Record<string, unknown> | string;
  updatedAt: string;
}

const memberIds = () =>
  z
    .array(z.number({ error: "Members are member ids" }).int().positive(), { error: "Choose the members" })
    .min(1, "Choose at least one member")
    .max(200, "At most 200 members at once")
    .transform((ids) => [...new Set(ids)]);

/** POST /api/fleet/templates/:id/plan: the members to plan the template on. */
export const fleetTemplatePlanSchema = lazySchema(() => z.object({ members: memberIds() }));
export type FleetTemplatePlanRequest = z.infer<typeof fleetTemplatePlanSchema>;

/** POST /api/fleet/templates/:id/apply: each reviewed plan, by member and the fingerprint its plan had. */
export const fleetTemplateApplySchema = lazySchema(() =>
  z.object({
    plans: z
      .array(
        z.object({
          member: z.number({ error: "member is a member id" }).int().positive(),
          fingerprint: z
            .string({ error: "The plan's fingerprint is required" })
            .regex(/^[0-9a-f]{64}$/, "Not a plan fingerprint"),
        }),
        { error: "plans must be a list of {member, fingerprint}" },
      )
      .min(1, "Choose at least one reviewed plan")
      .max(200, "At most 200 plans at once"),
  }),
);
export type FleetTemplateApplyRequest = z.infer<typeof fleetTemplateApplySchema>;

/** One member's plan of a template (the member's own `POST /api/config/plan` answer), or why there is none. */
export interface FleetTemplatePlanEntry {
  member: number;
  memberName: string;
  plan: {
    fingerprint: string;
    counts: Record<"create" | "update" | "delete" | "unchanged", number>;
    items: {
      id: string;
      kind: string;
      key: string;
      label: string;
      action: "create" | "update" | "delete" | "unchanged";
      changes: { field: string; from: unknown; to: unknown }[];
    }[];
  } | null;
  error: string | null;
  /** The member's refusals at their paths (a document its rules refuse). */
  refused: { path: string; message: string }[];
}

/** One member's apply of its reviewed plan: the counts applied, or why not (the plan is stale, the token's role). */
export interface FleetTemplateApplyEntry {
  member: number;
  memberName: string;
  ok: boolean;
  counts: Record<"create" | "update" | "delete" | "unchanged", number> | null;
  error: string | null;
}

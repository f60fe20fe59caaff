import {
  addFleetMemberSchema,
  type FleetTemplateApplyEntry,
  fleetSearchQuerySchema,
  fleetTemplateApplySchema,
  fleetTemplatePlanSchema,
  fleetTemplateSchema,
  repinFleetMemberSchema,
} from "../../shared/fleet";
import { loadById, type RouteDef, route } from "../context";
import { addMember, listMembers, removeMember, repinMember } from "../fleet/members";
import { fleetSearch } from "../fleet/search";
import { fleetSelf, fleetSelfSearch } from "../fleet/self";
import { applyTemplate, createTemplate, deleteTemplate, listTemplates, planTemplate } from "../fleet/templates";
import { json, noContent } from "../http";

/** A token must not be able to point the hub's stored tokens at a server of its choosing. */
const HUB_TRUST =
  "Decides where the hub sends its stored member tokens and which certificate it trusts: a person's session only";

/** The fleet (ADR 0076): what this console says of itself to a hub, and the hub's members. */
export const fleetRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/fleet/self",
    summary:
      "This console's health for a fleet hub: name, version, PBX/AMI, registrations, active calls, firing alerts, last deployment, backup age (null: not known now)",
    handler: ({ app }) => json(fleetSelf(app)),
  }),
  route({
    method: "GET",
    path: "/api/fleet/self/search",
    summary:
      "This console's objects whose number, name, DID, description or host contains q: extensions, inbound routes, trunks, ring groups, queues, PTT groups (at most 50)",
    query: fleetSearchQuerySchema,
    handler: ({ app, query }) => json(fleetSelfSearch(app, query.q)),
  }),
  route({
    method: "GET",
    path: "/api/fleet",
    minRole: "admin",
    summary:
      "The hub's members with their live state (reachable, version, PBX, registrations, calls, alerts, last deployment, backup age, last check, error); never a token",
    handler: ({ app }) => json({ items: listMembers(app) }),
  }),
  route({
    method: "GET",
    path: "/api/fleet/search",
    minRole: "admin",
    summary:
      "Searches every reachable member (under one deadline) and merges the hits, each naming its console; members that failed are listed as not searched",
    query: fleetSearchQuerySchema,
    handler: async ({ app, query }) => json(await fleetSearch(app, query.q)),
  }),
  route({
    method: "POST",
    path: "/api/fleet/members",
    sessionOnly: HUB_TRUST,
    minRole: "admin",
    summary:
      "Add a member console by its https URL and a REST API token made there: contacted once, its certificate's SHA-256 pinned, the token tried; the token is stored sealed",
    body: addFleetMemberSchema,
    publishes: ["fleet-updated"],
    audit: { action: "fleet-member.create", object: "fleet-member", load: loadById(listMembers) },
    handler: async ({ app, body }) => json(await addMember(app, body), 201),
  }),
  route({
    method: "POST",
    path: "/api/fleet/members/:id/repin",
    sessionOnly: HUB_TRUST,
    minRole: "admin",
    summary:
      "Accept a member's changed certificate: the given SHA-256 fingerprint must be the one it presents now (read by a handshake, nothing sent) and becomes the pin",
    body: repinFleetMemberSchema,
    publishes: ["fleet-updated"],
    audit: { action: "fleet-member.repin", object: "fleet-member", load: loadById(listMembers) },
    handler: async ({ app, params, body }) => json(await repinMember(app, params.id as string, body.fingerprint)),
  }),
  route({
    method: "DELETE",
    path: "/api/fleet/members/:id",
    minRole: "admin",
    summary: "Remove a member: its address, pin and token are deleted from the hub (the member is not changed)",
    publishes: ["fleet-updated"],
    audit: { action: "fleet-member.delete", object: "fleet-member", load: loadById(listMembers) },
    handler: ({ app, params }) => {
      removeMember(app, params.id as string);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: "/api/fleet/templates",
    minRole: "admin",
    summary:
      "The fleet's templates: named document fragments (e.g. an outbound route set) to plan and apply on chosen members",
    handler: ({ app }) => json(listTemplates(app)),
  }),
  route({
    method: "POST",
    path: "/api/fleet/templates",
    minRole: "admin",
    summary:
      "Keep a template: a name and a document fragment ({version: 1, outboundRoutes: [...]} or its YAML); each member checks it when it plans it",
    body: fleetTemplateSchema,
    maxBody: 640 * 1024,
    publishes: ["fleet-templates-updated"],
    audit: { action: "fleet-template.create", object: "fleet-template", load: loadById(listTemplates) },
    handler: ({ app, body }) => json(createTemplate(app, body), 201),
  }),
  route({
    method: "DELETE",
    path: "/api/fleet/templates/:id",
    minRole: "admin",
    summary: "Delete a template (nothing on the members changes)",
    publishes: ["fleet-templates-updated"],
    audit: { action: "fleet-template.delete", object: "fleet-template", load: loadById(listTemplates) },
    handler: ({ app, params }) => {
      deleteTemplate(app, params.id as string);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/api/fleet/templates/:id/plan",
    minRole: "admin",
    summary:
      "Ask each chosen member for its own plan of the template (its POST /api/config/plan with the member's token), in parallel under one deadline: each member's plan, or its error and refusals at their paths",
    body: fleetTemplatePlanSchema,
    storesNothing: "Each member only computes its plan; the hub keeps nothing",
    audit: {
      action: "fleet-template.plan",
      object: "fleet-template",
      detail: (answer) =>
        ((answer as { items?: { memberName: string; error: string | null }[] } | null)?.items ?? [])
          .map((i) => `${i.memberName}: ${i.error ?? "planned"}`)
          .join("; ")
          .slice(0, 500),
    },
    handler: async ({ app, params, body }) => json(await planTemplate(app, params.id as string, body.members)),
  }),
  route({
    method: "POST",
    path: "/api/fleet/templates/:id/apply",
    minRole: "admin",
    summary:
      "Apply each reviewed plan on its member by the plan's fingerprint (the member's POST /api/config/apply with its token): each member's result, or why not (changed since the plan: 409, nothing written there; a token whose role cannot apply)",
    body: fleetTemplateApplySchema,
    storesNothing: "Changes the members through their own apply (they publish and audit it); the hub stores nothing",
    audit: {
      action: "fleet-template.apply",
      object: "fleet-template",
      load: loadById(listTemplates),
      detail: (answer) => {
        const items = (answer as { items?: FleetTemplateApplyEntry[] } | null)?.items ?? [];
        return items
          .map((i) => `${i.memberName}: ${i.ok ? "applied" : i.error}`)
          .join("; ")
          .slice(0, 500);
      },
    },
    handler: async ({ app, params, body }) => json(await applyTemplate(app, params.id as string, body)),
  }),
];

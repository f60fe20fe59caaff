import {
  type ExtensionBulkDeleteResult,
  extensionBulkDeleteSchema,
  extensionBulkUpdateSchema,
} from "../../shared/extensions-bulk";
import { extensionPatchSchema, extensionSchema } from "../../shared/inventory";
import { loadById, type RequestContext, type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import {
  createExtension,
  deleteExtension,
  dependentsOfExtension,
  listExtensions,
  updateExtension,
} from "../inventory/extensions";
import { bulkDeleteExtensions, bulkUpdateExtensions } from "../inventory/extensions-bulk";
import { consoleOrigin, extensionProvisioning, issueProvisioningLink } from "../inventory/provisioning";

/** The extension's new provisioning link, for the origin the operator reached the console at. */
const issueLink = ({ app, params, url, req }: RequestContext) =>
  issueProvisioningLink(app, parseId(params.id, "Extension"), consoleOrigin(url, req.headers.get("origin")));

export const extensionRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/extensions",
    summary: "List the extensions in numeric order (never their SIP secrets)",
    etag: ["extensions"],
    handler: ({ app }) => json(listExtensions(app)),
  }),
  route({
    method: "POST",
    path: "/api/extensions",
    summary: "Create an extension (a strong SIP secret is generated when none is given)",
    body: extensionSchema,
    publishes: ["extensions-updated"],
    audit: { action: "extension.create", object: "extension", load: loadById(listExtensions) },
    handler: ({ app, body }) => json(createExtension(app, body), 201),
  }),
  route({
    method: "POST",
    path: "/api/extensions/bulk-delete/check",
    summary:
      "What a bulk delete would do, deleting nothing: { deleted (would be), blocked (id, extension, reason: a PTT group or inbound route uses it), missing }",
    body: extensionBulkDeleteSchema,
    publishes: [],
    storesNothing: "Only answers what a bulk delete would do",
    audit: { skip: "Changes nothing: the confirmation's preview of a bulk delete" },
    handler: ({ app, body }) => json(bulkDeleteExtensions(app, body.ids, true)),
  }),
  route({
    method: "POST",
    path: "/api/extensions/bulk-delete",
    summary:
      "Delete many extensions in one transaction; those a PTT group or inbound route uses are left and reported with the reason: { deleted, blocked, missing }",
    body: extensionBulkDeleteSchema,
    publishes: ["extensions-updated", "ring-groups-updated", "queues-updated"],
    audit: {
      action: "extension.bulk-delete",
      object: "extension",
      detail: (answer) => {
        const r = answer as ExtensionBulkDeleteResult;
        return `${r.deleted.length} deleted, ${r.blocked.length} blocked${r.blocked.length ? ` (${r.blocked.map((b) => b.extension).join(", ")})` : ""}`;
      },
    },
    handler: ({ app, body }) => json(bulkDeleteExtensions(app, body.ids)),
  }),
  route({
    method: "POST",
    path: "/api/extensions/bulk-update",
    summary:
      "Set shared fields (voicemail, position) on many extensions at once, with the extension form's validation: { updated, missing }",
    body: extensionBulkUpdateSchema,
    publishes: ["extensions-updated"],
    audit: {
      action: "extension.bulk-update",
      object: "extension",
      detail: (answer) => `${(answer as { updated: number[] }).updated.length} updated`,
    },
    handler: ({ app, body }) => json(bulkUpdateExtensions(app, body.ids, body.patch)),
  }),
  route({
    method: "PATCH",
    path: "/api/extensions/:id",
    summary:
      "Edit an extension (fields left out keep their values; a blank secret keeps the stored one; a new number must be free and unused by PTT groups and inbound routes)",
    body: extensionPatchSchema,
    publishes: ["extensions-updated"],
    audit: { action: "extension.update", object: "extension", load: loadById(listExtensions) },
    handler: ({ app, params, body }) => json(updateExtension(app, parseId(params.id, "Extension"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/extensions/:id",
    summary:
      "Delete an extension no PTT group, inbound route, ring group or queue destination uses (it leaves the ring groups it is a member of and the queues it is an agent of); answers an undo token",
    publishes: ["extensions-updated", "ring-groups-updated", "queues-updated"],
    audit: { action: "extension.delete", object: "extension", load: loadById(listExtensions) },
    handler: ({ app, params }) => json(deleteExtension(app, parseId(params.id, "Extension"))),
  }),
  route({
    method: "GET",
    path: "/api/extensions/:id/dependents",
    summary:
      "What depends on an extension (PTT groups paging it, inbound routes sending to it); any dependent blocks the delete",
    handler: ({ app, params }) => json(dependentsOfExtension(app, parseId(params.id, "Extension"))),
  }),
  route({
    method: "GET",
    path: "/api/extensions/:id/provisioning",
    minRole: "operator",
    summary:
      "The extension's SIP details for manual entry in a softphone (server, port, transport, username, password, PTT groups) and warnings when the SIP host is loopback, private or unset",
    audit: { action: "extension.provisioning.view", object: "extension", load: loadById(listExtensions) },
    handler: ({ app, params }) => json(extensionProvisioning(app, parseId(params.id, "Extension"))),
  }),
  route({
    method: "GET",
    path: "/api/extensions/:id/qr-code",
    minRole: "operator",
    summary:
      "The extension's QR code ({qrCode}, an image source) for a softphone to scan: issues its one-time provisioning link as POST /api/extensions/{id}/provisioning-link does, and answers the same fields",
    publishes: ["provisioning-updated"],
    audit: { action: "extension.provisioning.issue", object: "extension", load: loadById(listExtensions) },
    handler: async (ctx) => json(await issueLink(ctx)),
  }),
  route({
    method: "POST",
    path: "/api/extensions/:id/provisioning-link",
    summary:
      "Issue the extension's one-time provisioning link (Linphone remote provisioning XML, 15 minutes, answers once; any earlier link of the extension stops working) and its QR code",
    publishes: ["provisioning-updated"],
    audit: { action: "extension.provisioning.issue", object: "extension", load: loadById(listExtensions) },
    handler: async (ctx) => json(await issueLink(ctx), 201),
  }),
];

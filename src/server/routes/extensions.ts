import { extensionSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, noContent, parseId } from "../http";
import { createExtension, deleteExtension, listExtensions } from "../inventory/extensions";
import { extensionProvisioning, extensionQrCode } from "../inventory/provisioning";

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
    method: "DELETE",
    path: "/api/extensions/:id",
    summary: "Delete an extension no PTT group or inbound route uses",
    publishes: ["extensions-updated"],
    audit: { action: "extension.delete", object: "extension", load: loadById(listExtensions) },
    handler: ({ app, params }) => {
      deleteExtension(app, parseId(params.id, "Extension"));
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: "/api/extensions/:id/qr-code",
    minRole: "operator",
    summary: "The extension's softphone provisioning link as a QR code (PNG data URL)",
    audit: { action: "extension.provisioning.view", object: "extension", load: loadById(listExtensions) },
    handler: async ({ app, params }) => json(await extensionQrCode(app, parseId(params.id, "Extension"))),
  }),
  route({
    method: "GET",
    path: "/api/extensions/:id/provisioning",
    minRole: "operator",
    summary: "The extension's softphone provisioning payload, link and QR code",
    audit: { action: "extension.provisioning.view", object: "extension", load: loadById(listExtensions) },
    handler: async ({ app, params }) => json(await extensionProvisioning(app, parseId(params.id, "Extension"))),
  }),
];

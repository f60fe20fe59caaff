import { announcementPatchSchema, announcementSchema, ivrPatchSchema, ivrSchema } from "../../shared/call-flow";
import { loadById, type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import {
  createAnnouncement,
  deleteAnnouncement,
  dependentsOfAnnouncement,
  listAnnouncements,
  updateAnnouncement,
} from "../inventory/announcements";
import { createIvr, deleteIvr, dependentsOfIvr, listIvrs, updateIvr } from "../inventory/ivrs";

export const ivrRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ivrs",
    summary: "List the IVRs by name",
    etag: ["ivrs"],
    handler: ({ app }) => json(listIvrs(app)),
  }),
  route({
    method: "POST",
    path: "/api/ivrs",
    summary:
      "Create an IVR: a greeting (a system recording's id), the keys a caller presses with their destinations, and where a wrong key or no key goes after the retries",
    body: ivrSchema,
    publishes: ["ivrs-updated"],
    audit: { action: "ivr.create", object: "ivr", load: loadById(listIvrs) },
    handler: ({ app, body }) => json(createIvr(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/ivrs/:id",
    summary: "Edit an IVR (fields left out keep their values; a rename keeps the same IVR on the PBX)",
    body: ivrPatchSchema,
    publishes: ["ivrs-updated"],
    audit: { action: "ivr.update", object: "ivr", load: loadById(listIvrs) },
    handler: ({ app, params, body }) => json(updateIvr(app, parseId(params.id, "IVR"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/ivrs/:id",
    summary: "Delete an IVR nothing sends calls to (409 naming what does); answers an undo token",
    publishes: ["ivrs-updated"],
    audit: { action: "ivr.delete", object: "ivr", load: loadById(listIvrs) },
    handler: ({ app, params }) => json(deleteIvr(app, parseId(params.id, "IVR"))),
  }),
  route({
    method: "GET",
    path: "/api/ivrs/:id/dependents",
    summary: "What sends calls to an IVR; any of it blocks the delete",
    handler: ({ app, params }) => json(dependentsOfIvr(app, parseId(params.id, "IVR"))),
  }),
];

export const announcementRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/announcements",
    summary: "List the announcements by name",
    etag: ["announcements"],
    handler: ({ app }) => json(listAnnouncements(app)),
  }),
  route({
    method: "POST",
    path: "/api/announcements",
    summary: "Create an announcement: a system recording played to the caller, then where the call goes",
    body: announcementSchema,
    publishes: ["announcements-updated"],
    audit: { action: "announcement.create", object: "announcement", load: loadById(listAnnouncements) },
    handler: ({ app, body }) => json(createAnnouncement(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/announcements/:id",
    summary: "Edit an announcement (fields left out keep their values)",
    body: announcementPatchSchema,
    publishes: ["announcements-updated"],
    audit: { action: "announcement.update", object: "announcement", load: loadById(listAnnouncements) },
    handler: ({ app, params, body }) => json(updateAnnouncement(app, parseId(params.id, "Announcement"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/announcements/:id",
    summary: "Delete an announcement nothing sends calls to (409 naming what does); answers an undo token",
    publishes: ["announcements-updated"],
    audit: { action: "announcement.delete", object: "announcement", load: loadById(listAnnouncements) },
    handler: ({ app, params }) => json(deleteAnnouncement(app, parseId(params.id, "Announcement"))),
  }),
  route({
    method: "GET",
    path: "/api/announcements/:id/dependents",
    summary: "What sends calls to an announcement; any of it blocks the delete",
    handler: ({ app, params }) => json(dependentsOfAnnouncement(app, parseId(params.id, "Announcement"))),
  }),
];

import {
  announcementPatchSchema,
  announcementSchema,
  ivrPatchSchema,
  ivrSchema,
  timeConditionPatchSchema,
  timeConditionSchema,
  timeGroupPatchSchema,
  timeGroupSchema,
} from "../../shared/call-flow";
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
import {
  createTimeCondition,
  createTimeGroup,
  deleteTimeCondition,
  deleteTimeGroup,
  dependentsOfTimeCondition,
  dependentsOfTimeGroup,
  listTimeConditions,
  listTimeGroups,
  updateTimeCondition,
  updateTimeGroup,
} from "../inventory/time-conditions";

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

export const timeConditionRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/time-groups",
    summary: "List the time groups by name",
    etag: ["time_groups"],
    handler: ({ app }) => json(listTimeGroups(app)),
  }),
  route({
    method: "POST",
    path: "/api/time-groups",
    summary:
      "Create a time group: weekly hours (from a day to a day, start to end) and yearly holidays (a month's day or days); overlapping or impossible times are refused",
    body: timeGroupSchema,
    publishes: ["time-conditions-updated"],
    audit: { action: "time-group.create", object: "time-group", load: loadById(listTimeGroups) },
    handler: ({ app, body }) => json(createTimeGroup(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/time-groups/:id",
    summary: "Edit a time group (fields left out keep their values)",
    body: timeGroupPatchSchema,
    publishes: ["time-conditions-updated"],
    audit: { action: "time-group.update", object: "time-group", load: loadById(listTimeGroups) },
    handler: ({ app, params, body }) => json(updateTimeGroup(app, parseId(params.id, "Time group"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/time-groups/:id",
    summary: "Delete a time group no time condition reads (409 naming them); answers an undo token",
    publishes: ["time-conditions-updated"],
    audit: { action: "time-group.delete", object: "time-group", load: loadById(listTimeGroups) },
    handler: ({ app, params }) => json(deleteTimeGroup(app, parseId(params.id, "Time group"))),
  }),
  route({
    method: "GET",
    path: "/api/time-groups/:id/dependents",
    summary: "The time conditions that read a time group; any of them blocks the delete",
    handler: ({ app, params }) => json(dependentsOfTimeGroup(app, parseId(params.id, "Time group"))),
  }),
  route({
    method: "GET",
    path: "/api/time-conditions",
    summary: "List the console's time conditions by name (the PBX's, with their overrides: /api/pbx/time-conditions)",
    etag: ["time_conditions"],
    handler: ({ app }) => json(listTimeConditions(app)),
  }),
  route({
    method: "POST",
    path: "/api/time-conditions",
    summary:
      "Create a time condition: a time group read in an IANA time zone (none: the PBX's), where calls go in its hours and outside them",
    body: timeConditionSchema,
    publishes: ["time-conditions-updated"],
    audit: { action: "time-condition.create", object: "time-condition", load: loadById(listTimeConditions) },
    handler: ({ app, body }) => json(createTimeCondition(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/time-conditions/:id",
    summary: "Edit a time condition (fields left out keep their values; a rename keeps it on the PBX)",
    body: timeConditionPatchSchema,
    publishes: ["time-conditions-updated"],
    audit: { action: "time-condition.update", object: "time-condition", load: loadById(listTimeConditions) },
    handler: ({ app, params, body }) => json(updateTimeCondition(app, parseId(params.id, "Time condition"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/time-conditions/:id",
    summary: "Delete a time condition nothing sends calls to (409 naming what does); answers an undo token",
    publishes: ["time-conditions-updated"],
    audit: { action: "time-condition.delete", object: "time-condition", load: loadById(listTimeConditions) },
    handler: ({ app, params }) => json(deleteTimeCondition(app, parseId(params.id, "Time condition"))),
  }),
  route({
    method: "GET",
    path: "/api/time-conditions/:id/dependents",
    summary: "What sends calls to a time condition; any of it blocks the delete",
    handler: ({ app, params }) => json(dependentsOfTimeCondition(app, parseId(params.id, "Time condition"))),
  }),
];

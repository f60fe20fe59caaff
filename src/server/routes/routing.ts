import { simulateSchema } from "../../shared/routing";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { listCallFlows, listDestinations, simulateCall } from "../routing/routing";

export const routingRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/destinations",
    summary:
      "Every destination a call can be sent to ({kind, target, label}): hang up, extensions, voicemail boxes, ring groups, queues, page groups",
    etag: ["extensions", "ring_groups", "queues", "ptt_groups"],
    handler: ({ app }) => json(listDestinations(app)),
  }),
  route({
    method: "GET",
    path: "/api/routing/flows",
    summary:
      "Each inbound route's call flow as a tree ({did, label, root}): every object a call can pass, and when it goes on (no answer, after the max wait)",
    etag: ["inbound_routes", "extensions", "ring_groups", "queues", "ptt_groups"],
    handler: ({ app }) => json(listCallFlows(app)),
  }),
  route({
    method: "POST",
    path: "/api/routing/simulate",
    summary:
      "Follow a call ({did, callerId, at, digits?, unanswered?, plan?}) from the trunk to the phones that ring, step by step; with plan also on the PBX as it is now",
    minRole: "viewer",
    body: simulateSchema,
    publishes: [],
    storesNothing: "It only answers where a call would go",
    audit: { skip: "It reads and stores nothing" },
    handler: async ({ app, body }) => json(await simulateCall(app, body)),
  }),
];

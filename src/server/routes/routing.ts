import { simulateSchema } from "../../shared/routing";
import { OVERRIDE_LABELS, type OverrideRequest, overrideRequestSchema } from "../../shared/time-conditions";
import { type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import { pbxTimeConditions, setTimeConditionOverride } from "../pbx/time-conditions";
import { listCallFlows, listDestinations, simulateCall } from "../routing/routing";

export const routingRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/destinations",
    summary:
      "Every destination a call can be sent to ({kind, target, label}): hang up, extensions, voicemail boxes, ring groups, queues, page groups",
    etag: ["extensions", "ring_groups", "queues", "ptt_groups", "ivrs", "announcements"],
    handler: ({ app }) => json(listDestinations(app)),
  }),
  route({
    method: "GET",
    path: "/api/routing/flows",
    summary:
      "Each inbound route's call flow as a tree ({did, label, root}): every object a call can pass, and when it goes on (no answer, after the max wait)",
    etag: ["inbound_routes", "extensions", "ring_groups", "queues", "ptt_groups", "ivrs", "announcements"],
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
  route({
    method: "GET",
    path: "/api/pbx/time-conditions",
    summary:
      "The PBX's time conditions (SSH): time group and its rows, zone, where calls go while it matches and while not, the override now (AstDB TC/<id>), the phone toggle code; and whether the override can be changed now (AMI connected)",
    handler: async ({ app }) => json(await pbxTimeConditions(app)),
  }),
  route<OverrideRequest>({
    method: "PUT",
    path: "/api/pbx/time-conditions/:id/override",
    summary:
      "Force a PBX time condition open or closed, or set it back to automatic, at once, as FreePBX's own override writes it (AstDB TC/<id> and its BLF device states; 404 for an id the PBX does not have, 503 while AMI is not connected)",
    minRole: "operator",
    body: overrideRequestSchema,
    publishes: ["time-condition-overrides-updated"],
    audit: {
      action: "pbx.time-condition.override",
      object: "time-condition",
      detail: (answer) => {
        const tc = answer as { name?: string; override?: keyof typeof OVERRIDE_LABELS };
        return `${tc.name ?? "Time condition"}: ${tc.override ? OVERRIDE_LABELS[tc.override] : "changed"}`;
      },
    },
    handler: async ({ app, params, body }) =>
      json(await setTimeConditionOverride(app, parseId(params.id, "Time condition"), body.state)),
  }),
];

import { type HangupRequest, hangupRequestSchema } from "../../shared/live";
import { type RouteDef, route } from "../context";
import { json } from "../http";

/** The live PBX from Asterisk's manager interface (ADR 0027): read from the monitor's memory, never from AMI per request. */
export const liveRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/pbx/status",
    summary:
      "Live PBX status: the AMI connection (or why it is unknown), each extension's registration, contacts and device state, each trunk's registration and reachability, calls in progress",
    handler: ({ app }) => json(app.live.status()),
  }),
  route({
    method: "GET",
    path: "/api/calls/active",
    summary:
      "Calls in progress, one per Linkedid: caller, callee, trunk, direction, state, start and answer times, channels",
    handler: ({ app }) => json(app.live.activeCalls()),
  }),
  route({
    method: "GET",
    path: "/api/pbx/security",
    summary:
      "Failed SIP sign-ins from AMI security events: by source address and account over the last hour and day, per hour, and the sources over the alert threshold",
    handler: ({ app }) => json(app.live.security()),
  }),
  route<HangupRequest>({
    method: "POST",
    path: "/api/calls/hangup",
    summary:
      "Hang up one channel of a call in progress (exact name from GET /api/calls/active; 404 when it is not in progress, 503 when AMI is not connected)",
    minRole: "operator",
    body: hangupRequestSchema,
    // The call list at once; the call count (status) and, a few seconds later, the call history follow.
    publishes: ["calls-updated", "pbx-status-updated", "call-history-updated"],
    audit: {
      action: "call.hangup",
      object: "call",
      detail: (answer) => `Hung up ${(answer as { channel?: string }).channel ?? "a channel"}`,
    },
    handler: async ({ app, body }) => json(await app.live.hangup(body.channel)),
  }),
];

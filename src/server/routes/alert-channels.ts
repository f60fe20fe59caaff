import {
  type AlertChannelTestResult,
  alertChannelCreateSchema,
  alertChannelUpdateSchema,
} from "../../shared/alert-channels";
import {
  auditViewOfChannel,
  createAlertChannel,
  deleteAlertChannel,
  listAlertChannels,
  testAlertChannel,
  updateAlertChannel,
} from "../alerts/channels";
import { type AppContext, type RouteDef, route, signedInUser } from "../context";
import { json, noContent, parseId } from "../http";

// Writes are the administrators' (ADR 0062): a channel holds a secret (SMTP password, Slack URL, bot token,
// signing secret). Every role reads the list (names, kinds, where messages go, the last delivery), never a
// secret; the settings behind the form only administrators.
const load = (app: AppContext, params: Record<string, string>) =>
  params.id === undefined ? null : auditViewOfChannel(app, Number(params.id));
// The body is left out of the record: on a refused call it would be recorded as sent, and a Slack webhook
// URL (the secret) is in a field no mask names. The object's view before and after says what changed.
const audit = (action: string) => ({ action, object: "alert-channel", load, omitBody: true });

const testDetail = (answer: unknown) => {
  const r = answer as AlertChannelTestResult | undefined;
  return r ? (r.ok ? "delivered" : `failed: ${r.error ?? ""}`) : undefined;
};

export const alertChannelRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/alerts/channels",
    summary:
      "List the alert channels by name, each with where it sends and its last delivery (the settings for administrators only; never a secret)",
    handler: ({ app, user }) => json(listAlertChannels(app, signedInUser(user).role)),
  }),
  route({
    method: "POST",
    path: "/api/alerts/channels",
    summary:
      "Create an alert channel: e-mail (SMTP), Slack (incoming webhook), Telegram (bot) or a Standard Webhooks signed webhook; a webhook's signing secret is made when not given and shown in this answer only",
    minRole: "admin",
    body: alertChannelCreateSchema,
    publishes: ["alert-channels-updated"],
    audit: audit("alert-channel.create"),
    handler: ({ app, body }) => json(createAlertChannel(app, body), 201),
  }),
  route({
    method: "PUT",
    path: "/api/alerts/channels/:id",
    summary:
      "Replace an alert channel's settings (same kind); a secret left out keeps the stored one, except that an e-mail channel moved to another server needs its password again",
    minRole: "admin",
    body: alertChannelUpdateSchema,
    publishes: ["alert-channels-updated"],
    audit: audit("alert-channel.update"),
    handler: ({ app, params, body }) => json(updateAlertChannel(app, parseId(params.id, "Alert channel"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/alerts/channels/:id",
    summary:
      "Delete an alert channel no alert rule sends to (409 naming the rules); its deliveries stay in the history",
    minRole: "admin",
    publishes: ["alert-channels-updated"],
    audit: audit("alert-channel.delete"),
    handler: ({ app, params }) => {
      deleteAlertChannel(app, parseId(params.id, "Alert channel"));
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/api/alerts/channels/:id/test",
    summary:
      "Send a test message through a channel now (a disabled one too); answers {ok, error?}: a failed delivery is a result, not an error status",
    minRole: "admin",
    publishes: ["alert-channels-updated"],
    audit: { action: "alert-channel.test", object: "alert-channel", load, detail: testDetail },
    handler: async ({ app, params }) => json(await testAlertChannel(app, parseId(params.id, "Alert channel"))),
  }),
];

import { alertEventsQuerySchema, alertRulePatchSchema, alertRuleSchema } from "../../shared/alerts";
import { listAlertEvents } from "../alerts/history";
import {
  auditViewOfRule,
  createAlertRule,
  deleteAlertRule,
  listAlertRules,
  replaceAlertRule,
  updateAlertRule,
} from "../alerts/rules";
import { type AppContext, type RouteDef, route } from "../context";
import { json, noContent, parseId } from "../http";

// Rule writes are the administrators' (ADR 0063): a rule holds no secret, but it decides what the alert channels
// (which do) are sent, and turning one off silences a warning about sign-ins or attacks. Reads are everyone's.
const audit = (action: string) => ({
  action,
  object: "alert-rule",
  load: (app: AppContext, params: Record<string, string>) => auditViewOfRule(app, params.id),
});

export const alertRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/alerts/rules",
    summary: "List the alert rules by name, each with how many of its alerts fire now",
    handler: ({ app }) => json(listAlertRules(app)),
  }),
  route({
    method: "POST",
    path: "/api/alerts/rules",
    summary:
      "Create an alert rule: what it watches (kind and its parameters), how long before it fires, how often it repeats, and its channels",
    minRole: "admin",
    body: alertRuleSchema,
    publishes: ["alerts-updated"],
    audit: audit("alert-rule.create"),
    handler: ({ app, body }) => json(createAlertRule(app, body), 201),
  }),
  route({
    method: "PUT",
    path: "/api/alerts/rules/:id",
    summary: "Replace an alert rule (the whole rule, as created)",
    minRole: "admin",
    body: alertRuleSchema,
    publishes: ["alerts-updated"],
    audit: audit("alert-rule.update"),
    handler: ({ app, params, body }) => json(replaceAlertRule(app, parseId(params.id, "Alert rule"), body)),
  }),
  route({
    method: "PATCH",
    path: "/api/alerts/rules/:id",
    summary: "Edit an alert rule (fields left out keep their values; a new kind without params takes its defaults)",
    minRole: "admin",
    body: alertRulePatchSchema,
    publishes: ["alerts-updated"],
    audit: audit("alert-rule.update"),
    handler: ({ app, params, body }) => json(updateAlertRule(app, parseId(params.id, "Alert rule"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/alerts/rules/:id",
    summary: "Delete an alert rule; its firing alerts end and stay in the history",
    minRole: "admin",
    publishes: ["alerts-updated"],
    audit: audit("alert-rule.delete"),
    handler: ({ app, params }) => {
      deleteAlertRule(app, parseId(params.id, "Alert rule"));
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: "/api/alerts/events",
    summary:
      "The alerts' history, newest first (?state=firing for the alerts firing now; ?ruleId, ?kind, ?cursor, ?limit), with the messages sent for each",
    query: alertEventsQuerySchema,
    handler: ({ app, query }) => json(listAlertEvents(app, query)),
  }),
];

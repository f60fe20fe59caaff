import { securitySettingsSchema } from "../../shared/settings";
import { securitySettings, updateSecuritySettings } from "../accounts/settings";
import { type RouteDef, route, signedInUser } from "../context";
import { json } from "../http";

/** Console-wide settings: administrators only. */
export const settingsRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/settings/security",
    minRole: "admin",
    summary: "The console's security settings: whether every user must sign in with two-factor sign-in",
    handler: ({ app }) => json(securitySettings(app.db)),
  }),
  route({
    method: "PUT",
    path: "/api/settings/security",
    minRole: "admin",
    summary:
      "Change the security settings. Requiring two-factor sign-in needs the caller's own to be on (409 otherwise); while it is required, users without it may only set it up",
    body: securitySettingsSchema,
    publishes: ["settings-updated"],
    audit: { action: "settings.security", object: "settings", load: (app) => securitySettings(app.db) },
    handler: ({ app, user, body }) => json(updateSecuritySettings(app, signedInUser(user), body)),
  }),
];

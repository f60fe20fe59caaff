import { audioSettingsSchema, securitySettingsSchema, sipSettingsSchema } from "../../shared/settings";
import {
  audioSettings,
  securitySettings,
  sipSettings,
  updateAudioSettings,
  updateSecuritySettings,
  updateSipSettings,
} from "../accounts/settings";
import { type RouteDef, route, signedInUser, WHO_GETS_IN } from "../context";
import { json } from "../http";

/** Console-wide settings: administrators change them (the public SIP host is readable by every role). */
export const settingsRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/settings/security",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "The console's security settings: whether every user must sign in with two-factor sign-in",
    handler: ({ app }) => json(securitySettings(app.db)),
  }),
  route({
    method: "PUT",
    path: "/api/settings/security",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary:
      "Change the security settings. Requiring two-factor sign-in needs the caller's own to be on (409 otherwise); while it is required, users without it may only set it up",
    body: securitySettingsSchema,
    publishes: ["settings-updated"],
    audit: { action: "settings.security", object: "settings", load: (app) => securitySettings(app.db) },
    handler: ({ app, user, body }) => json(updateSecuritySettings(app, signedInUser(user), body)),
  }),
  route({
    method: "GET",
    path: "/api/settings/sip",
    summary:
      "The public SIP host softphones dial (provisioning links, SIP details): the setting, what is in effect, and a warning when it is loopback, private or unset",
    handler: ({ app }) => json(sipSettings(app.db, app.config)),
  }),
  route({
    method: "PUT",
    path: "/api/settings/sip",
    minRole: "admin",
    summary: "Change the public SIP host and port softphones dial (an empty host falls back to SIP_SERVER_HOST)",
    body: sipSettingsSchema,
    publishes: ["settings-updated"],
    audit: { action: "settings.sip", object: "settings", load: (app) => sipSettings(app.db, app.config) },
    handler: ({ app, body }) => json(updateSipSettings(app, body)),
  }),
  route({
    method: "GET",
    path: "/api/settings/audio",
    summary:
      "Who may listen to call recordings and voicemail (viewers only when allowed) and how many days recordings stay on the PBX (null: kept)",
    handler: ({ app }) => json(audioSettings(app.db)),
  }),
  route({
    method: "PUT",
    path: "/api/settings/audio",
    minRole: "admin",
    summary:
      "Change who may listen to recordings and voicemail and the recordings' retention in days (1 to 3650, or null to keep them)",
    body: audioSettingsSchema,
    publishes: ["settings-updated"],
    audit: { action: "settings.audio", object: "settings", load: (app) => audioSettings(app.db) },
    handler: ({ app, body }) => json(updateAudioSettings(app, body)),
  }),
];

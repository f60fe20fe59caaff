import type { ServerInfo } from "../../shared/auth";
import { changePasswordSchema, loginSchema, setupSchema, totpDisableSchema, totpEnableSchema } from "../../shared/auth";
import {
  changePassword,
  endSession,
  listSessions,
  type SignedIn,
  setupFirstAdmin,
  signIn,
  signOut,
  signOutOthers,
  whoAmI,
} from "../accounts/auth";
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE, sessionCookieName } from "../accounts/sessions";
import { disableTotp, enableTotp, setupTotp, totpStatus } from "../accounts/two-factor";
import { type AppContext, OWN_ACCOUNT, type RequestContext, type RouteDef, route, signedInUser } from "../context";
import { json, noContent } from "../http";

/**
 * The session cookie: not readable by scripts, never sent cross-site. Under TLS it is
 * `__Host-pbx_session` (Secure, Path=/, no Domain); the plain `pbx_session` a browser may still hold
 * from before is cleared alongside (the transport reads both names).
 */
function sessionCookies(app: AppContext, token: string, maxAgeSeconds: number): [string, string][] {
  const tls = Boolean(app.config.tls);
  const parts = [
    `${sessionCookieName(tls)}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (tls) parts.push("Secure");
  const cookies: [string, string][] = [["Set-Cookie", parts.join("; ")]];
  if (tls) cookies.push(["Set-Cookie", `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure`]);
  return cookies;
}

/**
 * The answer to a successful sign-in or set-up: who is signed in (as `GET /api/auth/me` says it, so a
 * session that must set up two-factor sign-in first is told at once), and the cookie that carries the session.
 */
function signedIn(app: AppContext, { user, token }: SignedIn, status = 200): Response {
  return json(whoAmI(app, user), status, sessionCookies(app, token, SESSION_ABSOLUTE_MS / 1000));
}

/** Where the request came from, for the throttle, the failed sign-in log and the sessions list. */
const clientOf = ({ clientIp, req }: Pick<RequestContext, "clientIp" | "req">) => ({
  ip: clientIp,
  userAgent: req.headers.get("user-agent"),
});

export const authRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/auth/me",
    summary: "Who is signed in, and whether the first administrator still has to be set up",
    auth: "public",
    handler: ({ app, user }) => json(whoAmI(app, user)),
  }),
  route({
    method: "POST",
    path: "/api/auth/setup",
    summary: "Create the first administrator and sign in (only while no user exists)",
    auth: "public",
    body: setupSchema,
    publishes: ["accounts-updated"],
    audit: { action: "auth.setup", omitBody: true },
    handler: async (ctx) => signedIn(ctx.app, await setupFirstAdmin(ctx.app, ctx.body, clientOf(ctx)), 201),
  }),
  route({
    method: "POST",
    path: "/api/auth/login",
    summary:
      "Sign in with username, password and, with two-factor sign-in on, the authenticator or a recovery code (failures back off per account and address, per address and per account)",
    auth: "public",
    body: loginSchema,
    publishes: ["sessions-updated"],
    audit: { action: "auth.login", omitBody: true },
    handler: async (ctx) => signedIn(ctx.app, await signIn(ctx.app, ctx.body, clientOf(ctx))),
  }),
  route({
    method: "POST",
    path: "/api/auth/logout",
    summary: "Sign out: end this browser's session (its sockets close)",
    auth: "public",
    publishes: ["sessions-updated"],
    audit: { action: "auth.logout" },
    handler: ({ app, token }) => {
      signOut(app, token);
      return json({ ok: true }, 200, sessionCookies(app, "", 0));
    },
  }),
  route({
    method: "POST",
    path: "/api/auth/password",
    sessionOnly: OWN_ACCOUNT,
    allowedBeforeTotp: true,
    minRole: "viewer",
    summary: "Change the signed-in user's password (needs the current one); signs out every other session",
    body: changePasswordSchema,
    publishes: ["sessions-updated"],
    audit: { action: "auth.password", omitBody: true },
    handler: async (ctx) =>
      json(await changePassword(ctx.app, signedInUser(ctx.user), ctx.token, ctx.body, clientOf(ctx))),
  }),
  route({
    method: "GET",
    path: "/api/auth/sessions",
    sessionOnly: OWN_ACCOUNT,
    allowedBeforeTotp: true,
    summary: "The signed-in user's sessions (created, last seen, address, browser; the asking one is current)",
    handler: ({ app, user, token }) => json(listSessions(app, signedInUser(user), token)),
  }),
  route({
    method: "DELETE",
    path: "/api/auth/sessions/:id",
    sessionOnly: OWN_ACCOUNT,
    allowedBeforeTotp: true,
    minRole: "viewer",
    summary: "Sign out one of the signed-in user's sessions (its sockets close)",
    publishes: ["sessions-updated"],
    audit: { action: "auth.session.end", object: "session" },
    handler: ({ app, user, params }) => {
      endSession(app, signedInUser(user), params.id ?? "");
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/api/auth/sessions/sign-out-others",
    sessionOnly: OWN_ACCOUNT,
    allowedBeforeTotp: true,
    minRole: "viewer",
    summary: "Sign out every session of the signed-in user except this one",
    publishes: ["sessions-updated"],
    audit: { action: "auth.session.sign-out-others" },
    handler: ({ app, user, token }) => json(signOutOthers(app, signedInUser(user), token)),
  }),
  route({
    method: "GET",
    path: "/api/auth/totp",
    sessionOnly: OWN_ACCOUNT,
    allowedBeforeTotp: true,
    summary: "The signed-in user's two-factor sign-in: on, being set up, recovery codes left",
    handler: ({ app, user }) => json(totpStatus(app, signedInUser(user))),
  }),
  route({
    method: "POST",
    path: "/api/auth/totp/setup",
    sessionOnly: OWN_ACCOUNT,
    allowedBeforeTotp: true,
    minRole: "viewer",
    summary: "Start setting up two-factor sign-in: a new TOTP secret, its otpauth link and QR code (shown once)",
    publishes: ["accounts-updated"],
    audit: { action: "auth.totp.setup" },
    handler: async ({ app, user }) => json(await setupTotp(app, signedInUser(user))),
  }),
  route({
    method: "POST",
    path: "/api/auth/totp/enable",
    sessionOnly: OWN_ACCOUNT,
    allowedBeforeTotp: true,
    minRole: "viewer",
    summary: "Turn two-factor sign-in on with a current code; answers the ten single-use recovery codes once",
    body: totpEnableSchema,
    publishes: ["accounts-updated"],
    audit: { action: "auth.totp.enable", omitBody: true },
    handler: ({ app, user, body }) => json(enableTotp(app, signedInUser(user), body)),
  }),
  route({
    method: "POST",
    path: "/api/auth/totp/disable",
    sessionOnly: OWN_ACCOUNT,
    minRole: "viewer",
    summary: "Turn two-factor sign-in off (needs the current password)",
    body: totpDisableSchema,
    publishes: ["accounts-updated"],
    audit: { action: "auth.totp.disable", omitBody: true },
    handler: async (ctx) => {
      await disableTotp(ctx.app, signedInUser(ctx.user), ctx.body, clientOf(ctx));
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: "/api/info",
    allowedBeforeTotp: true,
    summary: "The console's version and server label",
    handler: ({ app }) => {
      const body: ServerInfo = {
        version: app.version,
        serverLabel: app.config.serverLabel,
        serverAddress: app.config.serverAddress,
      };
      return json(body);
    },
  }),
];

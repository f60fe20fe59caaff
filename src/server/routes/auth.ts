import type { MeResponse, ServerInfo } from "../../shared/auth";
import { loginSchema, setupSchema } from "../../shared/auth";
import { type SignedIn, setupFirstAdmin, signIn, signOut, whoAmI } from "../accounts/auth";
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE } from "../accounts/sessions";
import { type AppContext, type RouteDef, route } from "../context";
import { json } from "../http";

/** The session cookie: not readable by scripts, never sent cross-site, Secure over HTTPS. */
function sessionCookie(app: AppContext, token: string, maxAgeSeconds: number): string {
  const parts = [`${SESSION_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Strict", `Max-Age=${maxAgeSeconds}`];
  if (app.config.tls) parts.push("Secure");
  return parts.join("; ");
}

/** The answer to a successful sign-in or set-up: who is signed in, and the cookie that carries the session. */
function signedIn(app: AppContext, { user, token }: SignedIn, status = 200): Response {
  const body: MeResponse = { authenticated: true, user, setupRequired: false };
  return json(body, status, { "Set-Cookie": sessionCookie(app, token, SESSION_ABSOLUTE_MS / 1000) });
}

const PER_BROWSER = "Sessions are per browser; no screen lists them";

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
    handler: async ({ app, body }) => signedIn(app, await setupFirstAdmin(app, body), 201),
  }),
  route({
    method: "POST",
    path: "/api/auth/login",
    summary: "Sign in with username and password (repeated failures are throttled per username)",
    auth: "public",
    body: loginSchema,
    storesNothing: PER_BROWSER,
    handler: async ({ app, body }) => signedIn(app, await signIn(app, body)),
  }),
  route({
    method: "POST",
    path: "/api/auth/logout",
    summary: "Sign out: end this browser's session",
    auth: "public",
    storesNothing: PER_BROWSER,
    handler: ({ app, token }) => {
      signOut(app, token);
      return json({ ok: true }, 200, { "Set-Cookie": sessionCookie(app, "", 0) });
    },
  }),
  route({
    method: "GET",
    path: "/api/info",
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

import type { MeResponse } from "../../shared/auth";
import { loginSchema, setupSchema } from "../../shared/auth";
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE } from "../accounts/sessions";
import { checkPassword, hashPassword, insertUser, userCount } from "../accounts/users";
import type { AppContext, RouteDef } from "../context";
import { HttpError, json, parseBody } from "../http";

function sessionCookie(app: AppContext, token: string, maxAgeSeconds: number): string {
  const parts = [`${SESSION_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Strict", `Max-Age=${maxAgeSeconds}`];
  if (app.config.tls) parts.push("Secure");
  return parts.join("; ");
}

const signedIn = (app: AppContext, userId: string, username: string, status = 200) => {
  const token = app.sessions.create(userId);
  const body: MeResponse = { authenticated: true, user: { id: userId, username }, setupRequired: false };
  return json(body, status, { "Set-Cookie": sessionCookie(app, token, SESSION_ABSOLUTE_MS / 1000) });
};

export const authRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/auth/me",
    auth: "public",
    handler: ({ app, user }) => {
      const body: MeResponse = user
        ? { authenticated: true, user, setupRequired: false }
        : { authenticated: false, user: null, setupRequired: userCount(app.db) === 0 };
      return json(body);
    },
  },
  {
    method: "POST",
    path: "/api/auth/setup",
    auth: "public",
    handler: async ({ app, req }) => {
      if (userCount(app.db) > 0) throw new HttpError(409, "An administrator already exists; sign in instead");
      const input = await parseBody(req, setupSchema);
      const hash = await hashPassword(input.password);
      // Checked again after the await: the check and the insert below run without
      // yielding, so two racing first-run requests cannot both create a user.
      if (userCount(app.db) > 0) throw new HttpError(409, "An administrator already exists; sign in instead");
      const user = insertUser(app.db, input.username, hash);
      return signedIn(app, user.id, user.username, 201);
    },
  },
  {
    method: "POST",
    path: "/api/auth/login",
    auth: "public",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, loginSchema);
      const wait = app.throttle.retryAfter(input.username);
      if (wait > 0) {
        throw new HttpError(429, `Too many failed sign-ins; try again in ${wait} s`, undefined, {
          "Retry-After": String(wait),
        });
      }
      const user = await checkPassword(app.db, input.username, input.password);
      if (!user) {
        app.throttle.fail(input.username);
        throw new HttpError(401, "Wrong username or password");
      }
      app.throttle.succeed(input.username);
      return signedIn(app, user.id, user.username);
    },
  },
  {
    method: "POST",
    path: "/api/auth/logout",
    auth: "public",
    handler: ({ app, token }) => {
      app.sessions.revoke(token);
      return json({ ok: true }, 200, { "Set-Cookie": sessionCookie(app, "", 0) });
    },
  },
  {
    method: "GET",
    path: "/api/info",
    handler: ({ app }) =>
      json({ version: app.version, serverLabel: app.config.serverLabel, serverAddress: app.config.serverAddress }),
  },
];

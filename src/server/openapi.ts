/**
 * The API contract: an OpenAPI 3.1 document built from the router table and
 * the shared zod schemas (zod's JSON Schema output, draft 2020-12, which is
 * OpenAPI 3.1's schema dialect). Served at GET /api/openapi.json; a copy is
 * kept in docs/api/openapi.json (`npm run openapi`) and a test fails when the
 * two differ or a route is missing.
 */
import { z } from "zod";
import { ROLES, roleAllows } from "../shared/users";
import { HOST_SESSION_COOKIE, SESSION_COOKIE } from "./accounts/sessions";
import { type RouteDef, requiredRole } from "./context";

type JsonSchema = Record<string, unknown>;

/** The input side of a schema (what a client sends), without the `$schema` marker. */
function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** `/api/extensions/:id` → `/api/extensions/{id}` and its parameter names. */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: converted, params };
}

const operationId = (route: RouteDef) =>
  `${route.method.toLowerCase()}${route.path
    .replace(/^\/api/, "")
    .split(/[/-]/)
    .filter(Boolean)
    .map((part) => (part.startsWith(":") ? `By${cap(part.slice(1))}` : cap(part)))
    .join("")}`;
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function security(route: RouteDef): Record<string, string[]>[] {
  const auth = route.auth ?? "session";
  if (auth === "public") return [];
  // Either a session or a REST API token with a role (ADR 0074), except where a token is never accepted.
  if (auth === "session") return route.sessionOnly ? [{ session: [] }] : [{ session: [] }, { restToken: [] }];
  return [{ apiToken: [auth.apiToken] }];
}

function queryParameters(route: RouteDef) {
  if (!route.query) return [];
  const schema = inputSchema(route.query);
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => ({ name, in: "query", required: required.has(name), schema: s }));
}

function operation(route: RouteDef, params: string[]) {
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: route.summary ?? "",
    security: security(route),
    parameters: [
      ...params.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
      ...queryParameters(route),
    ],
    responses: {
      "2XX": { description: "Success" },
      "4XX": {
        description: "Refused: field messages under `error.fields` for invalid input",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
      "5XX": {
        description: "An outside service failed (502) or the console could not answer",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    },
  };
  if (route.body) {
    op.requestBody = { required: true, content: { "application/json": { schema: inputSchema(route.body) } } };
  } else if (route.rawBody) {
    op.requestBody = {
      required: true,
      description: route.rawBody,
      content: { [route.bodyType ?? "application/json"]: {} },
    };
  }
  // The roles that may call a session route (src/shared/users.ts); other routes authenticate otherwise.
  if ((route.auth ?? "session") === "session") {
    const needed = requiredRole(route);
    op["x-roles"] = ROLES.filter((role) => roleAllows(role, needed));
  }
  if (route.publishes?.length) op["x-publishes"] = [...route.publishes];
  if (route.storesNothing) op["x-stores-nothing"] = route.storesNothing;
  return op;
}

export function buildOpenApi(routes: RouteDef[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const { path, params } = openApiPath(route.path);
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = operation(route, params);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "pbx-console API",
      version,
      description:
        "The console's JSON API. Every state-changing request needs `Content-Type: application/json` and, when " +
        "an `Origin` header is sent, the console's own origin (a request with a REST API token, which carries no " +
        "cookie, is not origin-checked). Errors are `{ error: { message, fields? } }`.",
    },
    paths,
    components: {
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE,
          description: `Set by POST /api/auth/login; named ${HOST_SESSION_COOKIE} when the console serves HTTPS`,
        },
        apiToken: {
          type: "http",
          scheme: "bearer",
          description: "A transcript intake token (POST /api/ai/tokens): this route only",
        },
        restToken: {
          type: "http",
          scheme: "bearer",
          description:
            "A REST API token (POST /api/tokens, `pbxt_…`): acts with its role (x-roles) from its networks until it expires or is revoked",
        },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["message"],
              properties: {
                message: { type: "string" },
                fields: { type: "object", additionalProperties: { type: "string" } },
              },
            },
          },
        },
      },
    },
  };
}

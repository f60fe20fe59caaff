import { type ServiceType, saveCredentialSchema, serviceTypes, testCredentialSchema } from "../../shared/credentials";
import type { RouteDef } from "../context";
import { HttpError, json, noContent, parseBody } from "../http";
import type { Values } from "../integrations/credentials";
import { testService } from "../integrations/outside";

/** The service's field values from a save/test body (device management accepts publicKey/secretKey too). */
function fieldsOf(input: Record<string, unknown>): Values {
  const out: Values = {};
  for (const [k, v] of Object.entries(input)) if (typeof v === "string" && k !== "type" && k !== "name") out[k] = v;
  if (input.type === "tinymdm") {
    if (out.publicKey !== undefined) out.clientId = out.publicKey;
    if (out.secretKey !== undefined) out.clientSecret = out.secretKey;
  }
  return out;
}

function serviceParam(raw: string | undefined): ServiceType {
  if (!raw || !(serviceTypes as readonly string[]).includes(raw)) throw new HttpError(404, `Unknown service ${raw}`);
  return raw as ServiceType;
}

export const credentialRoutes: RouteDef[] = [
  { method: "GET", path: "/api/credentials", handler: ({ app }) => json(app.credentials.views()) },
  {
    method: "GET",
    path: "/api/credentials/connection-status",
    handler: ({ app }) => json(app.credentials.status()),
  },
  {
    method: "POST",
    path: "/api/credentials",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, saveCredentialSchema);
      const view = app.credentials.save(
        input.type,
        { ...fieldsOf(input), name: input.name ?? "" },
        {
          resetHostKey: input.type === "ssh" && input.resetHostKey === true,
        },
      );
      return json(view);
    },
  },
  {
    method: "POST",
    path: "/api/credentials/test",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, testCredentialSchema);
      const given = Object.fromEntries(Object.entries(fieldsOf(input)).filter(([, v]) => v !== ""));
      const values = { ...app.credentials.values(input.type), ...given };
      const { result, pin } = await testService(app, input.type, values);
      // Only a test of the saved credentials says whether the saved ones work.
      const testedSaved = Object.entries(given).every(([k, v]) => app.credentials.values(input.type)[k] === v);
      if (testedSaved) app.credentials.recordTest(input.type, result, result.success ? pin : undefined);
      return json(result);
    },
  },
  {
    method: "DELETE",
    path: "/api/credentials/:type",
    handler: ({ app, params }) => {
      app.credentials.remove(serviceParam(params.type));
      return noContent();
    },
  },
];

import { saveCredentialSchema, type TestResult, testCredentialSchema } from "../../shared/credentials";
import { type AppContext, type RouteDef, route } from "../context";
import { json, noContent } from "../http";
import {
  connectionStatus,
  listCredentials,
  removeCredential,
  saveCredential,
  testCredential,
} from "../integrations/credential-actions";

/**
 * A service's credentials as the audit records them: plain fields by value; a secret field only as set or
 * not and its last 4 under a `(secret)` name, so the audit masks it and still sees that it changed.
 */
function loadCredential(app: AppContext, params: Record<string, string>, body: unknown): object | null {
  const type = params.type ?? (body as { type?: unknown } | undefined)?.type;
  const view = listCredentials(app).find((v) => v.type === type);
  if (!view) return null;
  const fields = view.fields.map((f) =>
    f.secret ? [`${f.name} (secret)`, f.set ? `set ${f.last4 ?? ""}` : "not set"] : [f.name, f.value ?? ""],
  );
  return { id: view.type, name: view.name, configured: view.configured, ...Object.fromEntries(fields) };
}

const testDetail = (answer: unknown) => {
  const result = answer as TestResult | undefined;
  return result ? `${result.success ? "passed" : "failed"}: ${result.message}` : undefined;
};

export const credentialRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/credentials",
    minRole: "admin",
    summary: "Every outside service's credentials (secrets as set/last 4 only)",
    handler: ({ app }) => json(listCredentials(app)),
  }),
  route({
    method: "GET",
    path: "/api/credentials/connection-status",
    minRole: "admin",
    summary: "Whether each outside service is configured and its last test passed",
    handler: ({ app }) => json(connectionStatus(app)),
  }),
  route({
    method: "POST",
    path: "/api/credentials",
    minRole: "admin",
    summary: "Save a service's credentials (an empty secret keeps the stored one)",
    body: saveCredentialSchema,
    publishes: ["credentials-updated"],
    audit: { action: "credential.save", object: "credential", load: loadCredential },
    handler: ({ app, body }) => json(saveCredential(app, body)),
  }),
  route({
    method: "POST",
    path: "/api/credentials/test",
    minRole: "admin",
    summary: "Test Connection with the given or stored credentials (records the result for the saved ones)",
    body: testCredentialSchema,
    publishes: ["credentials-updated"],
    audit: { action: "credential.test", object: "credential", detail: testDetail },
    handler: async ({ app, body }) => json(await testCredential(app, body)),
  }),
  route({
    method: "DELETE",
    path: "/api/credentials/:type",
    minRole: "admin",
    summary: "Forget a service's stored credentials",
    publishes: ["credentials-updated"],
    audit: { action: "credential.delete", object: "credential", load: loadCredential },
    handler: ({ app, params }) => {
      removeCredential(app, params.type);
      return noContent();
    },
  }),
];

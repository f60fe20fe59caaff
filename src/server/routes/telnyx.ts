import { desc, eq } from "drizzle-orm";
import { extensions, sipProviderCredentials } from "../../db/schema";
import {
  createConnectionSchema,
  createSipCredentialSchema,
  type PhoneNumber,
  type RegulatoryRequirement,
  routeNumberSchema,
  type SipConnection,
  type SipCredential,
  type SipServerInfo,
} from "../../shared/telnyx";
import { ServiceError } from "../clients/http";
import type { TelnyxConnection } from "../clients/telnyx";
import type { AppContext, RequestContext, RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";
import { clients } from "../integrations/outside";
import { generateSecret } from "../secrets";

/** Telnyx's signalling addresses (services.md §2, "SIP signalling"). */
const SIP_SERVER: SipServerInfo = { udp: "sip.telnyx.com:5060", tls: "sip.telnyx.com:5061" };

/** Telnyx failures become a 502 carrying Telnyx's own `detail`. */
const telnyx =
  (handler: (ctx: RequestContext) => Promise<Response>) =>
  async (ctx: RequestContext): Promise<Response> => {
    try {
      return await handler(ctx);
    } catch (err) {
      if (err instanceof ServiceError) throw new HttpError(err.status === 404 ? 404 : 502, err.message);
      throw err;
    }
  };

const toConnection = (c: TelnyxConnection): SipConnection => ({
  id: String(c.id),
  connection_name: c.connection_name,
  user_name: c.user_name,
  created_at: c.created_at,
});

type CredRow = typeof sipProviderCredentials.$inferSelect;
function toCredential(app: AppContext, row: CredRow, extension: string | null, reveal = false): SipCredential {
  const password = app.box.decrypt(row.sipPassword);
  return {
    id: row.id,
    name: row.name,
    sip_username: row.sipUsername,
    sip_password: reveal ? password : `••••${password.slice(-4)}`,
    extension,
    connection_id: row.connectionId,
    created_at: row.createdAt.toISOString(),
  };
}

export const telnyxRoutes: RouteDef[] = [
  { method: "GET", path: "/api/telnyx/sip-server", handler: () => json(SIP_SERVER) },
  {
    method: "GET",
    path: "/api/telnyx/connections",
    handler: telnyx(async ({ app }) => json((await clients.telnyx(app).listConnections()).map(toConnection))),
  },
  {
    method: "POST",
    path: "/api/telnyx/connections",
    handler: telnyx(async ({ app, req }) => {
      const input = await parseBody(req, createConnectionSchema);
      const client = clients.telnyx(app);
      const created = await client.createConnection({
        connection_name: input.connectionName,
        user_name: input.username || `pbx${generateSecret(12)}`.replace(/[^A-Za-z0-9]/g, "").slice(0, 32),
        password: input.password || generateSecret(24),
      });
      return json(toConnection(created), 201);
    }),
  },
  {
    method: "DELETE",
    path: "/api/telnyx/connections/:id",
    handler: telnyx(async ({ app, params }) => {
      if (!params.id || !/^[\w-]+$/.test(params.id)) throw new HttpError(404, "Connection not found");
      await clients.telnyx(app).deleteConnection(params.id);
      return noContent();
    }),
  },
  {
    method: "GET",
    path: "/api/telnyx/credentials",
    handler: ({ app }) => {
      const rows = app.db
        .select({ c: sipProviderCredentials, extension: extensions.extension })
        .from(sipProviderCredentials)
        .leftJoin(extensions, eq(extensions.id, sipProviderCredentials.extensionId))
        .orderBy(desc(sipProviderCredentials.createdAt))
        .all();
      return json(rows.map((r) => toCredential(app, r.c, r.extension)));
    },
  },
  {
    method: "GET",
    path: "/api/telnyx/credentials/:id/password",
    handler: ({ app, params }) => {
      const id = parseId(params.id, "Credential");
      const row = app.db.select().from(sipProviderCredentials).where(eq(sipProviderCredentials.id, id)).get();
      if (!row) throw new HttpError(404, "Credential not found");
      return json({ sip_password: app.box.decrypt(row.sipPassword) });
    },
  },
  {
    method: "POST",
    path: "/api/extensions/:extensionId/telnyx-credentials",
    handler: telnyx(async ({ app, req, params }) => {
      const id = parseId(params.extensionId, "Extension");
      const ext = app.db.select().from(extensions).where(eq(extensions.id, id)).get();
      if (!ext) throw new HttpError(404, "Extension not found");
      const { connectionId } = await parseBody(req, createSipCredentialSchema);
      const name = `${ext.extension} - ${ext.name}`.slice(0, 100);
      const cred = await clients.telnyx(app).createTelephonyCredential(connectionId, name);
      const row = app.db
        .insert(sipProviderCredentials)
        .values({
          providerId: cred.id,
          connectionId,
          extensionId: ext.id,
          name,
          sipUsername: cred.sip_username,
          sipPassword: app.box.encrypt(cred.sip_password),
        })
        .returning()
        .get();
      return json(toCredential(app, row, ext.extension), 201);
    }),
  },
  {
    method: "GET",
    path: "/api/telnyx/phone-numbers",
    handler: telnyx(async ({ app }) => {
      const numbers = await clients.telnyx(app).listPhoneNumbers();
      return json(
        numbers.map(
          (n): PhoneNumber => ({
            id: String(n.id),
            phone_number: n.phone_number,
            status: n.status,
            connection_id: n.connection_id,
            connection_name: n.connection_name,
            updated_at: n.updated_at,
          }),
        ),
      );
    }),
  },
  {
    method: "POST",
    path: "/api/telnyx/phone-numbers/:numberId/route",
    handler: telnyx(async ({ app, req, params }) => {
      if (!params.numberId || !/^[\w-]+$/.test(params.numberId)) throw new HttpError(404, "Phone number not found");
      const { connectionId } = await parseBody(req, routeNumberSchema);
      const n = await clients.telnyx(app).routePhoneNumber(params.numberId, connectionId ? connectionId : null);
      const body: PhoneNumber = {
        id: String(n.id),
        phone_number: n.phone_number,
        status: n.status,
        connection_id: n.connection_id,
        connection_name: n.connection_name,
        updated_at: n.updated_at,
      };
      return json(body);
    }),
  },
  {
    method: "GET",
    path: "/api/telnyx/regulatory-requirements",
    handler: telnyx(async ({ app, url }) => {
      const country = url.searchParams.get("countryCode") ?? "IL";
      const type = url.searchParams.get("phoneNumberType") ?? "local";
      if (!/^[A-Z]{2}$/.test(country)) throw new HttpError(400, "countryCode must be an ISO 3166 alpha-2 code");
      if (!/^[a-z_]{1,20}$/.test(type)) throw new HttpError(400, "phoneNumberType is not valid");
      const requirements = await clients.telnyx(app).requirements(country, type);
      const items: RegulatoryRequirement[] = requirements.flatMap((r) =>
        (r.requirement_types ?? []).map((t) => ({
          description: t.description ?? t.name,
          field_type: t.type,
          acceptance_criteria: {
            time_limit: t.acceptance_criteria?.time_limit ?? null,
            locality_limit: t.acceptance_criteria?.locality_limit ?? null,
          },
          record_type: t.record_type ?? "requirement_type",
        })),
      );
      return json(items);
    }),
  },
];

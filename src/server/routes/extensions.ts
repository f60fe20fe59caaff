import { eq } from "drizzle-orm";
import QRCode from "qrcode";
import type { Db } from "../../db/client";
import { extensions, inboundRoutes, pttGroups } from "../../db/schema";
import type { Extension, ProvisioningConfig, ProvisioningResponse } from "../../shared/inventory";
import { extensionSchema } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";
import type { Config } from "../config";
import type { RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";
import { generateSecret } from "../secrets";

type Row = typeof extensions.$inferSelect;

/** The wire form: never the secret. */
export const toExtension = ({ secret, ...rest }: Row): Extension => ({
  ...rest,
  hasSecret: Boolean(secret),
  createdAt: rest.createdAt.toISOString(),
});

export function findExtension(db: Db, id: number): Row {
  const row = db.select().from(extensions).where(eq(extensions.id, id)).get();
  if (!row) throw new HttpError(404, "Extension not found");
  return row;
}

/** Softphone payload of spec section 3, and the link that carries it as base64 JSON. */
export const PROVISIONING_SCHEME = "pbxconsole";

export function provisioningFor(db: Db, config: Config, row: Row): { config: ProvisioningConfig; link: string } {
  const groups = db
    .select()
    .from(pttGroups)
    .all()
    .filter((g) => g.members.includes(row.extension))
    .sort((a, b) => byNumber(a.extension, b.extension));
  const payload: ProvisioningConfig = {
    sip_server: config.sip.host,
    sip_port: config.sip.port,
    transport: config.sip.transport.toUpperCase(),
    username: row.extension,
    password: row.secret ?? "",
    display_name: row.name,
    ptt_enabled: true,
    ptt_groups: groups.map((g) => ({
      id: g.id,
      name: g.name,
      number: g.extension,
      mode: g.duplex ? "duplex" : "simplex",
    })),
  };
  const encoded = Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
  return { config: payload, link: `${PROVISIONING_SCHEME}://provision?config=${encodeURIComponent(encoded)}` };
}

export const qrDataUrl = (text: string) => QRCode.toDataURL(text, { errorCorrectionLevel: "M", margin: 2, width: 320 });

/** Why an extension number cannot be used, or null. */
export function numberTaken(db: Db, number: string): string | null {
  if (db.select({ id: extensions.id }).from(extensions).where(eq(extensions.extension, number)).get()) {
    return `Extension ${number} already exists`;
  }
  const group = db.select({ name: pttGroups.name }).from(pttGroups).where(eq(pttGroups.extension, number)).get();
  if (group) return `${number} is already the number of PTT group ${group.name}`;
  return null;
}

export const extensionRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/extensions",
    handler: ({ app }) =>
      json(
        app.db
          .select()
          .from(extensions)
          .all()
          .sort((a, b) => byNumber(a.extension, b.extension))
          .map(toExtension),
      ),
  },
  {
    method: "POST",
    path: "/api/extensions",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, extensionSchema);
      const taken = numberTaken(app.db, input.extension);
      if (taken) throw new HttpError(409, taken, { extension: taken });
      const row = app.db
        .insert(extensions)
        .values({ ...input, secret: input.secret ?? generateSecret() })
        .returning()
        .get();
      app.hub.publish({ type: "extensions-updated", data: { id: row.id, action: "created" } });
      return json(toExtension(row), 201);
    },
  },
  {
    method: "DELETE",
    path: "/api/extensions/:id",
    handler: ({ app, params }) => {
      const row = findExtension(app.db, parseId(params.id, "Extension"));
      const groups = app.db
        .select({ name: pttGroups.name, members: pttGroups.members })
        .from(pttGroups)
        .all()
        .filter((g) => g.members.includes(row.extension))
        .map((g) => g.name);
      if (groups.length) {
        throw new HttpError(
          409,
          `Extension ${row.extension} is a member of PTT group(s): ${groups.join(", ")}. Remove it there first.`,
        );
      }
      const routes = app.db
        .select({
          description: inboundRoutes.description,
          type: inboundRoutes.destinationType,
          destination: inboundRoutes.destination,
        })
        .from(inboundRoutes)
        .all()
        .filter((r) => (r.type === "extension" || r.type === "voicemail") && r.destination === row.extension)
        .map((r) => r.description);
      if (routes.length) {
        throw new HttpError(
          409,
          `Inbound route(s) ${routes.join(", ")} send calls to extension ${row.extension}. Change them first.`,
        );
      }
      app.db.delete(extensions).where(eq(extensions.id, row.id)).run();
      app.hub.publish({ type: "extensions-updated", data: { id: row.id, action: "deleted" } });
      return noContent();
    },
  },
  {
    method: "GET",
    path: "/api/extensions/:id/qr-code",
    handler: async ({ app, params }) => {
      const row = findExtension(app.db, parseId(params.id, "Extension"));
      const { link } = provisioningFor(app.db, app.config, row);
      return json({ qrCode: await qrDataUrl(link) });
    },
  },
  {
    method: "GET",
    path: "/api/extensions/:id/provisioning",
    handler: async ({ app, params }) => {
      const row = findExtension(app.db, parseId(params.id, "Extension"));
      const { config, link } = provisioningFor(app.db, app.config, row);
      const body: ProvisioningResponse = { config, link, qrCode: await qrDataUrl(link) };
      return json(body);
    },
  },
];

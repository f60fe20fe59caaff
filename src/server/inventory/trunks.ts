/**
 * SIP trunks: the connections to a provider. Names are unique, and a trunk that
 * a route still uses cannot be deleted.
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { inboundRoutes, outboundRoutes, trunks } from "../../db/schema";
import { type Trunk, trunkAuthModeOf, type trunkSchema } from "../../shared/inventory";
import type { Deps } from "../domain/deps";
import { Conflict, NotFound } from "../domain/errors";

export type TrunkRow = typeof trunks.$inferSelect;
export type TrunkInput = z.output<typeof trunkSchema>;

/** The wire form: never the secret. */
export const toTrunk = ({ secret, ...rest }: TrunkRow): Trunk => ({
  ...rest,
  hasSecret: Boolean(secret),
  createdAt: rest.createdAt.toISOString(),
});

/** Whether a trunk with this id exists. */
export const trunkExists = (db: Db, id: number): boolean =>
  Boolean(db.select({ id: trunks.id }).from(trunks).where(eq(trunks.id, id)).get());

/** Every trunk, by name. */
export function listTrunks(deps: Pick<Deps, "db">): Trunk[] {
  return deps.db.select().from(trunks).orderBy(trunks.name).all().map(toTrunk);
}

/**
 * Creates a trunk; its secret is stored sealed (`sip-secrets.ts`). An IP-authenticated trunk keeps
 * no credentials and does not register (whatever the body carried): the provider is trusted by its
 * addresses; a trunk with credentials keeps no provider addresses.
 */
export function createTrunk(deps: Pick<Deps, "db" | "events" | "box">, input: TrunkInput): Trunk {
  const clash = deps.db.select({ id: trunks.id }).from(trunks).where(eq(trunks.name, input.name)).get();
  if (clash) throw new Conflict(`A trunk named ${input.name} already exists`, { name: "Name already in use" });
  const authMode = trunkAuthModeOf(input);
  const credentials = authMode === "credentials";
  const row = deps.db
    .insert(trunks)
    .values({
      ...input,
      authMode,
      username: credentials ? input.username : null,
      secret: credentials ? deps.box.seal(input.secret) : null,
      registrationEnabled: credentials && input.registrationEnabled,
      providerAddresses: credentials ? [] : [...new Set(input.providerAddresses)],
    })
    .returning()
    .get();
  deps.events.publish({ type: "trunks-updated", data: { id: row.id, action: "created" } });
  return toTrunk(row);
}

/** Deletes a trunk that no outbound or inbound route uses. */
export function deleteTrunk(deps: Pick<Deps, "db" | "events">, id: number): void {
  const row = deps.db.select().from(trunks).where(eq(trunks.id, id)).get();
  if (!row) throw new NotFound("Trunk");
  const outbound = deps.db
    .select({ name: outboundRoutes.name })
    .from(outboundRoutes)
    .where(eq(outboundRoutes.trunkId, id))
    .all()
    .map((r) => r.name);
  if (outbound.length) {
    throw new Conflict(
      `Trunk ${row.name} is used by outbound route(s): ${outbound.join(", ")}. Delete or change them first.`,
    );
  }
  // Deleting silently would turn these into "Any Trunk" routes (the FK's ON DELETE SET NULL).
  const inbound = deps.db
    .select({ description: inboundRoutes.description })
    .from(inboundRoutes)
    .where(eq(inboundRoutes.trunkId, id))
    .all()
    .map((r) => r.description);
  if (inbound.length) {
    throw new Conflict(
      `Trunk ${row.name} is used by inbound route(s): ${inbound.join(", ")}. Delete or change them first.`,
    );
  }
  deps.db.delete(trunks).where(eq(trunks.id, id)).run();
  deps.events.publish({ type: "trunks-updated", data: { id, action: "deleted" } });
}

/**
 * SIP trunks: the connections to a provider. Names are unique, and a trunk that
 * an outbound route still uses cannot be deleted.
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { outboundRoutes, trunks } from "../../db/schema";
import {
  type Trunk,
  trunkAuthModeOf,
  trunkChannelId,
  type trunkPatchSchema,
  trunkSchema,
} from "../../shared/inventory";
import type { DeleteAnswer, Dependents } from "../../shared/safe-delete";
import type { Deps } from "../core/deps";
import { Conflict, Gone, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { mergePatch } from "./patch";

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
 * Trunk names are unique, compared as FreePBX's channel id (`trunkChannelId`: "My Trunk" and "My_Trunk"
 * would be one PJSIP section); `exceptId` is the trunk being edited.
 */
function assertTrunkNameFree(db: Db, name: string, exceptId?: number): void {
  const channel = trunkChannelId(name);
  const clash = db
    .select({ id: trunks.id, name: trunks.name })
    .from(trunks)
    .all()
    .find((t) => t.id !== exceptId && trunkChannelId(t.name) === channel);
  if (!clash) return;
  const message =
    clash.name === name
      ? `A trunk named ${name} already exists`
      : `Trunk ${clash.name} has the same FreePBX channel id (${channel})`;
  throw new Conflict(message, { name: clash.name === name ? "Name already in use" : message });
}

/** The row a trunk is stored as: its secret sealed; authentication decides which fields it keeps. */
function storedTrunk(box: Deps["box"], input: TrunkInput) {
  const authMode = trunkAuthModeOf(input);
  const credentials = authMode === "credentials";
  return {
    ...input,
    authMode,
    username: credentials ? input.username : null,
    secret: credentials ? box.seal(input.secret) : null,
    registrationEnabled: credentials && input.registrationEnabled,
    providerAddresses: credentials ? [] : [...new Set(input.providerAddresses)],
  };
}

/**
 * Creates a trunk; its secret is stored sealed (`sip-secrets.ts`). An IP-authenticated trunk keeps
 * no credentials and does not register (whatever the body carried): the provider is trusted by its
 * addresses; a trunk with credentials keeps no provider addresses.
 */
export function createTrunk(deps: Pick<Deps, "db" | "events" | "box">, input: TrunkInput): Trunk {
  assertTrunkNameFree(deps.db, input.name);
  const row = deps.db.insert(trunks).values(storedTrunk(deps.box, input)).returning().get();
  deps.events.publish({ type: "trunks-updated", data: { id: row.id, action: "created" } });
  return toTrunk(row);
}

/**
 * What depends on a trunk: the outbound routes that dial out through it (any blocks its delete). An
 * inbound route's old trunk does not: FreePBX matches a call to an inbound route by its DID, never by
 * the trunk it came in on, so the console no longer keeps one (ADR 0037).
 */
export function trunkDependents(db: Db, row: TrunkRow): Dependents {
  const outbound = db
    .select({ id: outboundRoutes.id, name: outboundRoutes.name })
    .from(outboundRoutes)
    .where(eq(outboundRoutes.trunkId, row.id))
    .all();
  return {
    dependents: outbound.map((r) => ({ kind: "outbound-route" as const, id: r.id, label: r.name })),
    blockedBecause: outbound.length
      ? `Trunk ${row.name} is used by outbound route(s): ${outbound.map((r) => r.name).join(", ")}. Delete or change them first.`
      : null,
  };
}

function findTrunk(db: Db, id: number): TrunkRow {
  const row = db.select().from(trunks).where(eq(trunks.id, id)).get();
  if (!row) throw new NotFound("Trunk");
  return row;
}

/** GET /api/trunks/:id/dependents. */
export const dependentsOfTrunk = (deps: Pick<Deps, "db">, id: number): Dependents =>
  trunkDependents(deps.db, findTrunk(deps.db, id));

/** Deletes a trunk no outbound route uses; the answer's token restores it for a few seconds. */
export function deleteTrunk(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findTrunk(deps.db, id);
  const { blockedBecause } = trunkDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  // An inbound route's old trunk link goes with it (ON DELETE SET NULL); it did nothing (see above).
  deps.db.delete(trunks).where(eq(trunks.id, id)).run();
  deps.events.publish({ type: "trunks-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "trunk", (d) => restoreTrunk(d, row));
}

/** Puts a deleted trunk back as it was (same id, same sealed secret), unless its name was taken since. */
function restoreTrunk(deps: RestoreDeps, row: TrunkRow): Trunk {
  const clash = deps.db.select({ id: trunks.id }).from(trunks).where(eq(trunks.name, row.name)).get();
  if (clash) throw new Gone(`Trunk ${row.name} cannot be restored: a trunk named ${row.name} was created since.`);
  deps.db.insert(trunks).values(row).run();
  deps.events.publish({ type: "trunks-updated", data: { id: row.id, action: "created" } });
  return toTrunk(row);
}

export type TrunkPatch = z.output<typeof trunkPatchSchema>;

/**
 * Edits a trunk: the given fields over the stored ones, validated by the create schema (the same
 * authentication rules). A blank (or absent) secret keeps the stored one; the name stays unique.
 */
export function updateTrunk(deps: Pick<Deps, "db" | "events" | "box">, id: number, patch: TrunkPatch): Trunk {
  const row = deps.db.select().from(trunks).where(eq(trunks.id, id)).get();
  if (!row) throw new NotFound("Trunk");
  const { id: _id, createdAt: _createdAt, secret: stored, ...current } = row;
  const secret = patch.secret || deps.box.open(stored);
  const input = validate(trunkSchema, mergePatch(current, { ...patch, secret }));
  assertTrunkNameFree(deps.db, input.name, id);
  const updated = deps.db.update(trunks).set(storedTrunk(deps.box, input)).where(eq(trunks.id, id)).returning().get();
  deps.events.publish({ type: "trunks-updated", data: { id, action: "updated" } });
  return toTrunk(updated);
}

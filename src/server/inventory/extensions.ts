/**
 * Extensions: the console's phones. The number is unique across extensions and
 * PTT groups (`numbers.ts`); a stored SIP secret is sealed (`sip-secrets.ts`) and never
 * leaves the server except in the softphone provisioning payload (`provisioning.ts`)
 * and the configuration sent to the PBX.
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { extensions, inboundRoutes } from "../../db/schema";
import { type Extension, type extensionPatchSchema, extensionSchema } from "../../shared/inventory";
import type { DeleteAnswer, Dependents } from "../../shared/safe-delete";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../core/deps";
import { Conflict, Gone, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { keyChangeRefusal } from "../pbx/objects/managed";
import { generateSecret } from "../secrets";
import { assertNumberFree, numberTakenMessage } from "./numbers";
import { mergePatch } from "./patch";
import { groupsWithMember } from "./ptt-groups";

export type ExtensionRow = typeof extensions.$inferSelect;
export type ExtensionInput = z.output<typeof extensionSchema>;

/** The wire form: never the secret. */
export const toExtension = ({ secret, ...rest }: ExtensionRow): Extension => ({
  ...rest,
  hasSecret: Boolean(secret),
  createdAt: rest.createdAt.toISOString(),
});

/** The stored extension, or `NotFound`. */
export function findExtension(db: Db, id: number): ExtensionRow {
  const row = db.select().from(extensions).where(eq(extensions.id, id)).get();
  if (!row) throw new NotFound("Extension");
  return row;
}

/** Why a new extension cannot take this number, or null (the rule itself is in `numbers.ts`). */
export const numberTaken = (db: Db, number: string): string | null => numberTakenMessage(db, number, "extension");

/** Every extension, in numeric order. */
export function listExtensions(deps: Pick<Deps, "db">): Extension[] {
  return deps.db
    .select()
    .from(extensions)
    .all()
    .sort((a, b) => byNumber(a.extension, b.extension))
    .map(toExtension);
}

/** Creates an extension; without a secret a strong random one is generated. The secret is stored sealed. */
export function createExtension(deps: Pick<Deps, "db" | "events" | "box">, input: ExtensionInput): Extension {
  assertNumberFree(deps.db, input.extension, "extension");
  const row = deps.db
    .insert(extensions)
    .values({ ...input, secret: deps.box.seal(input.secret ?? generateSecret()) })
    .returning()
    .get();
  deps.events.publish({ type: "extensions-updated", data: { id: row.id, action: "created" } });
  return toExtension(row);
}

/**
 * What depends on an extension: the PTT groups that page it and the inbound routes that send calls to
 * it (or its voicemail). Any of them blocks its delete; `blockedBecause` says what to change first.
 */
export function extensionDependents(db: Db, row: ExtensionRow): Dependents {
  const groups = groupsWithMember(db, row.extension);
  const routes = db
    .select({
      id: inboundRoutes.id,
      description: inboundRoutes.description,
      type: inboundRoutes.destinationType,
      destination: inboundRoutes.destination,
    })
    .from(inboundRoutes)
    .all()
    .filter((r) => (r.type === "extension" || r.type === "voicemail") && r.destination === row.extension);
  const why: string[] = [];
  if (groups.length) {
    why.push(
      `Extension ${row.extension} is a member of PTT group(s): ${groups.map((g) => g.name).join(", ")}. Remove it there first.`,
    );
  }
  if (routes.length) {
    why.push(
      `Inbound route(s) ${routes.map((r) => r.description).join(", ")} send calls to extension ${row.extension}. Change them first.`,
    );
  }
  return {
    dependents: [
      ...groups.map((g) => ({ kind: "ptt-group" as const, id: g.id, label: g.name })),
      ...routes.map((r) => ({ kind: "inbound-route" as const, id: r.id, label: r.description })),
    ],
    blockedBecause: why.length ? why.join(" ") : null,
  };
}

/** GET /api/extensions/:id/dependents. */
export const dependentsOfExtension = (deps: Pick<Deps, "db">, id: number): Dependents =>
  extensionDependents(deps.db, findExtension(deps.db, id));

/** Deletes an extension that nothing depends on; the answer's token restores it for a few seconds. */
export function deleteExtension(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findExtension(deps.db, id);
  const { blockedBecause } = extensionDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(extensions).where(eq(extensions.id, row.id)).run();
  deps.events.publish({ type: "extensions-updated", data: { id: row.id, action: "deleted" } });
  return keepForUndo(deps, "extension", (d) => restoreExtension(d, row));
}

/** Puts a deleted extension back as it was (same id, same sealed secret), unless its number was taken since. */
function restoreExtension(deps: RestoreDeps, row: ExtensionRow): Extension {
  const taken = numberTakenMessage(deps.db, row.extension, "extension");
  if (taken) throw new Gone(`Extension ${row.extension} cannot be restored: ${taken}.`);
  deps.db.insert(extensions).values(row).run();
  deps.events.publish({ type: "extensions-updated", data: { id: row.id, action: "created" } });
  return toExtension(row);
}

export type ExtensionPatch = z.output<typeof extensionPatchSchema>;

/**
 * Edits an extension: the given fields over the stored ones, validated by the create schema. A blank
 * (or absent) secret keeps the stored sealed one. A new number must be free (`numbers.ts`), and is
 * refused while a PTT group or an inbound route uses the old one: they are named (ADR 0036).
 */
export function updateExtension(
  deps: Pick<Deps, "db" | "events" | "box">,
  id: number,
  patch: ExtensionPatch,
): Extension {
  const row = findExtension(deps.db, id);
  const { id: _id, createdAt: _createdAt, userId: _userId, secret: stored, ...current } = row;
  const input = validate(extensionSchema, mergePatch(current, { ...patch, secret: patch.secret ?? null }));
  if (input.extension !== row.extension) {
    const deployed = keyChangeRefusal(deps.db, "extension", row.id, row.extension, input.extension);
    if (deployed) throw new Conflict(deployed, { extension: deployed });
    assertNumberFree(deps.db, input.extension, "extension");
    const users = extensionDependents(deps.db, row).dependents;
    if (users.length) {
      const named = users.map((d) => `${d.kind === "ptt-group" ? "PTT group" : "inbound route"} ${d.label}`);
      const message = `Extension ${row.extension} cannot become ${input.extension} while ${named.join(", ")} use${users.length === 1 ? "s" : ""} it. Change ${users.length === 1 ? "it" : "them"} first.`;
      throw new Conflict(message, { extension: message });
    }
  }
  const secret = input.secret ? deps.box.seal(input.secret) : (stored ?? deps.box.seal(generateSecret()));
  const updated = deps.db
    .update(extensions)
    .set({ ...input, secret })
    .where(eq(extensions.id, id))
    .returning()
    .get();
  deps.events.publish({ type: "extensions-updated", data: { id, action: "updated" } });
  return toExtension(updated);
}

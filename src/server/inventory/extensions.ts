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
import type { Extension, extensionSchema } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../domain/deps";
import { Conflict, NotFound } from "../domain/errors";
import { generateSecret } from "../secrets";
import { assertNumberFree, numberTakenMessage } from "./numbers";
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

/** Deletes an extension that no PTT group pages and no inbound route sends calls to. */
export function deleteExtension(deps: Pick<Deps, "db" | "events">, id: number): void {
  const row = findExtension(deps.db, id);
  const groups = groupsWithMember(deps.db, row.extension).map((g) => g.name);
  if (groups.length) {
    throw new Conflict(
      `Extension ${row.extension} is a member of PTT group(s): ${groups.join(", ")}. Remove it there first.`,
    );
  }
  const routes = deps.db
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
    throw new Conflict(
      `Inbound route(s) ${routes.join(", ")} send calls to extension ${row.extension}. Change them first.`,
    );
  }
  deps.db.delete(extensions).where(eq(extensions.id, row.id)).run();
  deps.events.publish({ type: "extensions-updated", data: { id: row.id, action: "deleted" } });
}

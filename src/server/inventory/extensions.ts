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
import type { ExtensionRecordingField } from "../../shared/recording-policy";
import { type DeleteAnswer, type Dependents, KIND_WORDS } from "../../shared/safe-delete";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../core/deps";
import { Conflict, Gone, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { keyChangeRefusal } from "../pbx/objects/managed";
import { generateSecret } from "../secrets";
import { callFlowSendersText, sendersAsDependents, sendersTo } from "./call-targets";
import { assertNumberFree, numberTakenMessage } from "./numbers";
import { mergePatch } from "./patch";
import { groupsWithMember } from "./ptt-groups";
import { leaveQueues, queueUses, rejoinQueues } from "./queues";
import { leaveRingGroups, rejoinRingGroups, ringGroupUses } from "./ring-groups";

export type ExtensionRow = typeof extensions.$inferSelect;
type ExtensionOutput = z.output<typeof extensionSchema>;
/** What create takes: the schema's output, its recording fields optional (the column defaults are FreePBX's). */
export type ExtensionInput = Omit<ExtensionOutput, ExtensionRecordingField> &
  Partial<Pick<ExtensionOutput, ExtensionRecordingField>>;

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
 * What depends on an extension: the PTT groups that page it, the inbound routes, ring groups and queues that
 * send calls to it (or its voicemail), and the ring groups and queues it is a member (agent) of. Any of them
 * blocks its delete except a ring group membership or a queue agent: the extension leaves the group or queue,
 * as FreePBX's own delete does, unless it is the only one there (ADR 0056, 0057). `blockedBecause` says what
 * to change first.
 */
export function extensionDependents(db: Db, row: ExtensionRow): Dependents {
  const groups = groupsWithMember(db, row.extension);
  const { member: rings, destination: sending } = ringGroupUses(db, row.extension);
  const alone = rings.filter((g) => g.members.every((m) => m === row.extension));
  const { agent: answering, destination: waiting } = queueUses(db, row.extension);
  const lone = answering.filter((q) => q.agents.every((a) => a === row.extension));
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
  if (sending.length) {
    why.push(
      `Ring group(s) ${sending.map((g) => `${g.name} (${g.number})`).join(", ")} send unanswered calls to extension ${row.extension}. Change them first.`,
    );
  }
  if (alone.length) {
    why.push(
      `Extension ${row.extension} is the only member of ring group(s) ${alone.map((g) => `${g.name} (${g.number})`).join(", ")}. Add another member or delete the group first.`,
    );
  }
  if (waiting.length) {
    why.push(
      `Queue(s) ${waiting.map((q) => `${q.name} (${q.number})`).join(", ")} send callers to extension ${row.extension} after their max wait. Change them first.`,
    );
  }
  if (lone.length) {
    why.push(
      `Extension ${row.extension} is the only agent of queue(s) ${lone.map((q) => `${q.name} (${q.number})`).join(", ")}. Add another agent or delete the queue first.`,
    );
  }
  // IVRs and announcements that send calls to the extension or its voicemail.
  const menus = sendersTo(db, ["extension", "voicemail"], row.extension);
  const flows = { ...menus, routes: [], ringGroups: [], queues: [] };
  const flowText = callFlowSendersText(flows, `extension ${row.extension}`);
  if (flowText.length) why.push(`${flowText.join(" ")} Change them first.`);
  const ringIds = new Set<number>();
  const queueIds = new Set<number>();
  return {
    dependents: [
      ...groups.map((g) => ({ kind: "ptt-group" as const, id: g.id, label: g.name })),
      ...routes.map((r) => ({ kind: "inbound-route" as const, id: r.id, label: r.description })),
      // A membership alone does not block: the label says the extension leaves the group.
      ...[...sending, ...rings]
        .filter((g) => !ringIds.has(g.id) && ringIds.add(g.id))
        .map((g) => ({
          kind: "ring-group" as const,
          id: g.id,
          label: sending.includes(g) || alone.includes(g) ? g.name : `${g.name} (as a member: the extension leaves it)`,
        })),
      // An agent alone does not block either: the extension leaves the queue.
      ...[...waiting, ...answering]
        .filter((q) => !queueIds.has(q.id) && queueIds.add(q.id))
        .map((q) => ({
          kind: "queue" as const,
          id: q.id,
          label: waiting.includes(q) || lone.includes(q) ? q.name : `${q.name} (as an agent: the extension leaves it)`,
        })),
      ...sendersAsDependents(flows),
    ],
    blockedBecause: why.length ? why.join(" ") : null,
  };
}

/** GET /api/extensions/:id/dependents. */
export const dependentsOfExtension = (deps: Pick<Deps, "db">, id: number): Dependents =>
  extensionDependents(deps.db, findExtension(deps.db, id));

/**
 * Deletes an extension that nothing depends on, taking it out of the ring groups it is a member of and the
 * queues it is an agent of (in one transaction); the answer's token restores it, and its memberships, for a
 * few seconds.
 */
export function deleteExtension(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findExtension(deps.db, id);
  const { blockedBecause } = extensionDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  const left = deps.db.transaction((tx) => {
    const groups = leaveRingGroups(tx, row.extension);
    const queues = leaveQueues(tx, row.extension);
    tx.delete(extensions).where(eq(extensions.id, row.id)).run();
    return { groups, queues };
  });
  deps.events.publish({ type: "extensions-updated", data: { id: row.id, action: "deleted" } });
  publishLeft(deps, left);
  return keepForUndo(deps, "extension", (d) => restoreExtension(d, row, left));
}

/** What a deleted extension left: the ring groups' members and the queues' agents before it left them. */
interface Left {
  groups: { id: number; members: string[] }[];
  queues: { id: number; agents: string[] }[];
}

const publishLeft = (deps: Pick<Deps, "events">, left: Left) => {
  for (const g of left.groups)
    deps.events.publish({ type: "ring-groups-updated", data: { id: g.id, action: "updated" } });
  for (const q of left.queues) deps.events.publish({ type: "queues-updated", data: { id: q.id, action: "updated" } });
};

/**
 * Puts a deleted extension back as it was (same id, same sealed secret) and into the ring groups and queues
 * it left, unless its number was taken since.
 */
function restoreExtension(deps: RestoreDeps, row: ExtensionRow, left: Left): Extension {
  const taken = numberTakenMessage(deps.db, row.extension, "extension");
  if (taken) throw new Gone(`Extension ${row.extension} cannot be restored: ${taken}.`);
  deps.db.transaction((tx) => {
    tx.insert(extensions).values(row).run();
    rejoinRingGroups(tx, row.extension, left.groups);
    rejoinQueues(tx, row.extension, left.queues);
  });
  deps.events.publish({ type: "extensions-updated", data: { id: row.id, action: "created" } });
  publishLeft(deps, left);
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
      // A ring group or queue by its name alone (its dependent's label also says a delete would take the member out).
      const ringNames = new Map(ringGroupUses(deps.db, row.extension).member.map((g) => [g.id, g.name]));
      const queueNames = new Map(queueUses(deps.db, row.extension).agent.map((q) => [q.id, q.name]));
      const label = (d: (typeof users)[number]) =>
        d.kind === "ring-group"
          ? (ringNames.get(d.id) ?? d.label)
          : d.kind === "queue"
            ? (queueNames.get(d.id) ?? d.label)
            : d.label;
      const named = users.map((d) => `${KIND_WORDS[d.kind]} ${label(d)}`);
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

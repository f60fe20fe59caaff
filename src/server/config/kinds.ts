/**
 * Each kind of the configuration document (ADR 0075) as the console holds it: its key, its object as the
 * document writes it (references by name, never by the console's ids; secrets as references), and the way back
 * to the input its create schema checks. Writes go through the entity's own create, update and delete, so a
 * document obeys every rule a form does.
 */
import { extensions, trunks } from "../../db/schema";
import { aiAssistantSchema } from "../../shared/ai/assistants";
import { aiRoutingRuleSchema } from "../../shared/ai/routing-rules";
import { announcementSchema, ivrSchema, timeConditionSchema, timeGroupSchema } from "../../shared/call-flow";
import type { ConfigKind, SecretRef } from "../../shared/config-document";
import type { Destination, DestinationKind } from "../../shared/destinations";
import {
  extensionSchema,
  inboundRouteSchema,
  outboundRouteSchema,
  pttGroupSchema,
  queueSchema,
  ringGroupSchema,
  trunkSchema,
} from "../../shared/inventory";
import { createAssistant, deleteAssistant, listAssistants, updateAssistant } from "../ai/assistants";
import { createRule, deleteRule, listRules, updateRule } from "../ai/rules";
import type { Deps } from "../core/deps";
import {
  createAnnouncement,
  deleteAnnouncement,
  listAnnouncements,
  updateAnnouncement,
} from "../inventory/announcements";
import {
  createInboundRoute,
  createOutboundRoute,
  deleteInboundRoute,
  deleteOutboundRoute,
  listInboundRoutes,
  listOutboundRoutes,
  updateInboundRoute,
  updateOutboundRoute,
} from "../inventory/call-routes";
import { createExtension, deleteExtension, listExtensions, updateExtension } from "../inventory/extensions";
import { createIvr, deleteIvr, listIvrs, updateIvr } from "../inventory/ivrs";
import { createPttGroup, deletePttGroup, listPttGroups, updatePttGroup } from "../inventory/ptt-groups";
import { createQueue, deleteQueue, listQueues, updateQueue } from "../inventory/queues";
import { createRingGroup, deleteRingGroup, listRingGroups, updateRingGroup } from "../inventory/ring-groups";
import {
  createTimeCondition,
  createTimeGroup,
  deleteTimeCondition,
  deleteTimeGroup,
  listTimeConditions,
  listTimeGroups,
  updateTimeCondition,
  updateTimeGroup,
} from "../inventory/time-conditions";
import { createTrunk, deleteTrunk, listTrunks, updateTrunk } from "../inventory/trunks";

export type ConfigDeps = Pick<Deps, "db" | "events" | "now" | "box">;
export type Obj = Record<string, unknown>;

/** The kinds other objects name: outbound routes a trunk, a time condition its group, destinations the rest. */
export const NAMED_KINDS = ["trunks", "timeGroups", "ivrs", "announcements", "timeConditions"] as const;
export type NamedKind = (typeof NAMED_KINDS)[number];
export const isNamedKind = (kind: ConfigKind): kind is NamedKind => (NAMED_KINDS as readonly string[]).includes(kind);

/** A destination kind whose target is a console object's id (ADR 0059), which the document writes as its name. */
const NAMED_TARGETS: Partial<Record<DestinationKind, NamedKind>> = {
  ivr: "ivrs",
  announcement: "announcements",
  "time-condition": "timeConditions",
};

/**
 * Names ↔ ids of the objects other objects name. `id` answers the console's id of a name, or (while a plan
 * compares) a stand-in id for an object the document creates, or `DEFER` while a write cannot name it yet.
 */
export interface Refs {
  name(kind: NamedKind, id: number): string | null;
  id(kind: NamedKind, name: string, path: (string | number)[]): number | typeof DEFER | null;
}

/** A reference to an object the same write creates later: left out now, written in a second pass. */
export const DEFER = Symbol("defer");

/** One kind: how the document writes its objects and how they go back into the console. */
export interface Kind {
  kind: ConfigKind;
  /** The field that names an object in the document (its number, name or DID). */
  keyField: string;
  /** The create schema the document's object is checked with (after its references became ids). */
  schema: { safeParse(data: unknown): { success: boolean; data?: unknown; error?: { issues: Issue[] } } };
  /** The field that holds the object's secret, when it has one. */
  secretField?: "secret";
  /** The console's objects of this kind, as the API lists them (never a secret). */
  list(deps: ConfigDeps): Obj[];
  /** The key of a console object or a checked input. */
  key(o: Obj): string;
  /** The document's form of a console object or a checked input: references by name. */
  toDoc(o: Obj, refs: Refs): Obj;
  /**
   * A document object as the create schema's input: names resolved to ids. `deferred` is set when a reference
   * was left out for the second pass.
   */
  toInput(doc: Obj, refs: Refs, path: (string | number)[], deferred: { set: boolean }): Obj;
  create(deps: ConfigDeps, input: Obj): number;
  update(deps: ConfigDeps, id: number, input: Obj): void;
  remove(deps: ConfigDeps, id: number): void;
}

interface Issue {
  path: PropertyKey[];
  message: string;
}

const pick = (o: Obj, fields: readonly string[]): Obj => Object.fromEntries(fields.map((f) => [f, o[f] ?? null]));
const fieldsOf = (schema: unknown, except: readonly string[] = []): string[] =>
  Object.keys((schema as { shape: Obj }).shape).filter((f) => !except.includes(f));
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A destination with its target named (IVRs, announcements, time conditions), as the document writes it. */
function destinationToDoc(d: unknown, refs: Refs): unknown {
  if (!isObj(d)) return d ?? null;
  const named = NAMED_TARGETS[d.kind as DestinationKind];
  if (!named) return { kind: d.kind, target: d.target };
  return { kind: d.kind, target: refs.name(named, Number(d.target)) ?? d.target };
}

/** A document's destination with its named target as the console's id; DEFER when that object comes later. */
function destinationToInput(d: unknown, refs: Refs, path: (string | number)[]): Destination | typeof DEFER | unknown {
  if (!isObj(d)) return d;
  const named = NAMED_TARGETS[d.kind as DestinationKind];
  if (!named || typeof d.target !== "string") return d;
  const id = refs.id(named, d.target, [...path, "target"]);
  if (id === DEFER) return DEFER;
  return { kind: d.kind, target: id === null ? d.target : String(id) };
}

/** `destinationToInput` for a field that may be null: a deferred one is null for the first pass. */
function optionalDestination(
  doc: Obj,
  field: string,
  refs: Refs,
  path: (string | number)[],
  deferred: { set: boolean },
): unknown {
  const value = destinationToInput(doc[field], refs, [...path, field]);
  if (value !== DEFER) return value;
  deferred.set = true;
  return null;
}

const secretRef = (kind: ConfigKind, key: string): SecretRef => ({ ref: `${kind}/${key}` });

/** A kind whose objects hold no references: the document writes the create schema's fields as they are. */
function plain(
  kind: ConfigKind,
  keyField: string,
  schema: Kind["schema"],
  fields: readonly string[],
  ops: Pick<Kind, "list" | "create" | "update" | "remove">,
): Kind {
  return {
    kind,
    keyField,
    schema,
    ...ops,
    key: (o) => String(o[keyField] ?? ""),
    toDoc: (o) => pick(o, fields),
    toInput: (doc) => ({ ...doc }),
  };
}

const byId = (id: number) => String(id);

function extensionKind(): Kind {
  const fields = fieldsOf(extensionSchema, ["status"]);
  return {
    kind: "extensions",
    keyField: "extension",
    schema: extensionSchema,
    secretField: "secret",
    list: (deps) => listExtensions(deps) as unknown as Obj[],
    key: (o) => String(o.extension ?? ""),
    toDoc: (o) => ({ ...pick(o, fields), secret: secretRef("extensions", String(o.extension)) }),
    toInput: (doc) => ({ ...doc }),
    create: (deps, input) => createExtension(deps, input as never).id,
    update: (deps, id, input) => void updateExtension(deps, id, input as never),
    remove: (deps, id) => void deleteExtension(deps, id),
  };
}

function trunkKind(): Kind {
  const fields = fieldsOf(trunkSchema, ["status"]);
  return {
    kind: "trunks",
    keyField: "name",
    schema: trunkSchema,
    secretField: "secret",
    list: (deps) => listTrunks(deps) as unknown as Obj[],
    key: (o) => String(o.name ?? ""),
    toDoc: (o) => ({ ...pick(o, fields), secret: o.hasSecret ? secretRef("trunks", String(o.name)) : null }),
    toInput: (doc) => ({ ...doc }),
    create: (deps, input) => createTrunk(deps, input as never).id,
    update: (deps, id, input) => void updateTrunk(deps, id, input as never),
    remove: (deps, id) => void deleteTrunk(deps, id),
  };
}

function ringGroupKind(): Kind {
  const fields = fieldsOf(ringGroupSchema);
  return {
    ...plain("ringGroups", "number", ringGroupSchema, fields, {
      list: (deps) => listRingGroups(deps) as unknown as Obj[],
      create: (deps, input) => createRingGroup(deps, input as never).id,
      update: (deps, id, input) => void updateRingGroup(deps, id, input as never),
      remove: (deps, id) => void deleteRingGroup(deps, id),
    }),
    toDoc: (o, refs) => ({ ...pick(o, fields), noAnswer: destinationToDoc(o.noAnswer, refs) }),
    toInput: (doc, refs, path, deferred) => ({
      ...doc,
      noAnswer: optionalDestination(doc, "noAnswer", refs, path, deferred),
    }),
  };
}

function queueKind(): Kind {
  const fields = fieldsOf(queueSchema);
  return {
    ...plain("queues", "number", queueSchema, fields, {
      list: (deps) => listQueues(deps) as unknown as Obj[],
      create: (deps, input) => createQueue(deps, input as never).id,
      update: (deps, id, input) => void updateQueue(deps, id, input as never),
      remove: (deps, id) => void deleteQueue(deps, id),
    }),
    toDoc: (o, refs) => ({ ...pick(o, fields), timeoutDestination: destinationToDoc(o.timeoutDestination, refs) }),
    toInput: (doc, refs, path, deferred) => ({
      ...doc,
      timeoutDestination: optionalDestination(doc, "timeoutDestination", refs, path, deferred),
    }),
  };
}

function announcementKind(): Kind {
  const fields = fieldsOf(announcementSchema);
  return {
    ...plain("announcements", "name", announcementSchema, fields, {
      list: (deps) => listAnnouncements(deps) as unknown as Obj[],
      create: (deps, input) => createAnnouncement(deps, input as never).id,
      update: (deps, id, input) => void updateAnnouncement(deps, id, input as never),
      remove: (deps, id) => void deleteAnnouncement(deps, id),
    }),
    toDoc: (o, refs) => ({ ...pick(o, fields), after: destinationToDoc(o.after, refs) }),
    toInput: (doc, refs, path, deferred) => ({
      ...doc,
      after: optionalDestination(doc, "after", refs, path, deferred),
    }),
  };
}

function ivrKind(): Kind {
  const fields = fieldsOf(ivrSchema);
  return {
    ...plain("ivrs", "name", ivrSchema, fields, {
      list: (deps) => listIvrs(deps) as unknown as Obj[],
      create: (deps, input) => createIvr(deps, input as never).id,
      update: (deps, id, input) => void updateIvr(deps, id, input as never),
      remove: (deps, id) => void deleteIvr(deps, id),
    }),
    toDoc: (o, refs) => ({
      ...pick(o, fields),
      options: Array.isArray(o.options)
        ? o.options.map((opt: Obj) => ({ digits: opt.digits, destination: destinationToDoc(opt.destination, refs) }))
        : o.options,
      invalidDestination: destinationToDoc(o.invalidDestination, refs),
      timeoutDestination: destinationToDoc(o.timeoutDestination, refs),
    }),
    toInput: (doc, refs, path, deferred) => {
      const options: unknown[] = [];
      if (Array.isArray(doc.options)) {
        for (const [i, opt] of doc.options.entries()) {
          if (!isObj(opt)) {
            options.push(opt);
            continue;
          }
          const destination = destinationToInput(opt.destination, refs, [...path, "options", i, "destination"]);
          // An option whose target comes later is left out of the first pass (an option needs a destination).
          if (destination === DEFER) deferred.set = true;
          else options.push({ ...opt, destination });
        }
      }
      return {
        ...doc,
        options: Array.isArray(doc.options) ? options : doc.options,
        invalidDestination: optionalDestination(doc, "invalidDestination", refs, path, deferred),
        timeoutDestination: optionalDestination(doc, "timeoutDestination", refs, path, deferred),
      };
    },
  };
}

function timeConditionKind(): Kind {
  const fields = fieldsOf(timeConditionSchema, ["timeGroup"]);
  return {
    ...plain("timeConditions", "name", timeConditionSchema, fields, {
      list: (deps) => listTimeConditions(deps) as unknown as Obj[],
      create: (deps, input) => createTimeCondition(deps, input as never).id,
      update: (deps, id, input) => void updateTimeCondition(deps, id, input as never),
      remove: (deps, id) => void deleteTimeCondition(deps, id),
    }),
    toDoc: (o, refs) => ({
      name: o.name,
      timeGroup: refs.name("timeGroups", Number(o.timeGroup)) ?? o.timeGroup,
      ...pick(
        o,
        fields.filter((f) => f !== "name"),
      ),
      match: destinationToDoc(o.match, refs),
      noMatch: destinationToDoc(o.noMatch, refs),
    }),
    toInput: (doc, refs, path, deferred) => {
      const { timeGroup, ...rest } = doc;
      const id = typeof timeGroup === "string" ? refs.id("timeGroups", timeGroup, [...path, "timeGroup"]) : null;
      return {
        ...rest,
        // Time groups are written before time conditions: never deferred.
        timeGroup: typeof id === "number" ? id : timeGroup,
        match: optionalDestination(doc, "match", refs, path, deferred),
        noMatch: optionalDestination(doc, "noMatch", refs, path, deferred),
      };
    },
  };
}

function outboundRouteKind(): Kind {
  const fields = fieldsOf(outboundRouteSchema, ["trunkId"]);
  return {
    ...plain("outboundRoutes", "name", outboundRouteSchema, fields, {
      list: (deps) => listOutboundRoutes(deps) as unknown as Obj[],
      create: (deps, input) => createOutboundRoute(deps, input as never).id,
      update: (deps, id, input) => void updateOutboundRoute(deps, id, input as never),
      remove: (deps, id) => void deleteOutboundRoute(deps, id),
    }),
    toDoc: (o, refs) => ({
      name: o.name,
      trunk: refs.name("trunks", Number(o.trunkId)) ?? o.trunkId,
      ...pick(
        o,
        fields.filter((f) => f !== "name"),
      ),
    }),
    toInput: (doc, refs, path) => {
      const { trunk, ...rest } = doc;
      if (trunk === undefined || trunk === null) return rest;
      const id = typeof trunk === "string" ? refs.id("trunks", trunk, [...path, "trunk"]) : null;
      // Trunks are written before routes: never deferred.
      return { ...rest, trunkId: typeof id === "number" ? id : trunk };
    },
  };
}

function inboundRouteKind(): Kind {
  const fields = fieldsOf(inboundRouteSchema);
  const named = (o: Obj) => NAMED_TARGETS[o.destinationType as DestinationKind];
  return {
    ...plain("inboundRoutes", "didNumber", inboundRouteSchema, fields, {
      list: (deps) => listInboundRoutes(deps) as unknown as Obj[],
      create: (deps, input) => createInboundRoute(deps, input as never).id,
      update: (deps, id, input) => void updateInboundRoute(deps, id, input as never),
      remove: (deps, id) => void deleteInboundRoute(deps, id),
    }),
    key: (o) => String(o.didNumber ?? ""),
    toDoc: (o, refs) => {
      const kind = named(o);
      const doc = pick(o, fields);
      return kind ? { ...doc, destination: refs.name(kind, Number(o.destination)) ?? o.destination } : doc;
    },
    toInput: (doc, refs, path) => {
      const kind = named(doc);
      if (!kind || typeof doc.destination !== "string") return { ...doc };
      // Every call-flow object is written before inbound routes: never deferred.
      const id = refs.id(kind, doc.destination, [...path, "destination"]);
      return { ...doc, destination: typeof id === "number" ? String(id) : doc.destination };
    },
  };
}

/** Every kind, in the order the console writes them (`CONFIG_KINDS`). */
export function configKinds(): Kind[] {
  return [
    trunkKind(),
    plain("timeGroups", "name", timeGroupSchema, fieldsOf(timeGroupSchema), {
      list: (deps) => listTimeGroups(deps) as unknown as Obj[],
      create: (deps, input) => createTimeGroup(deps, input as never).id,
      update: (deps, id, input) => void updateTimeGroup(deps, id, input as never),
      remove: (deps, id) => void deleteTimeGroup(deps, id),
    }),
    extensionKind(),
    plain("pttGroups", "extension", pttGroupSchema, fieldsOf(pttGroupSchema), {
      list: (deps) => listPttGroups(deps) as unknown as Obj[],
      create: (deps, input) => createPttGroup(deps, input as never).id,
      update: (deps, id, input) => void updatePttGroup(deps, id, input as never),
      remove: (deps, id) => void deletePttGroup(deps, id),
    }),
    ringGroupKind(),
    queueKind(),
    announcementKind(),
    ivrKind(),
    timeConditionKind(),
    outboundRouteKind(),
    inboundRouteKind(),
    plain("aiAssistants", "name", aiAssistantSchema, fieldsOf(aiAssistantSchema), {
      list: (deps) => [...listAssistants(deps)].reverse() as unknown as Obj[],
      create: (deps, input) => createAssistant(deps, input as never).id,
      update: (deps, id, input) => void updateAssistant(deps, byId(id), input as never),
      remove: (deps, id) => void deleteAssistant(deps, byId(id)),
    }),
    plain("aiRoutingRules", "name", aiRoutingRuleSchema, fieldsOf(aiRoutingRuleSchema), {
      list: (deps) => listRules(deps) as unknown as Obj[],
      create: (deps, input) => createRule(deps, input as never).id,
      update: (deps, id, input) => void updateRule(deps, byId(id), input as never),
      remove: (deps, id) => void deleteRule(deps, byId(id)),
    }),
  ];
}

/** The sealed secrets of extensions and trunks by key, for comparing a secret a document gives in clear. */
export function sealedSecrets(deps: Pick<Deps, "db">, kind: "extensions" | "trunks"): Map<string, string | null> {
  if (kind === "extensions")
    return new Map(
      deps.db
        .select({ key: extensions.extension, secret: extensions.secret })
        .from(extensions)
        .all()
        .map((r) => [r.key, r.secret]),
    );
  return new Map(
    deps.db
      .select({ key: trunks.name, secret: trunks.secret })
      .from(trunks)
      .all()
      .map((r) => [r.key, r.secret]),
  );
}

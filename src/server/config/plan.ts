/**
 * A configuration document planned and applied (ADR 0075). Planning reads the console, checks every object of
 * the document with its create schema (references by name, secrets by reference), and then writes the changed
 * ones through the entities' own create, update and delete inside a savepoint it rolls back: a refusal is the
 * console's own words at the object's path, and the field-level changes are read back from what was written.
 * Applying runs the same writes again and keeps them only when they make the plan the user reviewed (its
 * fingerprint); otherwise nothing is kept and the answer is the new plan.
 */
import { sql } from "drizzle-orm";
import { AUDIT_MASK } from "../../shared/audit";
import {
  CONFIG_KIND_LABELS,
  CONFIG_KINDS,
  type ConfigApplyResult,
  type ConfigKind,
  type ConfigPlan,
  type ConfigPlanItem,
  documentPath,
  emptyConfigCounts,
} from "../../shared/config-document";
import { trunkAuthModeOf } from "../../shared/inventory";
import type { FieldChange } from "../../shared/plan";
import type { WsEvent } from "../../shared/ws-events";
import { DomainError, Gone, Invalid } from "../core/errors";
import { keptPerDatabase } from "../core/kept";
import { nodeCrypto } from "../lazy-node";
import { diff, KEEP_STORED, keyOf, type Path, PlanRefs, Refusals, secretOf, stable } from "./check";
import { namesOf, parseDocument, readConsole } from "./document";
import {
  type ConfigDeps,
  configKinds,
  isNamedKind,
  type Kind,
  type NamedKind,
  type Obj,
  type Refs,
  sealedSecrets,
} from "./kinds";

/** How long a plan can be applied by its fingerprint, and how many are kept at once. */
export const CONFIG_PLAN_TTL_MS = 30 * 60_000;
const MAX_PLANS = 20;

interface KeptPlan {
  expiresAt: number;
  document: unknown;
  prune: boolean;
}
const plansOf = keptPerDatabase<KeptPlan>();

/** Hashes clear secrets into the fingerprint without making it a way to test a guess: the key is this process's. */
const SECRET_KEY = crypto.getRandomValues(new Uint8Array(32));

/** One object of the document (or of the console, for a delete) and what the plan does with it. */
interface Entry {
  kind: Kind;
  key: string;
  path: Path;
  action: ConfigPlanItem["action"];
  consoleId: number | null;
  doc: Obj;
  before: Obj | null;
  /** A secret the document gives in clear (written), else null: the stored one is kept or one is generated. */
  clearSecret: string | null;
  secretChanges: boolean;
  changes: FieldChange[];
  note?: string;
}

interface Run {
  plan: ConfigPlan;
  events: WsEvent[];
}

/**
 * Plans `document` against the console and, with `keep`, keeps the writes when the plan's fingerprint is `keep`.
 * Everything happens synchronously inside one savepoint: nothing else writes in between.
 */
function run(deps: ConfigDeps, raw: unknown, prune: boolean, keep: string | null): Run {
  const { document, problems } = parseDocument(raw);
  const kinds = configKinds().filter((k) => Array.isArray(document[k.kind]));
  const refusals = new Refusals();
  for (const [path, message] of Object.entries(problems)) refusals.fields[path] = message;
  const lists = readConsole(deps);
  const readAt = new Date(deps.now()).toISOString();
  const consoleName = namesOf(lists);
  const currentRefs: Refs = { name: consoleName, id: () => null };
  const inDocument = new Map<NamedKind, Set<string>>();
  for (const k of kinds)
    if (isNamedKind(k.kind))
      inDocument.set(
        k.kind,
        new Set((document[k.kind] ?? []).map((o) => (typeof o.name === "string" ? o.name.trim() : String(o.name)))),
      );
  const planRefs = new PlanRefs(lists, inDocument, refusals, false);

  // 1. Each document object checked with its schema and compared with the console's.
  const entries: Entry[] = [];
  for (const kind of kinds) {
    const current = new Map((lists.get(kind.kind) ?? []).map((o) => [kind.key(o), o]));
    const secrets = kind.secretField ? sealedSecrets(deps, kind.kind as "extensions" | "trunks") : null;
    const seen = new Map<string, number>();
    for (const [i, entry] of (document[kind.kind] ?? []).entries()) {
      const path: Path = [kind.kind, i];
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
      const item = { ...entry };
      const key = keyOf(kind, item);
      const twice = seen.get(key);
      if (twice !== undefined) {
        refusals.add(
          [...path, kind.keyField],
          `${CONFIG_KIND_LABELS[kind.kind]} ${key || "without a DID"} is listed twice (also ${documentPath([kind.kind, twice])})`,
        );
        continue;
      }
      seen.set(key, i);
      const secret = secrets ? secretOf(deps, kind, key, item, secrets.get(key), path, refusals) : null;
      const input = kind.toInput(secret ? { ...item, secret: secret.check } : item, planRefs, path, { set: false });
      const parsed = kind.schema.safeParse(input);
      if (!parsed.success) {
        for (const issue of parsed.error?.issues ?? []) {
          const at = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
          // The document writes references by name: an error on the id is the name's.
          const field = at[0] === "trunkId" ? "trunk" : at[0];
          refusals.add([...path, ...(field === undefined ? [] : [field, ...at.slice(1)])], issue.message);
        }
        continue;
      }
      const before = current.get(key);
      const beforeDoc = before ? kind.toDoc(before, currentRefs) : null;
      const desired = kind.toDoc(parsed.data as Obj, planRefs);
      if (kind.kind === "trunks")
        desired.secret = trunkAuthModeOf(parsed.data as never) === "credentials" ? { ref: `trunks/${key}` } : null;
      const changes = diff(beforeDoc, desired, kind.secretField);
      if (secret?.changes && !changes.some((c) => c.field === "secret"))
        changes.push({ field: "secret", from: beforeDoc ? AUDIT_MASK : null, to: AUDIT_MASK, secret: true });
      entries.push({
        kind,
        key,
        path,
        action: !before ? "create" : changes.length ? "update" : "unchanged",
        consoleId: before ? Number(before.id) : null,
        doc: item,
        before: beforeDoc,
        clearSecret: secret?.clear ?? null,
        secretChanges: secret?.changes ?? false,
        changes,
        note: !before && kind.kind === "extensions" && !secret?.clear ? "A new SIP secret is generated" : undefined,
      });
    }
    if (prune)
      for (const [key, o] of current)
        if (!seen.has(key))
          entries.push({
            kind,
            key,
            path: [kind.kind],
            action: "delete",
            consoleId: Number(o.id),
            doc: o,
            before: kind.toDoc(o, currentRefs),
            clearSecret: null,
            secretChanges: false,
            changes: [],
            note: "Not in the document (prune)",
          });
  }
  refusals.throwIfAny();

  // 2. The writes, in a savepoint: the console's own rules have the last word, and what they store is the plan.
  const events: WsEvent[] = [];
  const writeDeps: ConfigDeps = { ...deps, events: { publish: (e: WsEvent) => void events.push(e) } };
  deps.db.run(sql`SAVEPOINT config_plan`);
  let kept = false;
  try {
    write(writeDeps, entries, lists, inDocument, refusals);
    refusals.throwIfAny();
    readBack(writeDeps, entries);
    const items = entries.map(itemOf);
    const counts = emptyConfigCounts();
    for (const item of items) counts[item.action]++;
    const fingerprint = fingerprintOf(lists, currentRefs, prune, kinds, items, entries);
    const plan: ConfigPlan = { fingerprint, prune, kinds: kinds.map((k) => k.kind), items, counts, readAt };
    kept = keep === fingerprint;
    return { plan, events };
  } finally {
    if (!kept) deps.db.run(sql`ROLLBACK TO SAVEPOINT config_plan`);
    deps.db.run(sql`RELEASE SAVEPOINT config_plan`);
  }
}

/** The message of a refused write, at the field the entity names when it names one. */
function refuse(refusals: Refusals, e: Entry, err: DomainError) {
  const fields = Object.entries(err.fields ?? {});
  const [field, message] = fields.length === 1 ? (fields[0] as [string, string]) : [null, err.message];
  const label = `${CONFIG_KIND_LABELS[e.kind.kind]} ${e.key}`;
  if (e.action === "delete") refusals.add([e.kind.kind], `${label} cannot be deleted: ${err.message}`, true);
  else refusals.add(field ? [...e.path, field === "trunkId" ? "trunk" : field] : e.path, message);
}

/** Creates and updates in the kinds' order (references left for later in a second pass), then deletes. */
function write(
  deps: ConfigDeps,
  entries: Entry[],
  lists: Map<ConfigKind, Obj[]>,
  inDocument: Map<NamedKind, Set<string>>,
  refusals: Refusals,
) {
  const refs = new PlanRefs(lists, inDocument, refusals, true);
  const second: Entry[] = [];
  const inputOf = (e: Entry, deferred: { set: boolean }) => {
    const input = e.kind.toInput(
      { ...e.doc, ...(e.kind.secretField ? { secret: e.clearSecret } : {}) },
      refs,
      e.path,
      deferred,
    );
    const parsed = e.kind.schema.safeParse(
      e.kind.kind === "trunks" && !e.clearSecret && e.consoleId !== null ? { ...input, secret: KEEP_STORED } : input,
    );
    if (!parsed.success) throw new Invalid(parsed.error?.issues[0]?.message ?? "Invalid");
    const data = parsed.data as Obj;
    // A trunk's stand-in secret is never written: its update keeps the stored one for an empty secret.
    if (e.kind.kind === "trunks" && data.secret === KEEP_STORED) data.secret = "";
    return data;
  };
  for (const e of entries) {
    if (e.action !== "create" && e.action !== "update") continue;
    const deferred = { set: false };
    try {
      const input = inputOf(e, deferred);
      if (e.consoleId === null) e.consoleId = e.kind.create(deps, input);
      else e.kind.update(deps, e.consoleId, input);
      refs.created(e.kind.kind, e.key, e.consoleId);
      if (deferred.set) second.push(e);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      refuse(refusals, e, err);
    }
  }
  for (const e of second) {
    try {
      e.kind.update(deps, e.consoleId as number, inputOf(e, { set: false }));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      refuse(refusals, e, err);
    }
  }
  const order = new Map(CONFIG_KINDS.map((k, i) => [k, i]));
  const deletes = entries
    .filter((e) => e.action === "delete")
    .sort((a, b) => (order.get(b.kind.kind) ?? 0) - (order.get(a.kind.kind) ?? 0));
  for (const e of deletes) {
    try {
      e.kind.remove(deps, e.consoleId as number);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      refuse(refusals, e, err);
    }
  }
}

/** Each written object as the console now holds it: its changes are what was stored, not what was sent. */
function readBack(deps: ConfigDeps, entries: Entry[]) {
  const written = entries.filter((e) => e.action === "create" || e.action === "update");
  if (!written.length) return;
  const lists = readConsole(deps);
  const refs: Refs = { name: namesOf(lists), id: () => null };
  const byKind = new Map<ConfigKind, Map<number, Obj>>();
  for (const [kind, rows] of lists) byKind.set(kind, new Map(rows.map((o) => [Number(o.id), o])));
  for (const e of written) {
    const row = byKind.get(e.kind.kind)?.get(e.consoleId as number);
    if (!row) continue;
    const changes = diff(e.before, e.kind.toDoc(row, refs), e.kind.secretField);
    if (e.secretChanges && !changes.some((c) => c.field === "secret"))
      changes.push({ field: "secret", from: e.before ? AUDIT_MASK : null, to: AUDIT_MASK, secret: true });
    e.changes = changes;
    if (e.action === "update" && !changes.length) e.action = "unchanged";
  }
}

/** A plan item; its label is the object's key, and its name when the key is a number or a DID ("1001 - Alice"). */
function itemOf(e: Entry): ConfigPlanItem {
  const key = e.key || "(calls without a DID)";
  const name = e.doc.name ?? e.doc.description;
  return {
    id: `${e.kind.kind}:${e.key}`,
    kind: e.kind.kind,
    key: e.key,
    label: e.kind.keyField !== "name" && typeof name === "string" ? `${key} - ${name}` : key,
    action: e.action,
    // A created object's id exists only in the rolled-back plan.
    consoleId: e.action === "create" ? null : e.consoleId,
    changes: e.changes,
    ...(e.note ? { note: e.note } : {}),
  };
}

/**
 * The plan's fingerprint: the console's objects as the document writes them (so a trunk's registration state or
 * an assistant's last edit time does not make a plan stale), the plan's items, and the clear secrets' HMAC.
 */
function fingerprintOf(
  lists: Map<ConfigKind, Obj[]>,
  refs: Refs,
  prune: boolean,
  kinds: Kind[],
  items: ConfigPlanItem[],
  entries: Entry[],
): string {
  const { createHash, createHmac } = nodeCrypto();
  const secrets = createHmac("sha256", SECRET_KEY);
  for (const e of entries) if (e.clearSecret) secrets.update(`${e.kind.kind}/${e.key}\u0000${e.clearSecret}\u0000`);
  const state = createHash("sha256");
  for (const kind of configKinds())
    state.update(`${kind.kind}\u0000${stable((lists.get(kind.kind) ?? []).map((o) => kind.toDoc(o, refs)))}\u0000`);
  return createHash("sha256")
    .update(
      stable({
        prune,
        kinds: kinds.map((k) => k.kind),
        items,
        state: state.digest("hex"),
        secrets: secrets.digest("hex"),
      }),
    )
    .digest("hex");
}

/** POST /api/config/plan: the plan of a document, kept for `CONFIG_PLAN_TTL_MS` to be applied by its fingerprint. */
export function planConfig(deps: ConfigDeps, document: unknown, prune: boolean): ConfigPlan {
  const { plan } = run(deps, document, prune, null);
  const now = deps.now();
  const store = plansOf(deps.db, now);
  store.set(plan.fingerprint, { document, prune, expiresAt: now + CONFIG_PLAN_TTL_MS });
  while (store.size > MAX_PLANS) store.delete(store.keys().next().value as string);
  return plan;
}

/**
 * POST /api/config/apply: the reviewed plan, applied in one transaction when the console still makes the same
 * plan of its document; else `{stale}` with the new plan and nothing written. One event per list that changed.
 */
export function applyConfig(
  deps: ConfigDeps,
  fingerprint: string,
): { applied: ConfigApplyResult } | { stale: ConfigPlan } {
  const now = deps.now();
  const kept = plansOf(deps.db, now).get(fingerprint);
  if (!kept) throw new Gone("No plan with this fingerprint (a plan can be applied for 30 minutes): plan again");
  const { plan, events } = run(deps, kept.document, kept.prune, fingerprint);
  if (plan.fingerprint !== fingerprint) {
    plansOf(deps.db, now).set(plan.fingerprint, { ...kept, expiresAt: now + CONFIG_PLAN_TTL_MS });
    return { stale: plan };
  }
  plansOf(deps.db, now).delete(fingerprint);
  const last = new Map<string, WsEvent>();
  for (const e of events) last.set(e.type, e);
  for (const e of last.values()) deps.events.publish(e);
  return { applied: { fingerprint, counts: plan.counts, appliedAt: new Date(now).toISOString() } };
}

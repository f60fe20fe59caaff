/**
 * The checks of a configuration document's objects (ADR 0075): the problems at their paths, the names ↔ ids of
 * the objects they name, a key given as a number, a secret given by reference or in clear, and the field-level
 * difference of two document forms.
 */
import { AUDIT_MASK } from "../../shared/audit";
import { CONFIG_KIND_LABELS, type ConfigKind, documentPath } from "../../shared/config-document";
import type { FieldChange } from "../../shared/plan";
import type { Deps } from "../core/deps";
import { Invalid } from "../core/errors";
import { DEFER, type Kind, NAMED_KINDS, type NamedKind, type Obj, type Refs } from "./kinds";

/** What a trunk's check sees for its secret while the stored one is kept (never written). */
export const KEEP_STORED = "stored-secret-kept-0000";

/** Where in the document: `["extensions", 3, "secret"]` is `extensions[3].secret`. */
export type Path = (string | number)[];

/** The document's problems by path, all answered at once as one 400 with field messages. */
export class Refusals {
  readonly fields: Record<string, string> = {};
  /** The first problem at a path; with `append` (deletes, refused at their list's path) each one's too. */
  add(path: Path, message: string, append = false) {
    const at = documentPath(path);
    const said = this.fields[at];
    if (said === undefined) this.fields[at] = message;
    else if (append) this.fields[at] = `${said}; ${message}`;
  }
  get count() {
    return Object.keys(this.fields).length;
  }
  throwIfAny() {
    if (!this.count) return;
    const [path, message] = Object.entries(this.fields)[0] as [string, string];
    const more = this.count > 1 ? ` (and ${this.count - 1} more)` : "";
    throw new Invalid(`The document cannot be applied: ${path}: ${message}${more}`, this.fields);
  }
}

/** JSON with every object's keys in order: the same value is the same text (comparisons, the fingerprint). */
export const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, value) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value,
  );

/** A field's value as a plan shows it: text as it is, anything else as stable JSON. */
const shown = (v: unknown): string | null =>
  v === null || v === undefined ? null : typeof v === "string" ? v : stable(v);

/** The fields that differ between two document forms, secrets masked. */
export function diff(before: Obj | null, after: Obj, secretField?: string): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of Object.keys(after)) {
    const from = before ? shown(before[field]) : null;
    const to = shown(after[field]);
    if (from === to) continue;
    if (field === secretField)
      out.push({ field, from: from === null ? null : AUDIT_MASK, to: to === null ? null : AUDIT_MASK, secret: true });
    else out.push({ field, from, to });
  }
  return out;
}

/** The names ↔ ids while planning: console objects by their id, objects the document creates by a stand-in id. */
export class PlanRefs implements Refs {
  private readonly ids = new Map<NamedKind, Map<string, number>>();
  private readonly names = new Map<NamedKind, Map<number, string>>();
  private next = 1_000_000_000;
  constructor(
    lists: Map<ConfigKind, Obj[]>,
    private readonly inDocument: Map<NamedKind, Set<string>>,
    private readonly refusals: Refusals,
    /** Writing: a name the document creates later is deferred, not given a stand-in. */
    private readonly writing: boolean,
  ) {
    for (const kind of NAMED_KINDS) {
      const rows = lists.get(kind) ?? [];
      this.ids.set(kind, new Map(rows.map((o) => [String(o.name), Number(o.id)])));
      this.names.set(kind, new Map(rows.map((o) => [Number(o.id), String(o.name)])));
    }
  }
  /** An object the write just created. */
  created(kind: ConfigKind, name: string, id: number) {
    const ids = this.ids.get(kind as NamedKind);
    if (!ids) return;
    ids.set(name, id);
    this.names.get(kind as NamedKind)?.set(id, name);
  }
  name(kind: NamedKind, id: number): string | null {
    return this.names.get(kind)?.get(id) ?? null;
  }
  id(kind: NamedKind, name: string, path: Path): number | typeof DEFER | null {
    const known = this.ids.get(kind)?.get(name);
    if (known !== undefined) return known;
    if (this.inDocument.get(kind)?.has(name)) {
      if (this.writing) return DEFER;
      const id = this.next++;
      this.ids.get(kind)?.set(name, id);
      this.names.get(kind)?.set(id, name);
      return id;
    }
    this.refusals.add(
      path,
      `No ${CONFIG_KIND_LABELS[kind].toLowerCase()} named ${name} in the document or the console`,
    );
    return null;
  }
}

/** A key field given as a number (YAML reads `extension: 1001` as one) is read as its digits. */
export function keyOf(kind: Kind, item: Obj): string {
  const v = item[kind.keyField];
  if (typeof v === "number" && Number.isFinite(v)) {
    item[kind.keyField] = String(v);
    return String(v);
  }
  return typeof v === "string" ? v.trim() : "";
}

/** The secret of a document object: what the check sees, what is written, whether it changes the stored one. */
export function secretOf(
  deps: Pick<Deps, "box">,
  kind: Kind,
  key: string,
  item: Obj,
  stored: string | null | undefined,
  path: Path,
  refusals: Refusals,
): { check: string | null; clear: string | null; changes: boolean } {
  const given = item.secret;
  if (typeof given === "string" && given !== "") {
    let same = false;
    try {
      same = Boolean(stored) && deps.box.open(stored as string) === given;
    } catch {
      same = false;
    }
    return { check: given, clear: given, changes: !same };
  }
  if (given && typeof given === "object") {
    const ref = (given as Obj).ref;
    if (ref !== `${kind.kind}/${key}`)
      refusals.add([...path, "secret"], `A secret reference names its own object: ${kind.kind}/${key}`);
  } else if (given !== undefined && given !== null && given !== "") {
    refusals.add([...path, "secret"], "A secret is a reference ({ref: ...}) or a new secret in clear");
  }
  // The stored secret is kept (a trunk's check needs one to stand in for it); none stored: an extension gets a
  // new one, a trunk with credentials is refused by its schema.
  return { check: stored && kind.kind === "trunks" ? KEEP_STORED : null, clear: null, changes: false };
}

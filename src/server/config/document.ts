/**
 * The configuration document (ADR 0075) read and written: the export of every kind the console owns, a
 * document's text parsed (YAML or JSON) and its outer shape checked, and the published JSON Schema.
 */
import { z } from "zod";
import {
  CONFIG_DOCUMENT_VERSION,
  CONFIG_KINDS,
  type ConfigDocument,
  type ConfigKind,
  documentPath,
} from "../../shared/config-document";
import { Invalid } from "../core/errors";
import { type ConfigDeps, configKinds, NAMED_KINDS, type NamedKind, type Obj, type Refs } from "./kinds";

/** The names of the objects others name, by id, as the console holds them now. */
export function namesOf(lists: Map<ConfigKind, Obj[]>): Refs["name"] {
  const byKind = new Map<NamedKind, Map<number, string>>();
  for (const kind of NAMED_KINDS)
    byKind.set(kind, new Map((lists.get(kind) ?? []).map((o) => [Number(o.id), String(o.name)])));
  return (kind, id) => byKind.get(kind)?.get(id) ?? null;
}

/** Every kind's console objects, read once. */
export function readConsole(deps: ConfigDeps): Map<ConfigKind, Obj[]> {
  return new Map(configKinds().map((k) => [k.kind, k.list(deps)]));
}

/** GET /api/config/export: everything the console owns, secrets as references. */
export function exportConfig(deps: ConfigDeps): ConfigDocument {
  const lists = readConsole(deps);
  const name = namesOf(lists);
  const refs: Refs = { name, id: () => null };
  const doc: ConfigDocument = { version: CONFIG_DOCUMENT_VERSION };
  for (const kind of configKinds()) doc[kind.kind] = (lists.get(kind.kind) ?? []).map((o) => kind.toDoc(o, refs));
  return doc;
}

/** The document as YAML (what `pbx-console export` writes by default). */
export const toYaml = (doc: ConfigDocument): string => `${Bun.YAML.stringify(doc, null, 2)}\n`;

/**
 * A document from a request: an object, or its YAML or JSON text. Its outer problems (the version, a list that is
 * not one, an entry that is no object, an unknown list: a misspelt kind would otherwise create and prune nothing,
 * silently) are answered with the document, at their paths, to be refused with the objects' own.
 */
export function parseDocument(raw: unknown): { document: ConfigDocument; problems: Record<string, string> } {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = Bun.YAML.parse(raw);
    } catch (err) {
      const message = `The document is neither YAML nor JSON: ${(err as Error).message}`;
      throw new Invalid(message, { document: message });
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const message = "The document must be an object with a version and lists";
    throw new Invalid(message, { document: message });
  }
  const problems: Record<string, string> = {};
  const doc = value as Record<string, unknown>;
  if (doc.version !== CONFIG_DOCUMENT_VERSION)
    problems.version = `version must be ${CONFIG_DOCUMENT_VERSION} (this console reads version ${CONFIG_DOCUMENT_VERSION} documents)`;
  for (const [key, list] of Object.entries(doc)) {
    if (key === "version") continue;
    if (!(CONFIG_KINDS as readonly string[]).includes(key))
      problems[documentPath([key])] = `Unknown list ${key}: the lists are ${CONFIG_KINDS.join(", ")}`;
    else if (!Array.isArray(list)) problems[documentPath([key])] = `${key} must be a list`;
    else
      for (const [i, item] of list.entries())
        if (typeof item !== "object" || item === null || Array.isArray(item))
          problems[documentPath([key, i])] = "Each entry must be an object";
  }
  return { document: doc as ConfigDocument, problems };
}

/** The JSON Schema a document follows (GET /api/config/schema): each list's objects as their create schema takes them, references by name. */
export function configJsonSchema(): Obj {
  const secret = {
    description:
      "A reference to the secret this console holds for the object ({ref: '<list>/<key>'}), or a new secret in clear",
    anyOf: [
      { type: "object", properties: { ref: { type: "string" } }, required: ["ref"], additionalProperties: false },
      { type: "string" },
      { type: "null" },
    ],
  };
  const named = (what: string) => ({
    type: "string",
    description: `The name of ${what} (in this document or the console)`,
  });
  const lists: Obj = {};
  for (const kind of configKinds()) {
    const { $schema: _d, ...item } = z.toJSONSchema(kind.schema as unknown as z.ZodType, {
      io: "input",
      unrepresentable: "any",
    }) as Obj;
    const properties = { ...((item.properties as Obj) ?? {}) };
    let required = ((item.required as string[]) ?? []).slice();
    if (kind.secretField) properties.secret = secret;
    if (kind.kind === "outboundRoutes") {
      delete properties.trunkId;
      properties.trunk = named("a trunk");
      required = required.map((f) => (f === "trunkId" ? "trunk" : f));
    }
    if (kind.kind === "timeConditions") properties.timeGroup = named("a time group");
    if (kind.kind === "extensions" || kind.kind === "trunks") {
      // Registration state, not configuration: the document neither writes nor sets it.
      delete properties.status;
      required = required.filter((f) => f !== "status");
    }
    lists[kind.kind] = {
      type: "array",
      description: `${kind.kind}, each named by ${kind.keyField}. A destination to an IVR, announcement or time condition names it by its name.`,
      items: { ...item, properties, required },
    };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "urn:pbx-console:config-document:v1",
    title: "pbx-console configuration document",
    type: "object",
    required: ["version"],
    additionalProperties: false,
    properties: { version: { const: CONFIG_DOCUMENT_VERSION }, ...lists },
  };
}

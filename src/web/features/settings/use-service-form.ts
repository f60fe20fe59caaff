/**
 * The form of one service's credentials card, driven by SERVICE_FIELDS (shared
 * with the server): which fields are inputs, what a save or a test sends, and
 * whether the required ones are filled.
 */
import { useEffect, useMemo } from "react";
import { type FieldErrors, type Resolver, useForm } from "react-hook-form";
import {
  type CredentialView,
  type FieldSpec,
  type FieldView,
  SERVICE_FIELDS,
  saveCredentialSchema,
} from "../../../shared/credentials";
import type { ServiceMeta } from "./services";

export type Values = Record<string, string>;

/** A field as the card shows it: the shared field description plus what the server reported. */
export interface CardField extends FieldSpec {
  view?: FieldView;
}

/** The service's fields with what `view` reports about each (none: nothing stored). */
export function cardFields(meta: ServiceMeta, view: CredentialView | undefined): CardField[] {
  return SERVICE_FIELDS[meta.type].map((spec) => ({ ...spec, view: view?.fields.find((f) => f.name === spec.name) }));
}

/** Stored values fill the inputs; a secret input starts empty (its placeholder says one is stored). */
export function defaultsFrom(fields: CardField[]): Values {
  const values: Values = {};
  for (const f of fields) values[f.name] = f.secret ? "" : (f.view?.value ?? "");
  return values;
}

/** Filled for the disabled rules: typed now, a stored secret, or set by the environment. */
function isFilled(f: CardField, value: string | undefined): boolean {
  if (f.view?.fromEnv) return true;
  if ((value ?? "").trim() !== "") return true;
  return f.secret && Boolean(f.view?.set);
}

export function useServiceForm(meta: ServiceMeta, view: CredentialView | undefined) {
  const { type } = meta;
  const allFields = useMemo(() => cardFields(meta, view), [meta, view]);
  const inputFields = allFields.filter((f) => !meta.inputs[f.name]?.display);
  const displayFields = allFields.filter((f) => meta.inputs[f.name]?.display);
  const inputNames = inputFields.map((f) => f.name);

  /**
   * The request body: env-provided fields are left out, and so is an empty secret (the stored one
   * stays). A test also leaves out empty fields and renames some (`meta.testNames`).
   */
  const bodyOf = (values: Values, forTest: boolean): Record<string, string> => {
    const body: Record<string, string> = {};
    for (const f of inputFields) {
      if (f.view?.fromEnv) continue;
      const raw = values[f.name] ?? "";
      const value = f.secret ? raw : raw.trim();
      if (value === "" && (f.secret || forTest)) continue;
      body[forTest ? (meta.testNames?.[f.name] ?? f.name) : f.name] = value;
    }
    return body;
  };

  /** Validates what a save would send with the shared schema; each problem goes under its input. */
  const resolver: Resolver<Values> = async (values) => {
    const parsed = saveCredentialSchema.safeParse({ type, ...bodyOf(values, false) });
    if (parsed.success) return { values, errors: {} };
    const errors: FieldErrors<Values> = {};
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? "");
      if (inputNames.includes(name) && !errors[name]) errors[name] = { type: "validation", message: issue.message };
    }
    return { values: {}, errors };
  };

  const form = useForm<Values>({ resolver, defaultValues: defaultsFrom(allFields) });
  const values = form.watch();

  // Server data arrived or changed: take it, but keep what the user is typing.
  useEffect(() => {
    form.reset(defaultsFrom(allFields), { keepDirtyValues: true });
  }, [allFields, form]);

  /** Puts the server's field errors under the matching inputs. */
  const showFieldErrors = (fields: Record<string, string> | undefined) => {
    for (const [name, message] of Object.entries(fields ?? {}))
      if (inputNames.includes(name)) form.setError(name, { type: "server", message });
  };

  return {
    form,
    allFields,
    inputFields,
    displayFields,
    bodyOf,
    showFieldErrors,
    ready: inputFields.filter((f) => f.required).every((f) => isFilled(f, values[f.name])),
    hasStored: allFields.some((f) => f.view?.set && !f.view.fromEnv),
  };
}

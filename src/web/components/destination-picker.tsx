import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { Controller, type FieldValues, get, type Path, type PathValue, type UseFormReturn } from "react-hook-form";
import { SelectField } from "@/components/form-fields";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { destinationsQuery } from "@/features/routing/api";
import { DESTINATION_OPTIONS } from "@/lib/destinations";
import { DESTINATION_HINTS, type Destination, type DestinationKind, targetless } from "../../shared/destinations";
import { DestinationOptions } from "./destination-options";

const OPTIONS = [{ value: "none", label: "None (end the call)" }, ...DESTINATION_OPTIONS];

/** A nested destination's field errors as react-hook-form holds them. */
export type DestinationErrors = { kind?: { message?: string }; target?: { message?: string } } | undefined;

/**
 * Where a call goes next (a ring group's no-answer, a queue's timeout): a kind, or none (the call ends), and
 * for a kind with one its number, with the console's objects of that kind offered as one types. A change of
 * kind keeps a typed number; a kind without one (hang up) drops it.
 */
export function DestinationPicker({
  label,
  value,
  onChange,
  errors,
}: {
  label: string;
  /** As the form holds it: a target may not be typed yet. */
  value: { kind: DestinationKind; target?: string } | null;
  onChange: (next: Destination | null) => void;
  errors: DestinationErrors;
}) {
  const destinations = useQuery(destinationsQuery());
  const optionsId = useId();
  const kind = value?.kind ?? "none";
  return (
    <div className="grid items-start gap-4 sm:grid-cols-2">
      <SelectField
        label={label}
        error={errors?.kind?.message}
        value={kind}
        onValueChange={(k) =>
          onChange(
            k === "none"
              ? null
              : { kind: k as DestinationKind, target: targetless(k as DestinationKind) ? "" : (value?.target ?? "") },
          )
        }
        options={OPTIONS}
      />
      {kind !== "none" && !targetless(kind) && (
        <FormField label="Destination number" error={errors?.target?.message}>
          {(control) => (
            <Input
              {...control}
              list={optionsId}
              inputMode="numeric"
              placeholder={DESTINATION_HINTS[kind]}
              value={value?.target ?? ""}
              onChange={(e) => onChange({ kind, target: e.target.value })}
            />
          )}
        </FormField>
      )}
      {kind !== "none" && (
        <DestinationOptions id={optionsId} kind={kind} items={destinations.data?.items} typed={value?.target ?? ""} />
      )}
    </div>
  );
}

/**
 * The picker as a field of a react-hook-form form: its value, its errors under the field's path, and a change set
 * with `setValue` rather than `field.onChange`, which reads an object with a truthy `target` as a DOM event.
 */
export function DestinationField<T extends FieldValues>({
  form,
  name,
  label,
  group,
}: {
  form: UseFormReturn<T>;
  name: Path<T>;
  label: string;
  /** Names a group around the picker, for a form with two: each picker calls its number "Destination number". */
  group?: string;
}) {
  const field = (
    <Controller
      control={form.control}
      name={name}
      render={({ field }) => (
        <DestinationPicker
          label={label}
          value={field.value ?? null}
          errors={get(form.formState.errors, name) as DestinationErrors}
          onChange={(next) =>
            form.setValue(name, next as PathValue<T, Path<T>>, {
              shouldDirty: true,
              shouldValidate: form.formState.isSubmitted,
            })
          }
        />
      )}
    />
  );
  if (!group) return field;
  return (
    // biome-ignore lint/a11y/useSemanticElements: the picker lays out its own grid; a fieldset's legend would sit in it
    <div role="group" aria-label={group}>
      {field}
    </div>
  );
}

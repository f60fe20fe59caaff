import { useQuery } from "@tanstack/react-query";
import { Plus, X } from "lucide-react";
import { type ReactNode, useId } from "react";
import { Controller, type UseFormReturn, useFieldArray, useWatch } from "react-hook-form";
import type { z } from "zod";
import { DestinationOptions } from "@/components/destination-options";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { destinationsQuery } from "@/features/routing/api";
import { DESTINATION_OPTIONS, DESTINATION_PICKER } from "@/lib/destinations";
import { CALL_FLOW_LIMITS, type ivrSchema } from "../../../shared/call-flow";
import { type DestinationKind, targetless } from "../../../shared/destinations";

export type IvrForm = UseFormReturn<z.input<typeof ivrSchema>, unknown, z.output<typeof ivrSchema>>;

type Control = { id: string; "aria-invalid": boolean; "aria-describedby"?: string };

/** One cell of an option's row: its label is read out, not shown (the columns have headings), its error shows. */
function Cell({ label, error, children }: { label: string; error?: string; children: (c: Control) => ReactNode }) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="grid content-start gap-1">
      <Label htmlFor={id} className="sr-only">
        {label}
      </Label>
      {children({ id, "aria-invalid": Boolean(error), "aria-describedby": error ? errorId : undefined })}
      {error && (
        <p id={errorId} className="text-destructive text-sm">
          {error}
        </p>
      )}
    </div>
  );
}

/** The first single key no option uses yet, in the keypad's order (1…9, 0): what a new row starts with. */
function freeKey(used: readonly string[]): string {
  return [..."1234567890*#"].find((k) => !used.includes(k)) ?? "";
}

const ROW = "grid grid-cols-[5rem_minmax(0,1fr)_minmax(0,1fr)_2rem] items-start gap-2";

/**
 * The keys a caller may press and where each sends the call: one row per option (keys, destination kind,
 * its number with the console's objects offered), rows added and removed. The keys are checked by the
 * shared schema (digits, * or #, no key listed twice or shadowing another).
 */
export function IvrOptionsField({ form }: { form: IvrForm }) {
  const { fields, append, remove } = useFieldArray({ control: form.control, name: "options" });
  const options = useWatch({ control: form.control, name: "options" }) ?? [];
  const destinations = useQuery(destinationsQuery());
  const listId = useId();
  const errors = form.formState.errors.options;
  const listError = errors?.root?.message ?? errors?.message;

  return (
    <fieldset className="grid gap-2" aria-describedby={listError ? `${listId}-error` : undefined}>
      <legend className="mb-2 font-medium text-sm">Options</legend>
      {fields.length === 0 ? (
        <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
          No keys yet: the caller hears the greeting, then goes to the "no key" destination.
        </p>
      ) : (
        <div aria-hidden className={`${ROW} text-muted-foreground text-xs`}>
          <span>Keys</span>
          <span>Goes to</span>
          <span>Number</span>
        </div>
      )}
      {fields.map((field, i) => {
        const n = i + 1;
        const kind = (options[i]?.destination?.kind ?? "extension") as DestinationKind;
        const rowErrors = errors?.[i];
        const destinationErrors = rowErrors?.destination;
        return (
          // biome-ignore lint/a11y/useSemanticElements: a fieldset per row would draw a legend into the grid
          <div key={field.id} role="group" aria-label={`Option ${n}`} className={ROW}>
            <Cell label={`Keys of option ${n}`} error={rowErrors?.digits?.message}>
              {(control) => (
                <Input
                  {...control}
                  className="font-mono"
                  inputMode="tel"
                  autoComplete="off"
                  placeholder="1"
                  {...form.register(`options.${i}.digits`)}
                />
              )}
            </Cell>
            <Cell label={`Destination of option ${n}`} error={destinationErrors?.kind?.message}>
              {(control) => (
                <Controller
                  control={form.control}
                  name={`options.${i}.destination.kind`}
                  render={({ field: kindField }) => (
                    <Select
                      value={kindField.value}
                      onValueChange={(next) => {
                        kindField.onChange(next);
                        if (targetless(next as DestinationKind)) form.setValue(`options.${i}.destination.target`, "");
                      }}
                    >
                      <SelectTrigger {...control}>
                        <SelectValue />
                      </SelectTrigger>
                      <SelectContent>
                        {DESTINATION_OPTIONS.map((o) => (
                          <SelectItem key={o.value} value={o.value}>
                            {o.label}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                  )}
                />
              )}
            </Cell>
            <Cell
              label={`Destination number of option ${n}`}
              error={destinationErrors?.target?.message ?? destinationErrors?.message}
            >
              {(control) => (
                <Input
                  {...control}
                  list={`${listId}-${field.id}`}
                  inputMode="numeric"
                  autoComplete="off"
                  disabled={targetless(kind)}
                  placeholder={DESTINATION_PICKER[kind].placeholder}
                  {...form.register(`options.${i}.destination.target`)}
                />
              )}
            </Cell>
            <Button
              type="button"
              variant="ghost"
              size="icon"
              className="size-9 text-muted-foreground hover:text-destructive"
              aria-label={`Remove option ${n}`}
              title={`Remove option ${n}`}
              onClick={() => remove(i)}
            >
              <X aria-hidden />
            </Button>
            <DestinationOptions
              id={`${listId}-${field.id}`}
              kind={kind}
              items={destinations.data?.items}
              typed={options[i]?.destination?.target ?? ""}
            />
          </div>
        );
      })}
      {listError && (
        <p id={`${listId}-error`} className="text-destructive text-sm">
          {listError}
        </p>
      )}
      <div>
        <Button
          type="button"
          variant="outline"
          size="sm"
          disabled={fields.length >= CALL_FLOW_LIMITS.options}
          onClick={() =>
            append({
              digits: freeKey(options.map((o) => o.digits ?? "")),
              destination: { kind: "extension", target: "" },
            })
          }
        >
          <Plus aria-hidden /> Add option
        </Button>
      </div>
    </fieldset>
  );
}

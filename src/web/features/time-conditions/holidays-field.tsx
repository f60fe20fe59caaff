import { Plus, X } from "lucide-react";
import { useId } from "react";
import { Controller, useFieldArray } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { MONTHS, type Month, TIME_LIMITS } from "../../../shared/call-flow";
import { ListError, RowCell } from "./row-cell";
import type { TimeGroupForm } from "./weekly-hours-field";

const MONTH_NAMES: Record<Month, string> = {
  jan: "January",
  feb: "February",
  mar: "March",
  apr: "April",
  may: "May",
  jun: "June",
  jul: "July",
  aug: "August",
  sep: "September",
  oct: "October",
  nov: "November",
  dec: "December",
};

/** An empty "last day" is no range: the schema reads it as the first day. */
const optionalDay = (v: unknown) => (v === "" || v === null || v === undefined ? undefined : Number(v));

const ROW = "grid grid-cols-[minmax(0,1fr)_minmax(0,6rem)_minmax(0,6rem)_2rem] items-start gap-2";

/**
 * The holidays: a day (or days, up to the last day) of a month, every year, as Asterisk reads them. A day the
 * month does not have and two holidays sharing a day are the shared schema's to refuse, under the list.
 */
export function HolidaysField({ form }: { form: TimeGroupForm }) {
  const { fields, append, remove } = useFieldArray({ control: form.control, name: "holidays" });
  const errorId = useId();
  const errors = form.formState.errors.holidays;
  const listError = errors?.root?.message ?? errors?.message;
  return (
    <fieldset className="grid gap-2" aria-describedby={listError ? errorId : undefined}>
      <legend className="mb-2 font-medium text-sm">Holidays</legend>
      {fields.length === 0 ? (
        <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
          No holidays: every week is the same.
        </p>
      ) : (
        <div aria-hidden className={`${ROW} text-muted-foreground text-xs`}>
          <span>Month</span>
          <span>Day</span>
          <span>Last day</span>
        </div>
      )}
      {fields.map((field, i) => {
        const n = i + 1;
        const rowErrors = errors?.[i];
        return (
          // biome-ignore lint/a11y/useSemanticElements: a fieldset per row would draw a legend into the grid
          <div key={field.id} role="group" aria-label={`Holiday ${n}`} className={ROW}>
            <RowCell label={`Month of holiday ${n}`} error={rowErrors?.month?.message}>
              {(control) => (
                <Controller
                  control={form.control}
                  name={`holidays.${i}.month`}
                  render={({ field: monthField }) => (
                    <Select value={monthField.value} onValueChange={monthField.onChange}>
                      <SelectTrigger {...control}>
                        <SelectValue />
                      </SelectTrigger>
                      <SelectContent>
                        {MONTHS.map((m) => (
                          <SelectItem key={m} value={m}>
                            {MONTH_NAMES[m]}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                  )}
                />
              )}
            </RowCell>
            <RowCell label={`Day of holiday ${n}`} error={rowErrors?.day?.message}>
              {(control) => (
                <Input
                  {...control}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={31}
                  {...form.register(`holidays.${i}.day`, { valueAsNumber: true })}
                />
              )}
            </RowCell>
            <RowCell label={`Last day of holiday ${n}`} error={rowErrors?.toDay?.message}>
              {(control) => (
                <Input
                  {...control}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={31}
                  placeholder="Same"
                  {...form.register(`holidays.${i}.toDay`, { setValueAs: optionalDay })}
                />
              )}
            </RowCell>
            <Button
              type="button"
              variant="ghost"
              size="icon"
              className="size-9 text-muted-foreground hover:text-destructive"
              aria-label={`Remove holiday ${n}`}
              title={`Remove holiday ${n}`}
              onClick={() => remove(i)}
            >
              <X aria-hidden />
            </Button>
          </div>
        );
      })}
      <ListError id={errorId} message={listError} />
      <div>
        <Button
          type="button"
          variant="outline"
          size="sm"
          disabled={fields.length >= TIME_LIMITS.rows}
          onClick={() => append({ month: "jan", day: 1 })}
        >
          <Plus aria-hidden /> Add holiday
        </Button>
      </div>
    </fieldset>
  );
}

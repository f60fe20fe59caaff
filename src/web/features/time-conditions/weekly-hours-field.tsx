import { Plus, X } from "lucide-react";
import { useId } from "react";
import { Controller, type UseFormReturn, useFieldArray, useWatch } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { TIME_LIMITS, type timeGroupSchema, WEEKDAYS, type Weekday } from "../../../shared/call-flow";
import { type CellControl, ListError, RowCell } from "./row-cell";

export type TimeGroupInput = z.input<typeof timeGroupSchema>;
export type TimeGroupForm = UseFormReturn<TimeGroupInput, unknown, z.output<typeof timeGroupSchema>>;
type WeeklyInput = NonNullable<TimeGroupInput["weekly"]>[number];

const DAY_NAMES: Record<Weekday, string> = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
};

/**
 * A new row: office hours for the first; after that the day after the last row's, at its times (a Saturday
 * morning after Monday to Friday), so a new row does not overlap the one before.
 */
function nextRow(rows: readonly WeeklyInput[]): WeeklyInput {
  const last = rows.at(-1);
  if (!last) return { fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" };
  const day = WEEKDAYS[(WEEKDAYS.indexOf(last.toDay ?? last.fromDay) + 1) % WEEKDAYS.length] as Weekday;
  return { fromDay: day, toDay: day, start: last.start, end: last.end };
}

function DaySelect({
  control,
  value,
  onChange,
}: {
  control: CellControl;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <Select value={value} onValueChange={onChange}>
      <SelectTrigger {...control}>
        <SelectValue />
      </SelectTrigger>
      <SelectContent>
        {WEEKDAYS.map((d) => (
          <SelectItem key={d} value={d}>
            {DAY_NAMES[d]}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}

const ROW = "grid grid-cols-[minmax(0,1fr)_minmax(0,1fr)_minmax(0,7rem)_minmax(0,7rem)_2rem] items-start gap-2";

/**
 * The weekly hours: one row per span of days (from a day to a day, which may wrap past Sunday) and its
 * start and end, rows added and removed. Overlapping rows and an end before its start are the shared schema's
 * to refuse, under the list or the cell.
 */
export function WeeklyHoursField({ form }: { form: TimeGroupForm }) {
  const { fields, append, remove } = useFieldArray({ control: form.control, name: "weekly" });
  const rows = useWatch({ control: form.control, name: "weekly" }) ?? [];
  const errorId = useId();
  const errors = form.formState.errors.weekly;
  const listError = errors?.root?.message ?? errors?.message;
  return (
    <fieldset className="grid gap-2" aria-describedby={listError ? errorId : undefined}>
      <legend className="mb-2 font-medium text-sm">Weekly hours</legend>
      {fields.length === 0 ? (
        <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
          No weekly hours: only the holidays match.
        </p>
      ) : (
        <div aria-hidden className={`${ROW} text-muted-foreground text-xs`}>
          <span>From</span>
          <span>To</span>
          <span>Start</span>
          <span>End</span>
        </div>
      )}
      {fields.map((field, i) => {
        const n = i + 1;
        const rowErrors = errors?.[i];
        return (
          // biome-ignore lint/a11y/useSemanticElements: a fieldset per row would draw a legend into the grid
          <div key={field.id} role="group" aria-label={`Row ${n}`} className={ROW}>
            {(["fromDay", "toDay"] as const).map((day) => (
              <RowCell
                key={day}
                label={`${day === "fromDay" ? "From day" : "To day"} of row ${n}`}
                error={rowErrors?.[day]?.message}
              >
                {(control) => (
                  <Controller
                    control={form.control}
                    name={`weekly.${i}.${day}`}
                    render={({ field: dayField }) => (
                      <DaySelect
                        control={control}
                        value={dayField.value ?? rows[i]?.fromDay ?? "mon"}
                        onChange={dayField.onChange}
                      />
                    )}
                  />
                )}
              </RowCell>
            ))}
            {(["start", "end"] as const).map((edge) => (
              <RowCell
                key={edge}
                label={`${edge === "start" ? "Start" : "End"} of row ${n}`}
                error={rowErrors?.[edge]?.message}
              >
                {(control) => <Input {...control} type="time" {...form.register(`weekly.${i}.${edge}`)} />}
              </RowCell>
            ))}
            <Button
              type="button"
              variant="ghost"
              size="icon"
              className="size-9 text-muted-foreground hover:text-destructive"
              aria-label={`Remove row ${n}`}
              title={`Remove row ${n}`}
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
          onClick={() => append(nextRow(rows))}
        >
          <Plus aria-hidden /> Add hours
        </Button>
      </div>
    </fieldset>
  );
}

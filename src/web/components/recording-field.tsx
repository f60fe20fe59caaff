/**
 * The call recording policy in a form (ADR 0061): a select of FreePBX's modes bound to a react-hook-form field,
 * with "Keep the PBX's setting" for null (the console leaves that value to FreePBX), and the hint that says
 * what each mode does in FreePBX's `sub-record-check`. The extension and route dialogs share them.
 */
import { type Control, Controller, type FieldValues, type Path } from "react-hook-form";
import {
  RECORDING_MODE_TEXT,
  RECORDING_MODES,
  RECORDING_ON_DEMAND,
  RECORDING_ON_DEMAND_TEXT,
} from "../../shared/recording-policy";
import { SelectField } from "./select-field";

/** The select's value for null: Radix selects take no empty value. */
const KEEP = "pbx";
const KEEP_OPTION = { value: KEEP, label: "Keep the PBX's setting" };

const MODE_OPTIONS = [...RECORDING_MODES.map((m) => ({ value: m, label: RECORDING_MODE_TEXT[m].label })), KEEP_OPTION];
const ON_DEMAND_OPTIONS = [
  ...RECORDING_ON_DEMAND.map((m) => ({ value: m, label: RECORDING_ON_DEMAND_TEXT[m] })),
  KEEP_OPTION,
];

/** A recording mode (or on-demand choice) of the form; null shows and saves as "Keep the PBX's setting". */
export function RecordingSelect<T extends FieldValues>({
  control,
  name,
  label,
  error,
  onDemand = false,
  className,
}: {
  control: Control<T>;
  name: Path<T>;
  label: string;
  error?: string;
  /** The on-demand (one-touch) choices instead of the modes. */
  onDemand?: boolean;
  className?: string;
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <SelectField
          label={label}
          error={error}
          className={className}
          value={field.value === null ? KEEP : String(field.value ?? (onDemand ? "disabled" : "dontcare"))}
          onValueChange={(v) => field.onChange(v === KEEP ? null : v)}
          options={onDemand ? ON_DEMAND_OPTIONS : MODE_OPTIONS}
        />
      )}
    />
  );
}

const MEANINGS = `${RECORDING_MODES.map((m) => `${RECORDING_MODE_TEXT[m].label}: ${RECORDING_MODE_TEXT[m].hint}`).join(". ")}.`;

/** What the modes mean, as FreePBX decides a call between two sides (an extension and the other side or route). */
export function RecordingHint({ id }: { id?: string }) {
  return (
    <p id={id} className="text-muted-foreground text-xs">
      {MEANINGS} Between two extensions that disagree, the higher recording priority wins, then the called one. "Keep
      the PBX's setting" leaves it as set in FreePBX.
    </p>
  );
}

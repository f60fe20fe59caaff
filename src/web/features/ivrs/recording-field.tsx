import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { SelectField } from "@/components/form-fields";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { recordingsQuery } from "@/features/recordings/api";
import { errorText } from "@/lib/error-text";

const NONE = "none";

/**
 * A system recording on the PBX (its FreePBX id), or none. The recordings are read from the PBX over SSH;
 * while that is not possible (no PBX host, the PBX unreachable) the id is typed instead, so the rest of the
 * form still saves.
 */
export function RecordingField({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: number | null;
  onChange: (next: number | null) => void;
  error?: string;
}) {
  const recordings = useQuery(recordingsQuery());
  const hintId = useId();

  if (recordings.isError) {
    return (
      <div className="grid content-start gap-1.5">
        <FormField label={label} error={error}>
          {(control) => (
            <Input
              {...control}
              aria-describedby={[control["aria-describedby"], hintId].filter(Boolean).join(" ")}
              type="number"
              inputMode="numeric"
              min={1}
              placeholder="None"
              value={value ?? ""}
              onChange={(e) => onChange(e.target.value === "" ? null : Number(e.target.value))}
            />
          )}
        </FormField>
        <p id={hintId} className="text-muted-foreground text-xs">
          Type the recording's number in FreePBX, or leave it empty for none: the PBX's recordings could not be read.{" "}
          {errorText(recordings.error)}
        </p>
      </div>
    );
  }

  const listed = recordings.data ?? [];
  const options = [
    { value: NONE, label: "None" },
    ...listed.map((r) => ({ value: String(r.id), label: r.name })),
    // A recording deleted on the PBX since (or not read yet) stays chosen until another is.
    ...(value !== null && !listed.some((r) => r.id === value)
      ? [{ value: String(value), label: `Recording ${value}` }]
      : []),
  ];
  return (
    <div className="grid content-start gap-1.5">
      <SelectField
        label={label}
        error={error}
        value={value === null ? NONE : String(value)}
        onValueChange={(v) => onChange(v === NONE ? null : Number(v))}
        options={options}
      />
      {recordings.isPending && (
        <p role="status" className="text-muted-foreground text-xs">
          Reading the PBX's recordings…
        </p>
      )}
    </div>
  );
}

/** Labelled inputs the forms share: a select, an on/off switch, a select bound to a react-hook-form field, a search box, an input with suggestions. */
import { Search } from "lucide-react";
import { useId } from "react";
import { type Control, Controller, type FieldValues, type Path } from "react-hook-form";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Switch } from "@/components/ui/switch";

import { SelectField } from "./select-field";

// Without react-hook-form: screens outside the forms' chunk use it too (ADR 0046).
export { SelectField };

/** An on/off setting: label and a one-line explanation on the left, the switch on the right. */
export function SwitchField({
  label,
  description,
  checked,
  onCheckedChange,
}: {
  label: string;
  description?: string;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="flex items-center justify-between gap-4 rounded-md border p-3">
      <div className="grid gap-1">
        <Label htmlFor={id}>{label}</Label>
        {description && (
          <p id={`${id}-description`} className="text-muted-foreground text-xs">
            {description}
          </p>
        )}
      </div>
      <Switch
        id={id}
        checked={checked}
        onCheckedChange={onCheckedChange}
        aria-describedby={description ? `${id}-description` : undefined}
      />
    </div>
  );
}

/** A SelectField bound to a react-hook-form field (`fallback` shows while the field is empty). */
export function ControlledSelect<T extends FieldValues>({
  control,
  name,
  fallback = "",
  ...props
}: Omit<Parameters<typeof SelectField>[0], "value" | "onValueChange"> & {
  control: Control<T>;
  name: Path<T>;
  fallback?: string;
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <SelectField {...props} value={String(field.value ?? fallback)} onValueChange={field.onChange} />
      )}
    />
  );
}

/** A labelled text input that suggests values (an `<input list>` with its `<datalist>`): free text allowed. */
export function SuggestField({
  label,
  error,
  className,
  value,
  onChange,
  suggestions,
  placeholder,
}: {
  label: string;
  error?: string;
  className?: string;
  value: string;
  onChange: (value: string) => void;
  suggestions: readonly string[];
  placeholder?: string;
}) {
  const listId = useId();
  return (
    <FormField label={label} error={error} className={className}>
      {(control) => (
        <>
          <Input
            {...control}
            list={listId}
            placeholder={placeholder}
            autoComplete="off"
            spellCheck={false}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
          <datalist id={listId}>
            {suggestions.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </>
      )}
    </FormField>
  );
}

/** A labelled search box with its magnifier and its error underneath (the filters of long lists). */
export function SearchField({
  label,
  error,
  className,
  value,
  onChange,
  placeholder,
}: {
  label: string;
  error?: string;
  className?: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
}) {
  return (
    <FormField label={label} error={error} className={className}>
      {(control) => (
        <div className="relative">
          <Search className="absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden />
          <Input
            {...control}
            type="search"
            className="pl-9"
            placeholder={placeholder}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
        </div>
      )}
    </FormField>
  );
}

import { type ComponentProps, useState } from "react";
import { Input } from "@/components/ui/input";

/**
 * The extension count. Anything that is not a number counts as 1;
 * the text typed stays as typed until the field is left, so clearing it to type
 * a new number does not jump to "1" under the cursor.
 */
export function CountInput({
  value,
  onChange,
  onBlur,
  ...props
}: Omit<ComponentProps<typeof Input>, "value" | "onChange" | "type"> & {
  value: number;
  onChange: (value: number) => void;
}) {
  const [text, setText] = useState(String(value));
  return (
    <Input
      {...props}
      type="number"
      inputMode="numeric"
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        const n = Number.parseInt(e.target.value, 10);
        onChange(Number.isNaN(n) ? 1 : n);
      }}
      onBlur={(e) => {
        const n = Number.parseInt(e.target.value, 10);
        setText(String(Number.isNaN(n) ? 1 : n));
        onBlur?.(e);
      }}
    />
  );
}

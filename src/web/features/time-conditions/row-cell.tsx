import { type ReactNode, useId } from "react";
import { Label } from "@/components/ui/label";

export type CellControl = { id: string; "aria-invalid": boolean; "aria-describedby"?: string };

/**
 * One cell of a row of the time group's lists: its label is read out, not shown (the columns have headings),
 * its error shows under it.
 */
export function RowCell({
  label,
  error,
  children,
}: {
  label: string;
  error?: string;
  children: (c: CellControl) => ReactNode;
}) {
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

/** A list's own error (overlapping rows, a month's days) under its rows; `id` is what the fieldset names. */
export function ListError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="text-destructive text-sm">
      {message}
    </p>
  );
}

import { type ReactNode, useId } from "react";
import { cn } from "@/lib/utils";
import { Label } from "./label";

/**
 * A label, one control and its error message underneath. The control gets its
 * id, aria-invalid and aria-describedby through the render prop.
 */
export function FormField({
  label,
  error,
  className,
  children,
}: {
  label: string;
  error?: string;
  className?: string;
  children: (control: { id: string; "aria-invalid": boolean; "aria-describedby"?: string }) => ReactNode;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className={cn("grid content-start gap-2", className)}>
      <Label htmlFor={id} className={cn(error && "text-destructive")}>
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

/**
 * One control of a table-like row (the columns have headings): its label only for screen readers, its error
 * under it. `as="td"` makes it the table cell itself.
 */
export function CellField({
  label,
  error,
  className,
  as: Tag = "div",
  children,
}: {
  label: string;
  error?: string;
  className?: string;
  as?: "div" | "td";
  children: (control: { id: string; "aria-invalid": boolean; "aria-describedby"?: string }) => ReactNode;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <Tag className={className}>
      <Label htmlFor={id} className="sr-only">
        {label}
      </Label>
      {children({ id, "aria-invalid": Boolean(error), "aria-describedby": error ? errorId : undefined })}
      {error && (
        <p id={errorId} className="mt-1 text-destructive text-xs">
          {error}
        </p>
      )}
    </Tag>
  );
}

/** A form-level error (not tied to one field). */
export function FormError({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <div
      role="alert"
      className="rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-red-800 text-sm dark:text-red-200"
    >
      {message}
    </div>
  );
}

import { Link } from "@tanstack/react-router";
import { useId } from "react";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";
import { Skeleton } from "@/components/ui/skeleton";
import { cn } from "@/lib/utils";
import type { Extension } from "../../../shared/inventory";

/** Existing extensions ('number - name', sorted numerically by the caller) to tick as members. */
export function MemberChecklist({
  extensions,
  value,
  onChange,
  error,
}: {
  /** undefined while the list loads. */
  extensions: Extension[] | undefined;
  value: string[];
  onChange: (members: string[]) => void;
  error?: string;
}) {
  const id = useId();
  const toggle = (number: string, on: boolean) => onChange(on ? [...value, number] : value.filter((m) => m !== number));

  return (
    <fieldset className="grid gap-2" aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="float-left mb-2 flex w-full items-baseline justify-between">
        <span className={cn("font-medium text-sm leading-none", error && "text-destructive")}>Members</span>
        <span className="text-muted-foreground text-xs" aria-hidden>
          {value.length} selected
        </span>
      </legend>
      {extensions === undefined ? (
        <div role="status" aria-label="Loading extensions" className="grid gap-2 rounded-md border p-2">
          <Skeleton className="h-5 w-2/3" />
          <Skeleton className="h-5 w-1/2" />
        </div>
      ) : extensions.length === 0 ? (
        <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
          No extensions yet.{" "}
          <Link to="/extensions" className="text-primary underline-offset-4 hover:underline">
            Create extensions
          </Link>{" "}
          first.
        </p>
      ) : (
        <div className="grid max-h-52 gap-1 overflow-y-auto rounded-md border p-2 sm:grid-cols-2">
          {extensions.map((ext) => {
            const boxId = `${id}-${ext.extension}`;
            return (
              <div key={ext.id} className="flex items-center gap-2 rounded-sm px-2 py-1.5 hover:bg-accent/50">
                <Checkbox
                  id={boxId}
                  checked={value.includes(ext.extension)}
                  onCheckedChange={(checked) => toggle(ext.extension, checked === true)}
                />
                <Label htmlFor={boxId} className="min-w-0 flex-1 cursor-pointer truncate font-normal">
                  {ext.extension} - {ext.name}
                </Label>
              </div>
            );
          })}
        </div>
      )}
      {error && (
        <p id={`${id}-error`} className="text-destructive text-sm">
          {error}
        </p>
      )}
    </fieldset>
  );
}

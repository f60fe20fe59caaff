import { useQuery } from "@tanstack/react-query";
import { ChevronDownIcon } from "lucide-react";
import { useId, useLayoutEffect, useMemo, useRef } from "react";
import { Label } from "@/components/ui/label";
import { extensionsQuery } from "@/features/extensions/api";
import { cn } from "@/lib/utils";
import type { Extension } from "../../../shared/inventory";
import { byNumber } from "../../../shared/sort";

/**
 * Extensions in numeric order, labelled "number - name". A native <select> on
 * purpose: the Radix Select mounts every item even while closed, which froze
 * this page with 5,000 extensions; the native one is instant,
 * accessible, and typing the first digits jumps to the extension. Its 5,000 options are made with the
 * DOM's `new Option` (text, never HTML) outside React: React building them makes one long task when the
 * list arrives; this is a small fraction of it.
 */
export function ExtensionSelect({
  value,
  onChange,
}: {
  value: Extension | null;
  onChange: (ext: Extension | null) => void;
}) {
  const id = useId();
  const list = useQuery({ ...extensionsQuery(), refetchOnMount: "always" });
  const sorted = useMemo(() => [...(list.data ?? [])].sort((a, b) => byNumber(a.extension, b.extension)), [list.data]);
  const empty = list.data?.length === 0;
  const placeholder = list.isPending ? "Loading extensions…" : empty ? "No extensions yet" : "Select an extension";
  const selectRef = useRef<HTMLSelectElement>(null);
  const selectedValue = value ? String(value.id) : "";

  // The placeholder is React's (the first option); the extensions follow it, replaced when the list changes.
  useLayoutEffect(() => {
    const select = selectRef.current;
    if (!select) return;
    const items = document.createDocumentFragment();
    for (const e of sorted) {
      const option = new Option(`${e.extension} - ${e.name}`, String(e.id));
      option.className = "bg-popover text-popover-foreground";
      items.append(option);
    }
    select.length = 1;
    select.append(items);
  }, [sorted]);
  // Controlled: the value follows the prop, also once the options it names exist.
  useLayoutEffect(() => {
    if (selectRef.current && sorted) selectRef.current.value = selectedValue;
  }, [selectedValue, sorted]);

  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>Extension</Label>
      <div className="relative sm:max-w-md">
        <select
          ref={selectRef}
          id={id}
          defaultValue=""
          onChange={(e) => onChange(sorted.find((x) => String(x.id) === e.target.value) ?? null)}
          disabled={!list.data || empty}
          className={cn(
            "h-9 w-full cursor-pointer appearance-none rounded-md border border-input bg-transparent py-1 pr-9 pl-3 text-sm shadow-xs outline-none transition-[color,box-shadow] disabled:cursor-not-allowed disabled:opacity-50 dark:bg-input/30",
            "focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50",
            !value && "text-muted-foreground",
          )}
        >
          <option value="" disabled>
            {placeholder}
          </option>
        </select>
        <ChevronDownIcon
          className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 opacity-50"
          aria-hidden
        />
      </div>
      {list.isError && <p className="text-destructive text-sm">Could not load extensions: {list.error.message}</p>}
    </div>
  );
}

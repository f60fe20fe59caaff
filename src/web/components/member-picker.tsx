/**
 * A searchable multi-select of numbered things (extensions as PTT/page-group members, and anywhere a
 * screen picks several of a long list): a search by number or name, "Select all N matching" and "Clear",
 * a live "12 of 60 selected", and a labelled checkbox per option. The list is virtual (only the rows near
 * the visible part are mounted), so 5,000 options stay quick; Arrow keys, Home and End move between rows.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { Search } from "lucide-react";
import { type KeyboardEvent, type ReactNode, useDeferredValue, useId, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Skeleton } from "@/components/ui/skeleton";
import { cn } from "@/lib/utils";

export interface PickerOption {
  /** What is stored (an extension number). */
  value: string;
  /** The option's text, e.g. "1001 - Alice". */
  label: string;
}

const ROW_HEIGHT = 32;

/** Case-insensitive match of every word of the search in the option's value or label. */
export function matchesSearch(option: PickerOption, search: string): boolean {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const text = `${option.value} ${option.label}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

export function MemberPicker({
  legend,
  options,
  value,
  onChange,
  error,
  empty,
  searchLabel = "Search by number or name",
  className,
}: {
  /** The group's name ("Members"). */
  legend: string;
  /** undefined while the options load. */
  options: readonly PickerOption[] | undefined;
  value: readonly string[];
  onChange: (values: string[]) => void;
  error?: string;
  /** Shown when there are no options at all. */
  empty?: ReactNode;
  searchLabel?: string;
  className?: string;
}) {
  const id = useId();
  const [search, setSearch] = useState("");
  const deferred = useDeferredValue(search);
  const scrollRef = useRef<HTMLDivElement>(null);
  const selected = useMemo(() => new Set(value), [value]);
  const matching = useMemo(() => (options ?? []).filter((o) => matchesSearch(o, deferred)), [options, deferred]);
  const matchingUnselected = matching.filter((o) => !selected.has(o.value)).length;

  const virtual = useVirtualizer({
    count: matching.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });

  const toggle = (v: string, on: boolean) => onChange(on ? [...value, v] : value.filter((m) => m !== v));
  const selectMatching = () => {
    const add = matching.map((o) => o.value).filter((v) => !selected.has(v));
    onChange([...value, ...add]);
  };

  /** Arrow keys, Home and End move the focus between rows, scrolling the row into view first. */
  const onRowKey = (e: KeyboardEvent<HTMLButtonElement>, at: number) => {
    const keys = ["ArrowDown", "ArrowUp", "Home", "End"];
    if (!keys.includes(e.key)) return;
    e.preventDefault();
    const last = matching.length - 1;
    const next =
      e.key === "ArrowDown"
        ? Math.min(at + 1, last)
        : e.key === "ArrowUp"
          ? Math.max(at - 1, 0)
          : e.key === "Home"
            ? 0
            : last;
    virtual.scrollToIndex(next, { align: "auto" });
    const focus = (tries: number) =>
      requestAnimationFrame(() => {
        const box = scrollRef.current?.querySelector<HTMLElement>(`[data-index="${next}"] button[role="checkbox"]`);
        if (box) box.focus();
        else if (tries > 0) focus(tries - 1);
      });
    focus(5);
  };

  const count = options?.length ?? 0;
  return (
    <fieldset className={cn("grid gap-2", className)} aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="float-left mb-2 flex w-full items-baseline justify-between gap-2">
        <span className={cn("font-medium text-sm leading-none", error && "text-destructive")}>{legend}</span>
        <span className="text-muted-foreground text-xs tabular-nums" role="status" aria-live="polite">
          {value.length} of {count} selected
        </span>
      </legend>
      {options === undefined ? (
        <div role="status" aria-label={`Loading ${legend.toLowerCase()}`} className="grid gap-2 rounded-md border p-2">
          <Skeleton className="h-5 w-2/3" />
          <Skeleton className="h-5 w-1/2" />
        </div>
      ) : options.length === 0 ? (
        (empty ?? <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">Nothing to pick.</p>)
      ) : (
        <>
          <div className="flex flex-wrap items-center gap-2">
            <div className="relative min-w-40 flex-1">
              <Search
                className="-translate-y-1/2 pointer-events-none absolute top-1/2 left-2.5 size-4 text-muted-foreground"
                aria-hidden
              />
              <Input
                type="search"
                aria-label={searchLabel}
                placeholder={searchLabel}
                className="pl-8"
                value={search}
                onChange={(e) => setSearch(e.target.value)}
                onKeyDown={(e) => {
                  // Enter in the search must not submit the dialog's form.
                  if (e.key === "Enter") e.preventDefault();
                }}
              />
            </div>
            <Button
              type="button"
              variant="outline"
              size="sm"
              disabled={matchingUnselected === 0}
              onClick={selectMatching}
            >
              Select all {matching.length} matching
            </Button>
            <Button
              type="button"
              variant="ghost"
              size="sm"
              aria-label="Clear selection"
              disabled={value.length === 0}
              onClick={() => onChange([])}
            >
              Clear
            </Button>
          </div>
          <div ref={scrollRef} className="max-h-52 overflow-y-auto rounded-md border" data-testid="member-picker-list">
            {matching.length === 0 ? (
              <p className="p-3 text-muted-foreground text-sm">No match for “{deferred.trim()}”.</p>
            ) : (
              <ul className="relative" style={{ height: virtual.getTotalSize() }} aria-label={legend}>
                {virtual.getVirtualItems().map((row) => {
                  const option = matching[row.index] as PickerOption;
                  const boxId = `${id}-${row.index}`;
                  return (
                    <li
                      key={option.value}
                      data-index={row.index}
                      className="absolute inset-x-0 flex items-center gap-2 px-3 hover:bg-accent/50"
                      style={{ top: row.start, height: ROW_HEIGHT }}
                    >
                      <Checkbox
                        id={boxId}
                        checked={selected.has(option.value)}
                        onCheckedChange={(checked) => toggle(option.value, checked === true)}
                        onKeyDown={(e) => onRowKey(e, row.index)}
                      />
                      <Label htmlFor={boxId} className="min-w-0 flex-1 cursor-pointer truncate font-normal">
                        {option.label}
                      </Label>
                    </li>
                  );
                })}
              </ul>
            )}
          </div>
        </>
      )}
      {error && (
        <p id={`${id}-error`} className="text-destructive text-sm">
          {error}
        </p>
      )}
    </fieldset>
  );
}

import { Plus, X } from "lucide-react";
import { type KeyboardEvent, useId, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { cn } from "@/lib/utils";
import { outboundRouteSchema } from "../../../shared/inventory";
import { lazySchema } from "../../../shared/lazy-schema";

/** One pattern, judged (and upper-cased) by the same rule the server applies. */
const patternSchema = lazySchema(() => outboundRouteSchema.shape.dialPatterns.element);

/**
 * The route's dial patterns as removable badges, and (for the Custom template
 * only) an input that adds one with the button or Enter. Enter never submits
 * the surrounding form.
 */
export function DialPatternEditor({
  patterns,
  onChange,
  allowCustom,
  error,
}: {
  patterns: string[];
  onChange: (patterns: string[]) => void;
  allowCustom: boolean;
  error?: string;
}) {
  const id = useId();
  const [draft, setDraft] = useState("");
  const [draftError, setDraftError] = useState<string>();

  function add() {
    const text = draft.trim();
    if (!text) {
      setDraft("");
      return;
    }
    const parsed = patternSchema.safeParse(text);
    if (!parsed.success) {
      setDraftError(parsed.error.issues[0]?.message);
      return;
    }
    if (!patterns.includes(parsed.data)) onChange([...patterns, parsed.data]);
    setDraft("");
    setDraftError(undefined);
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key !== "Enter") return;
    e.preventDefault();
    add();
  }

  const message = draftError ?? error;
  return (
    <div className="grid gap-2">
      <Label
        id={`${id}-label`}
        htmlFor={allowCustom ? `${id}-input` : undefined}
        className={cn(message && "text-destructive")}
      >
        Dial patterns
      </Label>
      {allowCustom && (
        <div className="flex gap-2">
          <Input
            id={`${id}-input`}
            value={draft}
            placeholder="e.g. NXXNXXXXXX"
            onChange={(e) => {
              setDraft(e.target.value);
              setDraftError(undefined);
            }}
            onKeyDown={onKeyDown}
            aria-invalid={Boolean(message)}
            aria-describedby={message ? `${id}-error` : `${id}-hint`}
            className="font-mono"
          />
          <Button type="button" variant="secondary" onClick={add}>
            <Plus />
            Add
          </Button>
        </div>
      )}
      <ul
        aria-labelledby={`${id}-label`}
        className="flex min-h-9 flex-wrap items-center gap-1.5 rounded-md border border-dashed p-2"
      >
        {patterns.length === 0 && (
          <li className="px-1 text-muted-foreground text-sm">No patterns yet. Add at least one.</li>
        )}
        {patterns.map((p) => (
          <li key={p}>
            <Badge variant="secondary" className="gap-1 py-0.5 pr-0.5 font-mono">
              {p}
              <button
                type="button"
                aria-label={`Remove pattern ${p}`}
                title={`Remove pattern ${p}`}
                onClick={() => onChange(patterns.filter((x) => x !== p))}
                className="rounded-sm p-0.5 opacity-70 outline-none hover:bg-foreground/10 hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring"
              >
                <X className="size-3" aria-hidden />
              </button>
            </Badge>
          </li>
        ))}
      </ul>
      {message ? (
        <p id={`${id}-error`} className="text-destructive text-sm">
          {message}
        </p>
      ) : (
        allowCustom && (
          <p id={`${id}-hint`} className="text-muted-foreground text-xs">
            X is any digit, N is 2-9, Z is 1-9, [137] is one of those digits. Press Enter to add.
          </p>
        )
      )}
    </div>
  );
}

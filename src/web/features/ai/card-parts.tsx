/** Pieces the AI assistant and routing rule cards share, and the questions asked before a delete. */
import { LoaderCircle, Pencil, Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { Button } from "@/components/ui/button";
import { CardFooter } from "@/components/ui/card";
import { useCan } from "@/hooks/use-role";
import { cn } from "@/lib/utils";

/** The browser confirmation before a transcript's delete (assistants and rules use the confirmation dialog). */
export const DELETE_QUESTION = {
  transcript: "Are you sure you want to delete this transcript?",
} as const;

/** A term and its value on a card ("Model", "GPT-4O Realtime"). */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 items-baseline justify-between gap-3 text-sm">
      <dt className="shrink-0 text-muted-foreground">{term}</dt>
      <dd className="truncate text-right">{children}</dd>
    </div>
  );
}

/**
 * A card's Edit and Delete buttons; `name` labels them ("Edit Front desk"), Delete asks first (naming what
 * uses it, ADR 0037) and spins while pending. Not shown to a role that cannot write (a viewer).
 */
export function EditDeleteFooter({
  name,
  deleting,
  onEdit,
  onDelete,
  confirm,
  className,
}: {
  name: string;
  deleting: boolean;
  onEdit: () => void;
  onDelete: () => Promise<unknown>;
  /** The object in words ("AI assistant"), its list's query key and id: where its dependents are read. */
  confirm: { what: string; list: readonly string[]; id: number };
  className?: string;
}) {
  if (!useCan("operator")) return null;
  return (
    <CardFooter className={cn("justify-end gap-2", className)}>
      <Button type="button" variant="outline" size="sm" onClick={onEdit} aria-label={`Edit ${name}`}>
        <Pencil />
        Edit
      </Button>
      <ConfirmDeleteDialog what={confirm.what} name={name} list={confirm.list} id={confirm.id} onDelete={onDelete}>
        {(ask) => (
          <Button
            type="button"
            variant="outline"
            size="sm"
            className="text-destructive hover:text-destructive"
            onClick={ask}
            disabled={deleting}
            aria-label={`Delete ${name}`}
          >
            {deleting ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
            Delete
          </Button>
        )}
      </ConfirmDeleteDialog>
    </CardFooter>
  );
}

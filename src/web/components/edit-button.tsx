/**
 * Editing from a card: the pencil button beside Delete, and the open state of the card's edit
 * dialog. The dialog has no Radix trigger (the card mounts it only while open), so focus is put back on
 * the pencil when it closes, saved or cancelled.
 */
import { Pencil } from "lucide-react";
import { type ReactNode, type RefObject, type SyntheticEvent, useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { useCan } from "@/hooks/use-role";

/**
 * The object the card's edit dialog is open for (null: closed). It is the object as it was when the
 * dialog opened, so the optimistic list update (and its roll back) does not refill the form under the
 * user; closing the dialog returns focus to the Edit button.
 */
export function useEditDialog<T>() {
  const [editing, setEditing] = useState<T | null>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  const open = editing !== null;
  useEffect(() => {
    if (wasOpen.current && !open) buttonRef.current?.focus();
    wasOpen.current = open;
  }, [open]);
  return { editing, buttonRef, show: (item: T) => setEditing(item), close: () => setEditing(null) };
}

/** The pencil that opens an edit dialog; hidden from a role that may not write (the server refuses anyway). */
export function EditButton({
  label,
  onClick,
  buttonRef,
  className,
  tabIndex,
}: {
  label: string;
  onClick: () => void;
  buttonRef: RefObject<HTMLButtonElement | null>;
  className?: string;
  /** -1 inside a grid that moves focus with the arrow keys. */
  tabIndex?: number;
}) {
  if (!useCan("operator")) return null;
  return (
    <Button
      ref={buttonRef}
      type="button"
      variant="ghost"
      size="icon"
      className={className ?? "-mt-1.5 ml-auto size-8 text-muted-foreground hover:text-foreground"}
      aria-label={label}
      title={label}
      tabIndex={tabIndex}
      onClick={onClick}
    >
      <Pencil />
    </Button>
  );
}

const stop = (e: SyntheticEvent) => e.stopPropagation();

/**
 * Where a card mounts its edit dialog. The dialog is portalled, but React bubbles its events through
 * the card: typing in it must not reach a card's own keys (e.g. Alt+Arrow reordering) or drag handlers.
 * (Escape and outside clicks are Radix's document listeners: not stopped here.)
 */
export function EditDialogSlot({ dialog }: { dialog: ReactNode }) {
  if (!dialog) return null;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: no box and no content of its own (the dialog is portalled): it only stops React's bubbling
    <span className="contents" onKeyDown={stop} onDragStart={stop} onDragOver={stop} onDrop={stop}>
      {dialog}
    </span>
  );
}

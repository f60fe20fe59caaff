/**
 * Create/edit dialogs whose form (react-hook-form, zod, the shared schemas) comes in a chunk of its own,
 * loaded on demand (ADR 0046): the screen's group chunk holds only this wrapper. A create dialog's
 * "Add …" button belongs to the wrapper, not to the form's chunk, so it is there at once and stays the
 * same element when the form arrives (a click is never lost to a swap). Hovering or focusing it starts
 * the download, and so does the browser's next idle moment; a click before the form is there opens the
 * dialog as soon as it arrives. An edit dialog, mounted by its card only while open, shows nothing until
 * then (`deferred()`).
 */
import { Plus } from "lucide-react";
import { type ComponentType, createContext, type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { useCan } from "@/hooks/use-role";
import { chunkedComponent } from "@/lib/deferred";
import type { Role } from "../../shared/users";

/** Whether a create dialog is open, when its "Add …" button is outside it: read by the form kit. */
export interface OpenFromOutside {
  open: boolean;
  setOpen: (open: boolean) => void;
}

/**
 * Given, the form kit's `useFormDialog` takes its open state from here instead of its own, and
 * `FormDialog` draws no trigger of its own (the wrapper's button is the trigger).
 */
export const OpenFromOutsideContext = createContext<OpenFromOutside | null>(null);

export interface DeferredDialog<P> {
  (props: P): ReactNode;
  /** Starts loading the chunk (once). */
  preload: () => Promise<void>;
}

/**
 * A create dialog (a `FormDialog` with a `trigger`) from `load`'s chunk, with its "Add …" button drawn
 * here: `label` and `minRole` are what the dialog's own trigger would show. Unlike `deferred()`,
 * mounting it does not start the download at once: hovering, focusing or clicking the button does, or
 * the browser's next idle moment, so the form does not compete with the screen's first data.
 */
export function deferredCreateDialog<P extends object>(
  load: () => Promise<ComponentType<P>>,
  label: string,
  minRole: Role = "operator",
): DeferredDialog<P> {
  const chunk = chunkedComponent(load);
  const { preload } = chunk;

  // biome-ignore lint/correctness/noComponentHookFactories: made once per dialog at module level, as React.lazy does.
  function DeferredCreateDialog(props: P) {
    const canWrite = useCan(minRole);
    const [, setSettled] = useState(false);
    const [open, setOpen] = useState(false);
    const mounted = useRef(false);
    const buttonRef = useRef<HTMLButtonElement>(null);
    const wasOpen = useRef(false);
    const outside = useMemo(() => ({ open, setOpen }), [open]);

    const warm = () => {
      void preload().then(() => {
        if (mounted.current) setSettled(true);
      });
    };

    useEffect(() => {
      mounted.current = true;
      return () => {
        mounted.current = false;
      };
    }, []);

    // A role that may not create never sees the button: it does not need the form either.
    // biome-ignore lint/correctness/useExhaustiveDependencies: `warm` reads module state only
    useEffect(() => {
      if (!canWrite) return;
      const idle = typeof requestIdleCallback === "function";
      const handle = idle ? requestIdleCallback(warm) : setTimeout(warm, 0);
      return () => {
        if (idle) cancelIdleCallback(handle as number);
        else clearTimeout(handle);
      };
    }, [canWrite]);

    // The button is no Radix trigger: focus goes back to it when the dialog closes, saved or cancelled.
    useEffect(() => {
      if (wasOpen.current && !open) buttonRef.current?.focus();
      wasOpen.current = open;
    }, [open]);

    if (chunk.failure !== undefined) throw chunk.failure;
    const { Loaded } = chunk;
    return (
      <>
        {canWrite && (
          <Button
            ref={buttonRef}
            type="button"
            aria-haspopup="dialog"
            aria-expanded={open}
            onPointerEnter={warm}
            onFocus={warm}
            onClick={() => {
              setOpen(true);
              warm();
            }}
          >
            <Plus />
            {label}
          </Button>
        )}
        {Loaded && (
          <OpenFromOutsideContext.Provider value={outside}>
            <Loaded {...props} />
          </OpenFromOutsideContext.Provider>
        )}
      </>
    );
  }
  DeferredCreateDialog.preload = preload;
  return DeferredCreateDialog;
}

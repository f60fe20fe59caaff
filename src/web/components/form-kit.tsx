/**
 * The one form kit: react-hook-form validated by the shared zod schema, the
 * server's field errors under the inputs, and the dialog (with its toasts) that
 * every create and edit screen uses. The request itself comes from the
 * feature's api.ts, which takes the `saved` callbacks of `useFormDialog`.
 */
import { zodResolver } from "@hookform/resolvers/zod";
import { LoaderCircle, Plus } from "lucide-react";
import { type FormEventHandler, type ReactNode, useContext, useEffect, useState } from "react";
import { type DefaultValues, type FieldValues, type Path, useForm } from "react-hook-form";
import type { z } from "zod";
import { OpenFromOutsideContext } from "@/components/deferred-dialog";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { FormError } from "@/components/ui/form-field";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { errorMessage } from "@/lib/error-text";
import { applyServerErrors } from "@/lib/form-errors";
import type { MutationUi } from "@/lib/mutations";
import { cn } from "@/lib/utils";
import type { Role } from "../../shared/users";

type Schema = z.ZodType<FieldValues, FieldValues>;

/** A form validated by `schema`, and the message for the whole form (a server error no input owns). */
export function useSchemaForm<S extends Schema>(schema: S, defaults: DefaultValues<z.input<S>>) {
  const [formError, setFormError] = useState<string>();
  const form = useForm<z.input<S>, unknown, z.output<S>>({
    // biome-ignore lint/suspicious/noExplicitAny: zodResolver's overloads do not follow a generic schema
    resolver: zodResolver(schema as any) as any,
    defaultValues: defaults,
  });
  /** Puts a failed request's field errors under the named inputs; the rest becomes (and is returned as) the form's message. */
  const showServerError = (err: unknown, fields: readonly Path<z.input<S>>[]) => {
    const message = applyServerErrors(err, form.setError, fields);
    setFormError(message);
    return message;
  };
  /** The submit handler: validates, clears the form's message, then sends. */
  const submit = (send: (values: z.output<S>) => void) =>
    form.handleSubmit((values) => {
      setFormError(undefined);
      send(values);
    });
  return { form, formError, setFormError, showServerError, submit };
}

/** What happens to what the user typed when the dialog closes. */
export type DraftPolicy =
  /** Create dialogs: a cancelled draft is still there at the next opening; a save empties the form. */
  | "keep"
  /** Every close, cancelled or saved, empties the form and its message. */
  | "reset-on-close"
  /** Create/edit dialogs: every opening fills the form from the edit target, or the defaults. */
  | "reset-on-open";

type PerMode = string | { create: string; edit: string };

export interface FormDialogOptions<S extends Schema, T> {
  schema: S;
  defaults: DefaultValues<z.input<S>>;
  /** The inputs a server field error can land under (any other goes to the form's message). */
  fields: readonly Path<z.input<S>>[];
  draft: DraftPolicy;
  /** Toast titles; per mode when the dialog also edits. */
  success: PerMode;
  failure: PerMode;
  /**
   * The failure toast's description: the form's message, or "Check the highlighted fields." when
   * every problem landed on an input ("form", the default); or the server's own message ("server").
   */
  failureDetail?: "form" | "server";
  /** After a save, once the dialog has closed (e.g. to reset state kept beside the form). */
  onSaved?: () => void;
  /** An edit dialog is opened by its screen: `open`, the record being edited (null: create) and `onClose`. */
  open?: boolean;
  onClose?: () => void;
  editing?: T | null;
  toForm?: (record: T) => z.input<S>;
}

/**
 * The state of a create or edit dialog: the form, whether it is open, and `saved`, the toasts and
 * form handling to hand to the feature's mutation hook.
 */
export function useFormDialog<S extends Schema, T = never>(opts: FormDialogOptions<S, T>) {
  const { form, formError, setFormError, showServerError, submit } = useSchemaForm(opts.schema, opts.defaults);
  const [ownOpen, setOwnOpen] = useState(false);
  // A create dialog loaded on demand has its "Add …" button, and so its open state, outside (ADR 0046).
  const outside = useContext(OpenFromOutsideContext);
  const controlled = opts.open !== undefined;
  const open = controlled ? Boolean(opts.open) : outside ? outside.open : ownOpen;
  const editing = opts.editing ?? null;
  const mode = editing === null ? "create" : "edit";
  const textFor = (text: PerMode) => (typeof text === "string" ? text : text[mode]);

  const resetForm = () => {
    form.reset(editing !== null && opts.toForm ? opts.toForm(editing) : opts.defaults);
    setFormError(undefined);
  };

  const setOpen = (next: boolean) => {
    if (controlled) {
      if (!next) opts.onClose?.();
    } else if (outside) outside.setOpen(next);
    else setOwnOpen(next);
    if (!next && opts.draft === "reset-on-close") resetForm();
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each opening (and a new target); the rest is read fresh
  useEffect(() => {
    if (open && opts.draft === "reset-on-open") resetForm();
  }, [open, editing]);

  const saved: MutationUi = {
    onSuccess: () => {
      toast({ title: textFor(opts.success) });
      setOpen(false);
      if (opts.draft === "keep") resetForm();
      opts.onSaved?.();
    },
    onError: (err) => {
      const message = showServerError(err, opts.fields);
      const description =
        opts.failureDetail === "server" ? errorMessage(err) : (message ?? "Check the highlighted fields.");
      toast({ variant: "destructive", title: textFor(opts.failure), description });
    },
  };

  return { form, formError, open, setOpen, mode, saved, submit };
}

/**
 * The dialog around a create or edit form. With `trigger` it brings its own "Add …" button (shown
 * only to a role of at least `minRole`); without, the screen opens it (`useFormDialog`'s `open`).
 */
export function FormDialog({
  dialog,
  trigger,
  title,
  description,
  submitLabel,
  onSubmit,
  pending,
  canSubmit = true,
  wide = false,
  minRole = "operator",
  children,
}: {
  dialog: { open: boolean; setOpen: (open: boolean) => void; formError?: string };
  trigger?: string;
  title: string;
  description: string;
  submitLabel: string;
  onSubmit: FormEventHandler<HTMLFormElement>;
  pending: boolean;
  canSubmit?: boolean;
  wide?: boolean;
  /** The least role the dialog's request needs: a role below it does not see the `trigger` button. */
  minRole?: Role;
  children: ReactNode;
}) {
  // A role that cannot send the request does not see the dialog's own "Add …" button (the server refuses anyway).
  const canWrite = useCan(minRole);
  // Loaded on demand, the dialog's button is drawn by its wrapper (components/deferred-dialog.tsx).
  const outside = useContext(OpenFromOutsideContext);
  return (
    <Dialog open={dialog.open} onOpenChange={dialog.setOpen}>
      {trigger && canWrite && !outside && (
        <DialogTrigger asChild>
          <Button>
            <Plus />
            {trigger}
          </Button>
        </DialogTrigger>
      )}
      <DialogContent className={cn(wide && "sm:max-w-2xl")}>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-5">
          {children}
          <FormError message={dialog.formError} />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => dialog.setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={pending || !canSubmit}>
              {pending && <LoaderCircle className="animate-spin" />}
              {submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

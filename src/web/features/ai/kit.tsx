/**
 * What the three AI screens share: query keys, the save mutation (create or
 * edit) with the spec's toasts, delete behind the browser confirmation, and the
 * one dialog that serves both create and edit.
 */

import { zodResolver } from "@hookform/resolvers/zod";
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle, Pencil, Trash2 } from "lucide-react";
import { type FormEventHandler, type ReactNode, useEffect, useState } from "react";
import { type DefaultValues, type FieldValues, type Path, type UseFormSetError, useForm } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { CardFooter } from "@/components/ui/card";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { FormError } from "@/components/ui/form-field";
import { toast } from "@/components/ui/use-toast";
import { sendJson } from "@/lib/api";
import { errorText } from "@/lib/error-text";
import { applyServerErrors } from "@/lib/form-errors";
import { cn } from "@/lib/utils";

export const aiKeys = {
  assistants: ["/api/ai/assistants"],
  transcripts: ["/api/ai/transcripts"],
  rules: ["/api/ai/routing-rules"],
  tokens: ["/api/ai/tokens"],
  sipUri: ["/api/ai/sip-uri"],
  calls: ["/api/ai/calls"],
} as const satisfies Record<string, QueryKey>;

/** Spec section 5: the browser confirmations before a delete. */
export const CONFIRM = {
  assistant: "Are you sure you want to delete this AI assistant?",
  transcript: "Are you sure you want to delete this transcript?",
  rule: "Are you sure you want to delete this routing rule?",
} as const;

/** DELETE `<list URL>/<id>` after `window.confirm`; toast, refetch, then `onDone` (e.g. close a dialog). */
export function useConfirmedDelete(opts: { listKey: QueryKey; confirm: string; success: string; failure: string }) {
  const client = useQueryClient();
  const mutation = useMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `${opts.listKey.join("/")}/${id}`),
    onSuccess: async () => {
      toast({ title: opts.success });
      await client.invalidateQueries({ queryKey: opts.listKey });
    },
    onError: (err) => toast({ variant: "destructive", title: opts.failure, description: errorText(err) }),
  });
  return {
    isDeleting: (id: number) => mutation.isPending && mutation.variables === id,
    remove: (id: number, onDone?: () => void) => {
      if (!window.confirm(opts.confirm)) return;
      mutation.mutate(id, { onSuccess: () => onDone?.() });
    },
  };
}

/**
 * POST to the list URL (create) or PATCH `<list URL>/<id>` (edit). Success:
 * toast, refetch, `onSaved`. Failure: server field errors under the inputs, a
 * destructive toast, and the form-level message (if any) to `onFormError`.
 */
/**
 * The form of a create/edit dialog: every opening resets it to the edit target
 * or the defaults, so nothing typed survives a close (spec section 4).
 */
export function useEditorForm<S extends z.ZodType<FieldValues, FieldValues>, T>(opts: {
  schema: S;
  defaults: z.input<S>;
  open: boolean;
  editing: T | null;
  toForm: (record: T) => z.input<S>;
}) {
  const { schema, defaults, open, editing, toForm } = opts;
  const [formError, setFormError] = useState<string>();
  const form = useForm<z.input<S>, unknown, z.output<S>>({
    // biome-ignore lint/suspicious/noExplicitAny: zodResolver's overloads do not follow a generic schema
    resolver: zodResolver(schema as any) as any,
    defaultValues: defaults as DefaultValues<z.input<S>>,
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: defaults and toForm are module constants
  useEffect(() => {
    if (open) {
      form.reset(editing ? toForm(editing) : defaults);
      setFormError(undefined);
    }
  }, [open, editing, form]);
  return { form, formError, setFormError };
}

export function useSave<TForm extends FieldValues, TBody>(opts: {
  listKey: QueryKey;
  editingId: number | null;
  success: { create: string; edit: string };
  failure: { create: string; edit: string };
  setError: UseFormSetError<TForm>;
  fields: readonly Path<TForm>[];
  onSaved: () => void;
  onFormError: (message: string | undefined) => void;
}) {
  const client = useQueryClient();
  const url = opts.listKey.join("/");
  const mode = opts.editingId === null ? "create" : "edit";
  return useMutation({
    mutationFn: (body: TBody) =>
      opts.editingId === null
        ? sendJson<unknown>("POST", url, body)
        : sendJson<unknown>("PATCH", `${url}/${opts.editingId}`, body),
    onMutate: () => opts.onFormError(undefined),
    onSuccess: async () => {
      toast({ title: opts.success[mode] });
      opts.onSaved();
      await client.invalidateQueries({ queryKey: opts.listKey });
    },
    onError: (err) => {
      const message = applyServerErrors(err, opts.setError, opts.fields);
      opts.onFormError(message);
      toast({
        variant: "destructive",
        title: opts.failure[mode],
        description: message ?? "Check the highlighted fields.",
      });
    },
  });
}

/** The one dialog a screen uses for create and edit (controlled; the screen owns the trigger). */
export function FormDialog({
  open,
  onOpenChange,
  title,
  description,
  submitLabel,
  onSubmit,
  pending,
  formError,
  wide = false,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  submitLabel: string;
  onSubmit: FormEventHandler<HTMLFormElement>;
  pending: boolean;
  formError?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className={cn(wide && "sm:max-w-2xl")}>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-5">
          {children}
          <FormError message={formError} />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={pending}>
              {pending && <LoaderCircle className="animate-spin" />}
              {submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** A term and its value on a card ("Model", "GPT-4O Realtime"). */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 items-baseline justify-between gap-3 text-sm">
      <dt className="shrink-0 text-muted-foreground">{term}</dt>
      <dd className="truncate text-right">{children}</dd>
    </div>
  );
}

/** A card's Edit and Delete buttons; `name` labels them ("Edit Front desk"), Delete spins while pending. */
export function EditDeleteFooter({
  name,
  deleting,
  onEdit,
  onDelete,
  className,
}: {
  name: string;
  deleting: boolean;
  onEdit: () => void;
  onDelete: () => void;
  className?: string;
}) {
  return (
    <CardFooter className={cn("justify-end gap-2", className)}>
      <Button type="button" variant="outline" size="sm" onClick={onEdit} aria-label={`Edit ${name}`}>
        <Pencil />
        Edit
      </Button>
      <Button
        type="button"
        variant="outline"
        size="sm"
        className="text-destructive hover:text-destructive"
        onClick={onDelete}
        disabled={deleting}
        aria-label={`Delete ${name}`}
      >
        {deleting ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
        Delete
      </Button>
    </CardFooter>
  );
}

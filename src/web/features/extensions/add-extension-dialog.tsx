import { zodResolver } from "@hookform/resolvers/zod";
import { LoaderCircle, Plus } from "lucide-react";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import type { z } from "zod";
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
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/error-text";
import { applyServerErrors } from "@/lib/form-errors";
import { extensionSchema } from "../../../shared/inventory";
import { useCreateExtension } from "./api";

type FormInput = z.input<typeof extensionSchema>;
type FormOutput = z.output<typeof extensionSchema>;

const FIELDS = ["extension", "name", "email", "secret", "voicemail"] as const;
const EMPTY: FormInput = { extension: "", name: "", email: "", secret: "", voicemail: false };

/** "Add Extension": the form validates with the server's own schema; server field errors land under fields. */
export function AddExtensionDialog() {
  const [open, setOpen] = useState(false);
  const [formError, setFormError] = useState<string>();
  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(extensionSchema),
    defaultValues: EMPTY,
  });
  const { errors } = form.formState;
  const create = useCreateExtension();

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) {
      form.reset(EMPTY);
      setFormError(undefined);
    }
  };

  const onSubmit = form.handleSubmit((v) => {
    setFormError(undefined);
    create.mutate(
      { extension: v.extension, name: v.name, email: v.email, voicemail: v.voicemail, secret: v.secret },
      {
        onSuccess: () => onOpenChange(false),
        onError: (err) => {
          setFormError(applyServerErrors(err, form.setError, FIELDS));
          toast({ variant: "destructive", title: "Failed to create extension.", description: errorMessage(err) });
        },
      },
    );
  });

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        <Button>
          <Plus />
          Add Extension
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Add Extension</DialogTitle>
          <DialogDescription>Create a SIP extension for a phone or softphone.</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <div className="grid gap-4 sm:grid-cols-[10rem_1fr]">
            <FormField label="Extension" error={errors.extension?.message}>
              {(c) => <Input {...c} inputMode="numeric" placeholder="1001" autoFocus {...form.register("extension")} />}
            </FormField>
            <FormField label="Name" error={errors.name?.message}>
              {(c) => <Input {...c} placeholder="Jane Doe" autoComplete="off" {...form.register("name")} />}
            </FormField>
          </div>
          <FormField label="Email" error={errors.email?.message}>
            {(c) => (
              <Input
                {...c}
                type="email"
                placeholder="jane@example.com (optional)"
                autoComplete="off"
                {...form.register("email")}
              />
            )}
          </FormField>
          <FormField label="Secret" error={errors.secret?.message}>
            {(c) => (
              <Input
                {...c}
                type="password"
                placeholder="Leave blank to generate a strong secret"
                autoComplete="new-password"
                {...form.register("secret")}
              />
            )}
          </FormField>
          <Controller
            control={form.control}
            name="voicemail"
            render={({ field }) => (
              <div className="flex items-center justify-between gap-4 rounded-md border px-3 py-2.5">
                <div className="grid gap-1">
                  <Label htmlFor="extension-voicemail">Voicemail</Label>
                  <p className="text-muted-foreground text-xs">Callers can leave a message when nobody answers.</p>
                </div>
                <Switch
                  id="extension-voicemail"
                  checked={field.value ?? false}
                  onCheckedChange={field.onChange}
                  onBlur={field.onBlur}
                />
              </div>
            )}
          />
          <FormError message={formError} />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending && <LoaderCircle className="animate-spin" />}
              Create Extension
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

import { KeyRound, LoaderCircle } from "lucide-react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { SecretInput, SecretTextarea } from "./secret-input";
import type { InputSpec } from "./services";
import type { CardField } from "./use-service-form";

const MASK = "••••";

/** Where an environment variable provides the value (the input is then disabled). */
function FromEnv({ env }: { env: string | undefined }) {
  return (
    <p className="text-muted-foreground text-xs">
      from <code className="font-mono">{env}</code>
    </p>
  );
}

/** One credential input: a secret shows the last four characters of the stored one as its placeholder. */
export function CredentialInput({
  field: f,
  input,
  error,
  register,
}: {
  field: CardField;
  input: InputSpec;
  error: string | undefined;
  register: UseFormRegisterReturn;
}) {
  const fromEnv = Boolean(f.view?.fromEnv);
  const placeholder = f.secret && f.view?.set ? `${MASK}${f.view.last4 ?? ""}` : input.placeholder;
  return (
    <FormField label={f.label} error={error}>
      {(control) => (
        <>
          {f.secret && input.multiline ? (
            <SecretTextarea {...control} {...register} placeholder={placeholder} disabled={fromEnv} />
          ) : f.secret ? (
            <SecretInput {...control} {...register} placeholder={placeholder} disabled={fromEnv} />
          ) : (
            <Input
              {...control}
              {...register}
              type={input.type ?? "text"}
              inputMode={input.type === "number" ? "numeric" : undefined}
              placeholder={placeholder}
              disabled={fromEnv}
              autoComplete="off"
              spellCheck={false}
            />
          )}
          {fromEnv && <FromEnv env={f.env} />}
        </>
      )}
    </FormField>
  );
}

/** A value shown, not typed (the pinned SSH host key), with its Forget button while one is stored. */
export function PinnedValue({
  field: f,
  testId,
  disabled,
  forgetting,
  onForget,
}: {
  field: CardField;
  testId: string;
  disabled: boolean;
  forgetting: boolean;
  onForget: () => void;
}) {
  return (
    <div className="grid gap-2 rounded-md border border-dashed p-3">
      <div className="flex items-center justify-between gap-2">
        <span className="flex items-center gap-2 font-medium text-sm">
          <KeyRound className="size-4 text-muted-foreground" aria-hidden />
          {f.label}
        </span>
        {f.view?.set && !f.view.fromEnv && (
          <Button type="button" variant="outline" size="sm" disabled={disabled} onClick={onForget}>
            {forgetting && <LoaderCircle className="animate-spin" />}
            Forget host key
          </Button>
        )}
      </div>
      {f.view?.set ? (
        <code className="break-all font-mono text-xs" data-testid={testId}>
          {f.view.value}
        </code>
      ) : (
        <p className="text-muted-foreground text-xs">Not pinned yet: the first successful test pins it.</p>
      )}
      {f.view?.fromEnv && <FromEnv env={f.env} />}
    </div>
  );
}

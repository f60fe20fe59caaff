import { Eye, EyeOff } from "lucide-react";
import { type ComponentProps, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { cn } from "@/lib/utils";

function Toggle({
  shown,
  onToggle,
  controls,
  disabled,
}: {
  shown: boolean;
  onToggle: () => void;
  controls?: string;
  disabled?: boolean;
}) {
  const Icon = shown ? EyeOff : Eye;
  return (
    <Button
      type="button"
      variant="ghost"
      size="icon"
      className="absolute top-0.5 right-0.5 size-8 text-muted-foreground"
      aria-label={shown ? "Hide" : "Show"}
      aria-pressed={shown}
      aria-controls={controls}
      onClick={onToggle}
      disabled={disabled}
    >
      <Icon />
    </Button>
  );
}

/** A password input with a show/hide toggle (aria-label "Show" / "Hide"). */
export function SecretInput({ className, ...props }: Omit<ComponentProps<"input">, "type">) {
  const [shown, setShown] = useState(false);
  return (
    <div className="relative">
      <Input
        {...props}
        type={shown ? "text" : "password"}
        autoComplete="off"
        spellCheck={false}
        className={cn("pr-10", className)}
      />
      <Toggle shown={shown} onToggle={() => setShown((s) => !s)} controls={props.id} disabled={props.disabled} />
    </div>
  );
}

/** A multi-line secret (a private key): masked like a password until shown. */
export function SecretTextarea({ className, ...props }: ComponentProps<"textarea">) {
  const [shown, setShown] = useState(false);
  return (
    <div className="relative">
      <Textarea
        {...props}
        autoComplete="off"
        spellCheck={false}
        data-masked={!shown}
        className={cn(
          "max-h-48 min-h-20 pr-10 font-mono text-xs md:text-xs",
          !shown && "[-webkit-text-security:disc]",
          className,
        )}
      />
      <Toggle shown={shown} onToggle={() => setShown((s) => !s)} controls={props.id} disabled={props.disabled} />
    </div>
  );
}

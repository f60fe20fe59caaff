/**
 * A secret shown once (a token the server keeps only as a hash): the sentence that says so, the value in a
 * read-only field with a Copy button, and Done to put it away.
 */
import { Check, Copy } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";

export function ShownOnce({
  message,
  value,
  fieldLabel,
  copyLabel,
  onDone,
}: {
  message: string;
  value: string;
  /** The read-only field's accessible name. */
  fieldLabel: string;
  copyLabel: string;
  onDone: () => void;
}) {
  const [copied, flash] = useCopiedFlag();
  return (
    <div className="grid gap-2 rounded-md border border-warning/50 bg-warning/10 p-3" role="status">
      <p className="font-medium text-sm">{message}</p>
      <div className="flex items-center gap-2">
        <Input readOnly aria-label={fieldLabel} value={value} className="min-w-0 flex-1 font-mono text-sm" />
        <Button
          type="button"
          variant="outline"
          size="icon"
          className="size-8"
          aria-label={copyLabel}
          onClick={() =>
            copyText(value).then(flash, (err: Error) =>
              toast({ variant: "destructive", title: "Copy failed", description: err.message }),
            )
          }
        >
          {copied ? <Check /> : <Copy />}
        </Button>
      </div>
      <Button type="button" variant="ghost" size="sm" className="justify-self-end" onClick={onDone}>
        Done
      </Button>
    </div>
  );
}

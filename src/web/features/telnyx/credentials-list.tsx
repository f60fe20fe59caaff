import { Eye, EyeOff, KeySquare, LoaderCircle } from "lucide-react";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import type { SipCredential } from "../../../shared/telnyx";
import { failureText, useRevealPassword } from "./api";
import { formatDate } from "./format";

/** The masked password; revealing it (GET …/password, an operator's) is not offered to a viewer. */
function PasswordCell({ credential }: { credential: SipCredential }) {
  const [revealed, setRevealed] = useState<string | null>(null);
  const canReveal = useCan("operator");
  const reveal = useRevealPassword(credential.id, {
    onSuccess: (r) => setRevealed(r.sip_password),
    onError: (err) =>
      toast({ title: "Error", description: failureText(err, "Failed to reveal the password"), variant: "destructive" }),
  });
  const shown = revealed !== null;
  return (
    <span className="inline-flex items-center gap-1">
      <code className="break-all font-mono text-xs" data-testid="sip-password">
        {shown ? revealed : credential.sip_password}
      </code>
      {canReveal && (
        <Button
          variant="ghost"
          size="icon"
          className="size-7 text-muted-foreground"
          aria-label={shown ? "Hide password" : "Reveal password"}
          disabled={reveal.isPending}
          onClick={() => (shown ? setRevealed(null) : reveal.mutate())}
        >
          {reveal.isPending ? <LoaderCircle className="animate-spin" /> : shown ? <EyeOff /> : <Eye />}
        </Button>
      )}
    </span>
  );
}

/** Shown only when any exist. */
export function CredentialsList({ credentials }: { credentials: SipCredential[] }) {
  return (
    <Card role="region" aria-label="Generated Credentials">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeySquare className="size-4 text-muted-foreground" aria-hidden />
          Generated Credentials
          <Badge variant="secondary">{credentials.length}</Badge>
        </CardTitle>
      </CardHeader>
      <CardContent>
        <ul className="grid gap-2">
          {credentials.map((c) => (
            <li key={c.id} aria-label={c.name} className="grid gap-1 rounded-md border p-3 text-sm">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <span className="font-medium">{c.name}</span>
                <span className="flex items-center gap-2">
                  {c.extension && <Badge variant="outline">Ext {c.extension}</Badge>}
                  <span className="text-muted-foreground text-xs">Created {formatDate(c.created_at)}</span>
                </span>
              </div>
              <div className="grid gap-1 text-xs sm:grid-cols-[auto_1fr] sm:gap-x-3">
                <span className="text-muted-foreground">SIP Username</span>
                <code className="break-all font-mono" data-testid="sip-username">
                  {c.sip_username}
                </code>
                <span className="self-center text-muted-foreground">SIP Password</span>
                <PasswordCell credential={c} />
              </div>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

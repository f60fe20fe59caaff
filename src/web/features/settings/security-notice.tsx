import { ShieldCheck } from "lucide-react";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";

/** The API Settings screen's note: where credentials live and which source wins. */
export function SecurityNotice() {
  return (
    <Card role="region" aria-label="Security Notice" className="gap-3 border-primary/30 bg-primary/5">
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <ShieldCheck className="size-4 text-primary" aria-hidden />
          Security Notice
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-2 text-muted-foreground text-sm">
        <p>
          Credentials are stored in the database, encrypted. Secrets are never sent back to the browser: only their last
          4 characters are shown.
        </p>
        <p>
          Environment variables take precedence over database-stored credentials. A field set by one is marked with the
          variable's name and cannot be edited here.
        </p>
      </CardContent>
    </Card>
  );
}

import { Plus } from "lucide-react";
import { CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

/**
 * The "Create SIP Connection" card's header: the form's (loaded on demand, ADR 0046) and its placeholder's
 * until then, so the two read the same. Kept apart from the form: this module brings no zod.
 */
export function CreateConnectionHeader() {
  return (
    <CardHeader>
      <CardTitle className="flex items-center gap-2">
        <Plus className="size-4 text-muted-foreground" aria-hidden />
        Create SIP Connection
      </CardTitle>
      <CardDescription>
        A credential connection at Telnyx. Username and password are generated when left blank.
      </CardDescription>
    </CardHeader>
  );
}

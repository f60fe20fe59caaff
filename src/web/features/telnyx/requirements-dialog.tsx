import { useQuery } from "@tanstack/react-query";
import { FileText, LoaderCircle } from "lucide-react";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import type { RegulatoryRequirement } from "../../../shared/telnyx";
import { requirementsQuery } from "./api";

function RequirementItem({ r }: { r: RegulatoryRequirement }) {
  const { time_limit, locality_limit } = r.acceptance_criteria ?? { time_limit: null, locality_limit: null };
  return (
    <li className="grid gap-2 rounded-md border p-3">
      <p className="font-medium text-sm">{r.description}</p>
      <div className="flex flex-wrap gap-2 text-xs">
        <Badge variant="outline">Field type: {r.field_type}</Badge>
        <Badge variant="outline">Record type: {r.record_type}</Badge>
      </div>
      {(time_limit || locality_limit) && (
        <div className="grid gap-1 text-muted-foreground text-xs">
          <span className="font-medium text-foreground">Acceptance criteria</span>
          <ul className="list-disc pl-5">
            {time_limit && <li>Document must be less than {time_limit} old</li>}
            {locality_limit && <li>Must match: {locality_limit}</li>}
          </ul>
        </div>
      )}
    </li>
  );
}

/** Regulatory requirements for IL local numbers, fetched only when opened. */
export function RequirementsDialog({ phoneNumber }: { phoneNumber: string }) {
  const [open, setOpen] = useState(false);
  const requirements = useQuery(requirementsQuery(open));

  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm">
          <FileText />
          View Requirements
        </Button>
      </DialogTrigger>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Regulatory Requirements for {phoneNumber}</DialogTitle>
          <DialogDescription>What Telnyx needs for local numbers in Israel (IL).</DialogDescription>
        </DialogHeader>
        {requirements.isPending ? (
          <div className="flex items-center gap-2 py-6 text-muted-foreground text-sm">
            <LoaderCircle className="size-4 animate-spin" aria-hidden />
            Loading requirements...
          </div>
        ) : requirements.isError ? (
          <p role="alert" className="text-destructive text-sm">
            {requirements.error.message}
          </p>
        ) : requirements.data.length === 0 ? (
          <p className="py-4 text-muted-foreground text-sm">No additional requirements needed</p>
        ) : (
          <ul className="grid gap-3">
            {requirements.data.map((r) => (
              <RequirementItem key={`${r.record_type}:${r.field_type}:${r.description}`} r={r} />
            ))}
          </ul>
        )}
        <p className="rounded-md bg-muted p-3 text-muted-foreground text-xs">
          Documents can be uploaded via the Telnyx API (Documents and Requirement Groups), then linked to the number.
        </p>
      </DialogContent>
    </Dialog>
  );
}

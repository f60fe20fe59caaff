import { LoaderCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";

/** Asks before the stored values of a service are deleted. */
export function RemoveCredentialsDialog({
  title,
  open,
  onOpenChange,
  pending,
  onRemove,
}: {
  title: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  pending: boolean;
  onRemove: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Remove {title} credentials?</DialogTitle>
          <DialogDescription>
            The values stored in the database are deleted. Values set by environment variables stay in effect.
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button variant="destructive" disabled={pending} onClick={onRemove}>
            {pending && <LoaderCircle className="animate-spin" />}
            Remove
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

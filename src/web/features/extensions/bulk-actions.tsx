/**
 * What the Extensions table does with its selection (ADR 0041): delete them after one confirmation that
 * names the count and those a PTT group or inbound route keeps (the server's rule, asked before), and
 * set shared fields (voicemail, position) on all of them.
 */
import { LoaderCircle, Pencil, Trash2, X } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import type { ExtensionBulkDeleteResult, ExtensionBulkPatch } from "../../../shared/extensions-bulk";
import { checkBulkDelete, useBulkDeleteExtensions, useBulkUpdateExtensions } from "./api";

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

function BulkDeleteDialog({
  ids,
  open,
  onClose,
  onDone,
}: {
  ids: number[];
  open: boolean;
  onClose: () => void;
  onDone: (deleted: number[]) => void;
}) {
  const [check, setCheck] = useState<ExtensionBulkDeleteResult | null>(null);
  const [checkError, setCheckError] = useState<string | null>(null);
  const remove = useBulkDeleteExtensions({
    onSuccess: (r) => {
      toast({
        title: `${plural(r.deleted.length, "extension", "extensions")} deleted`,
        description: r.blocked.length
          ? `${plural(r.blocked.length, "extension was", "extensions were")} kept: ${r.blocked.map((b) => b.extension).join(", ")}`
          : undefined,
      });
      onDone(r.deleted);
    },
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to delete extensions", description: errorText(err) }),
  });

  useEffect(() => {
    if (!open) return;
    let live = true;
    setCheck(null);
    setCheckError(null);
    checkBulkDelete(ids).then(
      (r) => live && setCheck(r),
      (err: unknown) => live && setCheckError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [open, ids]);

  const deletable = check?.deleted.length ?? 0;
  return (
    <Dialog open={open} onOpenChange={(o) => !o && onClose()}>
      <DialogContent className="sm:max-w-lg">
        <DialogHeader>
          <DialogTitle>Delete {plural(ids.length, "extension", "extensions")}?</DialogTitle>
          <DialogDescription>
            {check
              ? `${plural(deletable, "extension", "extensions")} will be deleted. This cannot be undone.`
              : "Checking what uses them…"}
          </DialogDescription>
        </DialogHeader>
        {checkError && (
          <p role="alert" className="text-destructive text-sm">
            {checkError}
          </p>
        )}
        {check && check.blocked.length > 0 && (
          <div className="grid gap-2" data-testid="bulk-delete-blocked">
            <p className="font-medium text-sm">
              {plural(check.blocked.length, "extension is", "extensions are")} in use and will be kept:
            </p>
            <ul className="max-h-48 list-disc overflow-y-auto pl-5 text-muted-foreground text-sm">
              {check.blocked.map((b) => (
                <li key={b.id}>{b.reason}</li>
              ))}
            </ul>
          </div>
        )}
        <DialogFooter>
          <Button type="button" variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button
            type="button"
            variant="destructive"
            disabled={!check || deletable === 0 || remove.isPending}
            onClick={() => remove.mutate(ids)}
          >
            {remove.isPending ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
            Delete {check ? plural(deletable, "extension", "extensions") : ""}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

type Voicemail = "keep" | "on" | "off";

function BulkEditDialog({ ids, open, onClose }: { ids: number[]; open: boolean; onClose: () => void }) {
  const [voicemail, setVoicemail] = useState<Voicemail>("keep");
  const [setPosition, setSetPosition] = useState(false);
  const [position, setPositionText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    setVoicemail("keep");
    setSetPosition(false);
    setPositionText("");
    setError(null);
  }, [open]);
  const update = useBulkUpdateExtensions({
    onSuccess: (r) => {
      toast({ title: `${plural(r.updated.length, "extension", "extensions")} updated` });
      onClose();
    },
    onError: (err) => setError(errorText(err)),
  });
  const patch: ExtensionBulkPatch = {};
  if (voicemail !== "keep") patch.voicemail = voicemail === "on";
  if (setPosition) patch.position = position;
  const empty = Object.keys(patch).length === 0;

  return (
    <Dialog open={open} onOpenChange={(o) => !o && onClose()}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>Edit {plural(ids.length, "extension", "extensions")}</DialogTitle>
          <DialogDescription>The fields you set here change on every selected extension.</DialogDescription>
        </DialogHeader>
        <form
          className="grid gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            if (!empty) update.mutate({ ids, patch });
          }}
        >
          <fieldset className="grid gap-2">
            <legend className="mb-1 font-medium text-sm">Voicemail</legend>
            {(
              [
                ["keep", "Leave as it is"],
                ["on", "On"],
                ["off", "Off"],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name={`${id}-voicemail`}
                  value={value}
                  checked={voicemail === value}
                  onChange={() => setVoicemail(value)}
                  className="accent-primary"
                />
                {label}
              </label>
            ))}
          </fieldset>
          <div className="grid gap-2">
            <label className="flex items-center gap-2 font-medium text-sm">
              <input
                type="checkbox"
                checked={setPosition}
                onChange={(e) => setSetPosition(e.target.checked)}
                className="accent-primary"
              />
              Set position
            </label>
            <Input
              aria-label="Position"
              disabled={!setPosition}
              value={position}
              onChange={(e) => setPositionText(e.target.value)}
              placeholder="Blank clears it"
            />
          </div>
          {error && (
            <p role="alert" className="text-destructive text-sm">
              {error}
            </p>
          )}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={empty || update.isPending}>
              {update.isPending && <LoaderCircle className="animate-spin" />}
              Apply to {plural(ids.length, "extension", "extensions")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** The selection's bar: its count, Edit, Delete and Clear (an operator's; the table hides it otherwise). */
export function BulkActions({
  ids,
  onClear,
  onDeleted,
}: {
  ids: number[];
  onClear: () => void;
  onDeleted: (deleted: number[]) => void;
}) {
  const [dialog, setDialog] = useState<"edit" | "delete" | null>(null);
  const close = () => setDialog(null);
  return (
    <>
      <fieldset className="flex flex-wrap items-center gap-2" aria-label="Selected extensions">
        <span className="text-sm tabular-nums" data-testid="selected-count">
          {ids.length.toLocaleString()} selected
        </span>
        <Button variant="outline" size="sm" disabled={ids.length === 0} onClick={() => setDialog("edit")}>
          <Pencil />
          Edit selected
        </Button>
        <Button variant="outline" size="sm" disabled={ids.length === 0} onClick={() => setDialog("delete")}>
          <Trash2 />
          Delete selected
        </Button>
        <Button variant="ghost" size="sm" disabled={ids.length === 0} onClick={onClear}>
          <X />
          Clear selection
        </Button>
      </fieldset>
      <BulkEditDialog ids={ids} open={dialog === "edit"} onClose={close} />
      <BulkDeleteDialog
        ids={ids}
        open={dialog === "delete"}
        onClose={close}
        onDone={(deleted) => {
          close();
          onDeleted(deleted);
        }}
      />
    </>
  );
}

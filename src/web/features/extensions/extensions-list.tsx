import type { RowSelectionState } from "@tanstack/react-table";
import { LoaderCircle, PhoneOff, QrCode, Search, SearchX, Trash2, TriangleAlert } from "lucide-react";
import { useCallback, useDeferredValue, useMemo, useState } from "react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EmptyState } from "@/components/empty-state";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Skeleton } from "@/components/ui/skeleton";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { useCan } from "@/hooks/use-role";
import { errorMessage } from "@/lib/error-text";
import { queryKeys } from "@/lib/query-keys";
import type { Extension } from "../../../shared/inventory";
import { AddExtensionDialog, EditExtensionButton } from "./add-extension-dialog";
import { useDeleteExtension, useExtensions } from "./api";
import { BulkActions } from "./bulk-actions";
import { ExtensionsTable } from "./extensions-table";
import { filterExtensions, sortExtensions } from "./filter";
import { QrCodeDialog } from "./qr-code-dialog";

const fmt = (n: number) => n.toLocaleString("en-US");

function SkeletonRows() {
  return (
    <div className="grid gap-2 rounded-md border p-3" aria-busy="true">
      <span className="sr-only" role="status">
        Loading extensions…
      </span>
      {[0, 1, 2].map((i) => (
        <div key={i} className="flex items-center gap-4" data-testid="extension-skeleton">
          <Skeleton className="h-5 w-16" />
          <Skeleton className="h-5 w-40" />
          <Skeleton className="h-5 w-52" />
          <Skeleton className="ml-auto h-5 w-20" />
        </div>
      ))}
    </div>
  );
}

function FilterBar({
  query,
  onQuery,
  shown,
  total,
}: {
  query: string;
  onQuery: (q: string) => void;
  shown: number;
  total: number;
}) {
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
      <div className="relative w-full sm:max-w-sm">
        <Search className="-translate-y-1/2 absolute top-1/2 left-3 size-4 text-muted-foreground" aria-hidden />
        <Input
          type="search"
          value={query}
          onChange={(e) => onQuery(e.target.value)}
          placeholder="Filter by number, name or email"
          aria-label="Filter extensions"
          className="pl-9"
        />
      </div>
      <p className="text-muted-foreground text-sm tabular-nums" role="status" data-testid="extension-count">
        {shown === total
          ? `${fmt(total)} ${total === 1 ? "extension" : "extensions"}`
          : `${fmt(shown)} of ${fmt(total)}`}
      </p>
    </div>
  );
}

/** One row's actions: the QR code (it carries the SIP password) and Delete are an operator's. */
function RowActions({
  ext,
  active,
  onShowQr,
}: {
  ext: Extension;
  /** The table's active row: its buttons follow it in the tab order, the others' are reached through it. */
  active: boolean;
  onShowQr: (ext: Extension) => void;
}) {
  const tabIndex = active ? 0 : -1;
  // The confirmation lists what uses it; a 409 in between says why in the toast, not just "failed".
  const remove = useDeleteExtension(
    undoableDeleteToasts("Extension deleted", "Failed to delete extension.", [queryKeys.extensions], errorMessage),
  );
  return (
    <>
      <Button
        variant="outline"
        size="sm"
        onClick={() => onShowQr(ext)}
        aria-label={`QR code for extension ${ext.extension}`}
        tabIndex={tabIndex}
      >
        <QrCode />
        <span className="hidden lg:inline">QR Code</span>
      </Button>
      <EditExtensionButton ext={ext} tabIndex={tabIndex} />
      <ConfirmDeleteDialog
        what="extension"
        name={ext.extension}
        list={queryKeys.extensions}
        id={ext.id}
        onDelete={() => remove.mutateAsync(ext)}
      >
        {(ask) => (
          <Button
            variant="ghost"
            size="sm"
            className="text-muted-foreground hover:text-destructive"
            disabled={remove.isPending}
            onClick={ask}
            aria-label={`Delete extension ${ext.extension}`}
            tabIndex={tabIndex}
          >
            {remove.isPending ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
          </Button>
        )}
      </ConfirmDeleteDialog>
    </>
  );
}

/** The extensions: loading, error, empty, the filter, the table and what its selection does. */
export function ExtensionsList() {
  const list = useExtensions();
  const canWrite = useCan("operator");
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const [qrFor, setQrFor] = useState<Extension | null>(null);
  const closeQr = useCallback(() => setQrFor(null), []);
  const [selection, setSelection] = useState<RowSelectionState>({});
  // Enter on a row: its edit dialog (an operator's), focus going back to the row when it closes.
  const [editing, setEditing] = useState<{ ext: Extension; row: HTMLElement | null } | null>(null);
  const openEdit = useCallback(
    (ext: Extension) => {
      if (canWrite)
        setEditing({ ext, row: document.activeElement instanceof HTMLElement ? document.activeElement : null });
    },
    [canWrite],
  );
  const closeEdit = useCallback(() => {
    setEditing((e) => {
      e?.row?.focus();
      return null;
    });
  }, []);

  const sorted = useMemo(() => sortExtensions(list.data ?? []), [list.data]);
  const shown = useMemo(() => filterExtensions(sorted, deferredQuery), [sorted, deferredQuery]);
  // The selection's stored extensions (one deleted elsewhere drops out), whether or not the filter shows them.
  const selectedIds = useMemo(() => sorted.filter((e) => selection[e.id]).map((e) => e.id), [sorted, selection]);
  const renderActions = useCallback(
    (ext: Extension, active: boolean) =>
      canWrite ? <RowActions ext={ext} active={active} onShowQr={setQrFor} /> : null,
    [canWrite],
  );

  if (!list.data) {
    if (list.isError) {
      return (
        <EmptyState
          icon={TriangleAlert}
          title="Could not load extensions"
          description={errorMessage(list.error)}
          action={
            <Button variant="outline" onClick={() => list.refetch()}>
              Try again
            </Button>
          }
        />
      );
    }
    return <SkeletonRows />;
  }

  if (sorted.length === 0) {
    return (
      <EmptyState
        icon={PhoneOff}
        title="No extensions yet"
        description="Create your first extension to get started"
        viewerDescription="No extension has been added yet."
      />
    );
  }

  return (
    <>
      <FilterBar query={query} onQuery={setQuery} shown={shown.length} total={sorted.length} />
      {shown.length === 0 ? (
        <EmptyState
          icon={SearchX}
          title="No matching extensions"
          description={`Nothing matches “${deferredQuery.trim()}”. Try a number, a name or an email.`}
        />
      ) : (
        <ExtensionsTable
          rows={shown}
          selection={selection}
          onSelectionChange={setSelection}
          onOpen={openEdit}
          actions={renderActions}
          toolbar={
            canWrite && selectedIds.length > 0 ? (
              <BulkActions
                ids={selectedIds}
                onClear={() => setSelection({})}
                onDeleted={(deleted) =>
                  setSelection((s) => {
                    const next = { ...s };
                    for (const id of deleted) delete next[id];
                    return next;
                  })
                }
              />
            ) : null
          }
        />
      )}
      <QrCodeDialog ext={qrFor} onClose={closeQr} />
      {editing && <AddExtensionDialog editing={editing.ext} onClose={closeEdit} />}
    </>
  );
}

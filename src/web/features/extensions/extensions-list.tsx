import { useQuery } from "@tanstack/react-query";
import type { RowSelectionState } from "@tanstack/react-table";
import { LoaderCircle, Pencil, PhoneOff, QrCode, Search, SearchX, Trash2, TriangleAlert } from "lucide-react";
import { type ReactNode, useCallback, useDeferredValue, useEffect, useMemo, useState } from "react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EmptyState } from "@/components/empty-state";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Skeleton } from "@/components/ui/skeleton";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { EditExtensionDialog } from "@/forms/inventory-deferred";
import { useCan } from "@/hooks/use-role";
import { errorMessage } from "@/lib/error-text";
import { useRevealWhen } from "@/lib/prerender";
import { queryKeys } from "@/lib/query-keys";
import type { Extension } from "../../../shared/inventory";
import { dialerStatusQuery, pushInBackground, useDeleteExtension, useExtensions } from "./api";
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

/**
 * One row's actions: the QR code (it carries the SIP password), Edit and Delete are an operator's. Plain
 * buttons: the dialogs they open are the list's, one for all rows (a row mounts no dialog, query or
 * mutation of its own, which kept 5,000 extensions' first render long).
 */
function RowActions({
  ext,
  active,
  deleting,
  onShowQr,
  onEdit,
  onDelete,
}: {
  ext: Extension;
  /** The table's active row: its buttons follow it in the tab order, the others' are reached through it. */
  active: boolean;
  /** Its delete is in flight. */
  deleting: boolean;
  onShowQr: (ext: Extension) => void;
  onEdit: (ext: Extension) => void;
  onDelete: (ext: Extension) => void;
}) {
  const tabIndex = active ? 0 : -1;
  const edit = `Edit extension ${ext.extension}`;
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
      <Button
        type="button"
        variant="ghost"
        size="icon"
        className="text-muted-foreground hover:text-foreground"
        aria-label={edit}
        title={edit}
        tabIndex={tabIndex}
        onClick={() => onEdit(ext)}
      >
        <Pencil />
      </Button>
      <Button
        variant="ghost"
        size="sm"
        className="text-muted-foreground hover:text-destructive"
        disabled={deleting}
        onClick={() => onDelete(ext)}
        aria-label={`Delete extension ${ext.extension}`}
        tabIndex={tabIndex}
      >
        {deleting ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
      </Button>
    </>
  );
}

/** Opens the confirmation it is given as soon as it mounts (the list mounts one per Delete press, until it closes). */
function AskNow({ ask }: { ask: () => void }) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per mount.
  useEffect(() => ask(), []);
  return null;
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

  // A list that arrives after the screen renders as a transition, in slices the browser can interrupt, not
  // in one long task (ADR 0045). One already there when the screen mounts renders with it: the screen is
  // then itself a deferred render (the shell's, ADR 0030), and React defers a mount's value whenever an
  // initial one is given, which costs a second pass before the first row of a warm visit.
  const [listAtMount] = useState(() => list.data !== undefined);
  const data = useDeferredValue(list.data, listAtMount ? undefined : null);
  // The server's copy of this screen (ADR 0047) stays until this shows the list (or why it cannot), with the
  // web dialer's notice above it when that applies: shown a moment later, the notice moved the whole list
  // down 20 px about 100 ms after the swap (the status is preloaded with the list, SCREEN_DATA).
  const dialer = useQuery(dialerStatusQuery());
  useRevealWhen((data != null && !dialer.isPending) || list.isError);
  const sorted = useMemo(() => sortExtensions(data ?? []), [data]);
  const shown = useMemo(() => filterExtensions(sorted, deferredQuery), [sorted, deferredQuery]);
  // The selection's stored extensions (one deleted elsewhere drops out), whether or not the filter shows them.
  const selectedIds = useMemo(() => sorted.filter((e) => selection[e.id]).map((e) => e.id), [sorted, selection]);
  // Delete: the confirmation lists what uses it; a 409 in between says why in the toast, not just "failed".
  const remove = useDeleteExtension(
    // An undone delete puts the extension back in the web dialer too (the delete's push had removed it).
    undoableDeleteToasts(
      "Extension deleted",
      "Failed to delete extension.",
      [queryKeys.extensions],
      errorMessage,
      pushInBackground,
    ),
  );
  // The extension whose Delete was pressed, until its confirmation closes.
  const [deleting, setDeleting] = useState<Extension | null>(null);
  const askDelete = useCallback((ext: Extension) => setDeleting(ext), []);
  const closeDelete = useCallback(() => setDeleting(null), []);
  const deletingId = remove.isPending ? remove.variables?.id : undefined;
  const renderActions = useCallback(
    (ext: Extension, active: boolean) =>
      canWrite ? (
        <RowActions
          ext={ext}
          active={active}
          deleting={deletingId === ext.id}
          onShowQr={setQrFor}
          onEdit={openEdit}
          onDelete={askDelete}
        />
      ) : null,
    [canWrite, deletingId, openEdit, askDelete],
  );

  // The dialogs stay mounted whatever the list shows (a confirmation still closing when the last row goes).
  const dialogs = (
    <>
      <QrCodeDialog ext={qrFor} onClose={closeQr} />
      {deleting && (
        <ConfirmDeleteDialog
          key={deleting.id}
          what="extension"
          name={deleting.extension}
          list={queryKeys.extensions}
          id={deleting.id}
          onDelete={() => remove.mutateAsync(deleting)}
          onClosed={closeDelete}
        >
          {(ask) => <AskNow ask={ask} />}
        </ConfirmDeleteDialog>
      )}
      {editing && <EditExtensionDialog editing={editing.ext} onClose={closeEdit} />}
    </>
  );

  let body: ReactNode;
  if (!data) {
    body = list.isError ? (
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
    ) : (
      <SkeletonRows />
    );
  } else if (sorted.length === 0) {
    body = (
      <EmptyState
        icon={PhoneOff}
        title="No extensions yet"
        description="Create your first extension to get started"
        viewerDescription="No extension has been added yet."
      />
    );
  } else {
    body = (
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
      </>
    );
  }

  return (
    <>
      {body}
      {dialogs}
    </>
  );
}

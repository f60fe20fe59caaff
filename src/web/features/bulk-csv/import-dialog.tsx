/**
 * Import CSV (ADR 0038): choose a FreePBX Bulk Handler file → the server's preview (counts per verdict;
 * every row with its verdict, the changed fields or why it is invalid; virtual rows, so 20,000 stay light)
 * → "Import N rows" → a toast with the counts. Nothing is saved before the confirm, and the server checks
 * every row again when it applies: all rows or, when any is invalid, none.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { FileUp, LoaderCircle, Upload } from "lucide-react";
import { useId, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import type { ImportPreview, ImportRow, ImportVerdict } from "../../../shared/bulk-csv";
import { BULK_CSV_MAX_BYTES } from "../../../shared/limits";
import { type BulkCsvKind, useApplyImport, useImportPreview } from "./api";

const WORDS: Record<BulkCsvKind, { title: string; what: string; number: string; freepbx: string }> = {
  extensions: { title: "Import extensions", what: "extensions", number: "Extension", freepbx: "Extensions" },
  "inbound-routes": { title: "Import inbound routes", what: "inbound routes", number: "DID", freepbx: "DIDs" },
};

const VERDICTS: {
  verdict: ImportVerdict;
  label: string;
  variant: "success" | "default" | "outline" | "destructive";
}[] = [
  { verdict: "new", label: "New", variant: "success" },
  { verdict: "changed", label: "Changed", variant: "default" },
  { verdict: "unchanged", label: "Unchanged", variant: "outline" },
  { verdict: "invalid", label: "Invalid", variant: "destructive" },
];
const VARIANT = Object.fromEntries(VERDICTS.map((v) => [v.verdict, v.variant])) as Record<
  ImportVerdict,
  (typeof VERDICTS)[number]["variant"]
>;

const countsText = (p: ImportPreview) =>
  `${p.counts.new} new, ${p.counts.changed} changed, ${p.counts.unchanged} unchanged`;

function detailOf(row: ImportRow): string {
  if (row.verdict === "invalid") return row.reason ?? "";
  if (row.verdict === "changed") return `Changes ${row.changes?.join(", ")}`;
  return "";
}

function Spacer({ height }: { height: number }) {
  if (height <= 0) return null;
  return (
    <tr data-spacer="">
      <td colSpan={4} style={{ height, padding: 0 }} />
    </tr>
  );
}

/**
 * The rows as a table, virtual within its own scroll box (a dialog scrolls itself, not the window, so not
 * `useWindowList`): only the rows near the visible part are mounted; spacer rows keep the height.
 */
function PreviewRows({ rows, numberLabel }: { rows: ImportRow[]; numberLabel: string }) {
  const box = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => box.current,
    estimateSize: () => 37,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const offset = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  return (
    <div ref={box} className="max-h-[45svh] overflow-auto rounded-md border" data-testid="import-preview-rows">
      <table className="w-full text-sm" aria-label="Import preview" aria-rowcount={rows.length + 1}>
        <thead className="sticky top-0 z-10 bg-muted">
          <tr className="border-b">
            {["Line", numberLabel, "Verdict", "Details"].map((h) => (
              <th key={h} scope="col" className="px-3 py-2 text-left font-medium text-muted-foreground">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <Spacer height={offset} />
          {items.map((item) => {
            const row = rows[item.index] as ImportRow;
            return (
              <tr
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                data-verdict={row.verdict}
                aria-rowindex={item.index + 2}
                className="border-b align-top last:border-b-0"
              >
                <td className="px-3 py-2 text-muted-foreground tabular-nums">{row.line}</td>
                <td className="px-3 py-2 font-mono">{row.extension || "—"}</td>
                <td className="px-3 py-2">
                  <Badge variant={VARIANT[row.verdict]}>{row.verdict}</Badge>
                </td>
                <td
                  className={
                    row.verdict === "invalid" ? "px-3 py-2 text-destructive" : "px-3 py-2 text-muted-foreground"
                  }
                >
                  {detailOf(row)}
                </td>
              </tr>
            );
          })}
          <Spacer height={after} />
        </tbody>
      </table>
    </div>
  );
}

export function ImportCsvDialog({ kind }: { kind: BulkCsvKind }) {
  const words = WORDS[kind];
  const inputId = useId();
  const [open, setOpen] = useState(false);
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const preview = useImportPreview(kind, { onError: (err) => setProblem(errorText(err)) });
  const apply = useApplyImport(kind, {
    onSuccess: (result) => {
      toast({ title: `Imported ${words.what}`, description: countsText(result) });
      reset(false);
    },
    // Refused (e.g. the stored data changed since the preview): show why, and the rows as they are now.
    onError: (err) => {
      setProblem(errorText(err));
      if (file) preview.mutate(file.text);
    },
  });

  function reset(stayOpen: boolean) {
    setFile(null);
    setProblem(null);
    preview.reset();
    apply.reset();
    setOpen(stayOpen);
  }

  async function choose(chosen: File | undefined) {
    setProblem(null);
    preview.reset();
    if (!chosen) return setFile(null);
    if (chosen.size > BULK_CSV_MAX_BYTES) {
      setFile(null);
      return setProblem(`${chosen.name} is larger than 5 MB: split it into smaller files.`);
    }
    const text = await chosen.text();
    setFile({ name: chosen.name, text });
    preview.mutate(text);
  }

  const result = preview.data;
  const toImport = result ? result.counts.new + result.counts.changed : 0;
  const blocked = !result || result.counts.invalid > 0 || toImport === 0;

  return (
    <Dialog open={open} onOpenChange={(next) => (next ? setOpen(true) : reset(false))}>
      <DialogTrigger asChild>
        <Button variant="outline">
          <Upload aria-hidden />
          Import CSV
        </Button>
      </DialogTrigger>
      <DialogContent className="sm:max-w-3xl">
        <DialogHeader>
          <DialogTitle>{words.title}</DialogTitle>
          <DialogDescription>
            A CSV in FreePBX's Bulk Handler format ({words.freepbx}), or one exported here. Rows are matched by{" "}
            {words.number.toLowerCase()}; nothing is saved until you confirm.
          </DialogDescription>
        </DialogHeader>

        <div className="grid gap-2">
          <label htmlFor={inputId} className="font-medium text-sm">
            CSV file
          </label>
          <input
            id={inputId}
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => void choose(e.target.files?.[0])}
            className="text-sm file:mr-3 file:rounded-md file:border file:bg-background file:px-3 file:py-1.5 file:font-medium file:text-sm"
          />
        </div>

        {preview.isPending && (
          <p role="status" className="flex items-center gap-2 text-muted-foreground text-sm">
            <LoaderCircle className="size-4 animate-spin" aria-hidden />
            Reading {file?.name}…
          </p>
        )}
        {problem && (
          <p role="alert" className="text-destructive text-sm">
            {problem}
          </p>
        )}

        {result && (
          <div className="grid gap-3">
            <ul aria-label="Rows per verdict" className="flex flex-wrap gap-2">
              {VERDICTS.map((v) => (
                <li key={v.verdict}>
                  <Badge variant={v.variant} data-testid={`count-${v.verdict}`}>
                    {v.label}: {result.counts[v.verdict]}
                  </Badge>
                </li>
              ))}
            </ul>
            {result.notes.map((note) => (
              <p key={note} className="text-muted-foreground text-xs">
                {note}
              </p>
            ))}
            {result.rows.length > 0 ? (
              <PreviewRows rows={result.rows} numberLabel={words.number} />
            ) : (
              <p className="text-muted-foreground text-sm">The file has a header but no rows.</p>
            )}
            {result.counts.invalid > 0 && (
              <p className="text-destructive text-sm">
                Fix the {result.counts.invalid} invalid row{result.counts.invalid === 1 ? "" : "s"} in the file and
                choose it again: an import saves every row or none.
              </p>
            )}
          </div>
        )}

        <DialogFooter>
          <Button variant="outline" onClick={() => reset(false)}>
            Cancel
          </Button>
          <Button
            disabled={blocked || apply.isPending || preview.isPending}
            onClick={() => file && apply.mutate(file.text)}
          >
            {apply.isPending ? <LoaderCircle className="animate-spin" aria-hidden /> : <FileUp aria-hidden />}
            {result && toImport === 0 && result.counts.invalid === 0
              ? "Nothing to import"
              : `Import ${toImport} row${toImport === 1 ? "" : "s"}`}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

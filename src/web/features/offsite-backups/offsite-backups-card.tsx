/**
 * Settings → Off-site backups (ADR 0064): the encryption key (made once and shown once, to copy or download; its
 * id afterwards), the targets with their last copy and restore drill, and for each Test, Upload now, Drill, Edit
 * and Delete; then the copies sent lately.
 */
import { useQuery } from "@tanstack/react-query";
import {
  Check,
  CloudUpload,
  Copy,
  Download,
  FlaskConical,
  KeyRound,
  LoaderCircle,
  Pencil,
  PlugZap,
  Plus,
  Trash2,
} from "lucide-react";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import {
  BACKUP_TARGET_KIND_LABELS,
  type BackupTarget,
  type BackupTargetTestResult,
  type BackupUpload,
  type CreatedOffsiteKey,
  offsiteKeyFile,
} from "../../../shared/offsite-backups";
import {
  backupTargetsQuery,
  backupUploadsQuery,
  offsiteKeyQuery,
  useCreateOffsiteKey,
  useDeleteBackupTarget,
  useDrill,
  useTestBackupTarget,
  useUploadNow,
} from "./api";
import { ageText, HEALTH_TEXT, sizeText, targetHealth } from "./health";
import { TargetDialog } from "./target-dialog";

/** Saves the key file through the browser (made here: the key is only in this page's memory). */
function downloadKey(k: CreatedOffsiteKey) {
  const file = offsiteKeyFile(k);
  const url = URL.createObjectURL(new Blob([file.text], { type: "text/plain" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = file.name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The key, shown once: copy it or download its file, then say it is stored. */
function NewKey({ made, onDone }: { made: CreatedOffsiteKey; onDone: () => void }) {
  const [copied, flash] = useCopiedFlag();
  return (
    <div className="grid gap-2 rounded-md border border-warning/50 bg-warning/10 p-3" role="status">
      <p className="font-medium text-sm">
        Keep this key somewhere other than this server (a password manager, a printed copy): it is not shown again, and
        only it decrypts the copies made with it. Keep this server's secret.key (in its data directory) with it: the
        stored credentials in a copy open only with that file.
      </p>
      <div className="flex items-center gap-2">
        <Input readOnly aria-label="Off-site key" value={made.key} className="min-w-0 flex-1 font-mono text-sm" />
        <Button
          type="button"
          variant="outline"
          size="icon"
          className="size-8"
          aria-label="Copy key"
          onClick={() =>
            copyText(made.key).then(flash, (err: Error) =>
              toast({ variant: "destructive", title: "Copy failed", description: err.message }),
            )
          }
        >
          {copied ? <Check /> : <Copy />}
        </Button>
      </div>
      <div className="flex flex-wrap justify-end gap-2">
        <Button type="button" variant="outline" size="sm" onClick={() => downloadKey(made)}>
          <Download />
          Download key file
        </Button>
        <Button type="button" size="sm" onClick={onDone}>
          I have stored it
        </Button>
      </div>
    </div>
  );
}

function KeySection() {
  const view = useQuery(offsiteKeyQuery());
  const [made, setMade] = useState<CreatedOffsiteKey | null>(null);
  const create = useCreateOffsiteKey({
    onSuccess: (k) => setMade(k),
    onError: (err) => toast({ variant: "destructive", title: "Failed to make the key", description: errorText(err) }),
  });
  const v = view.data;
  return (
    <section aria-label="Encryption key" className="grid gap-2">
      {view.isError && <FormError message={`Could not load the key: ${errorText(view.error)}`} />}
      {made && <NewKey made={made} onDone={() => setMade(null)} />}
      {v && !made && (
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
          <KeyRound className="size-4 text-muted-foreground" aria-hidden />
          {v.keyId ? (
            <span>
              Copies are encrypted with key <code className="font-mono">{v.keyId}</code>
              {v.createdAt && <span className="text-muted-foreground"> (made {formatDateTime(v.createdAt)})</span>}
            </span>
          ) : (
            <span>No encryption key yet: make it before the first copy leaves this server.</span>
          )}
          <Button
            type="button"
            variant={v.keyId ? "outline" : "default"}
            size="sm"
            className="ml-auto"
            disabled={create.isPending}
            onClick={() =>
              v.keyId
                ? afterConfirm(
                    "Make a new key for new copies? Copies already made still need the current key until the retention replaces them.",
                    () => create.mutate({ rotate: true }),
                  )
                : create.mutate({ rotate: false })
            }
          >
            {create.isPending && <LoaderCircle className="animate-spin" />}
            {v.keyId ? "Rotate key" : "Make the key"}
          </Button>
        </div>
      )}
      {v?.previous.map((p) => (
        <p key={p.keyId} className="text-muted-foreground text-xs">
          {p.copies} cop{p.copies === 1 ? "y" : "ies"} at the targets still need the earlier key{" "}
          <code className="font-mono">{p.keyId}</code> (replaced {formatDateTime(p.retiredAt)}): keep it until the
          retention has replaced them.
        </p>
      ))}
    </section>
  );
}

function UploadLine({ u, now }: { u: BackupUpload; now: number }) {
  const state =
    u.state === "running" ? (
      <span>sending{u.bytes ? ` (${sizeText(u.bytes)})` : ""}…</span>
    ) : u.state === "failed" ? (
      <span className="text-destructive">failed: {u.error}</span>
    ) : (
      <span>
        {u.state === "deleted" ? "sent, since deleted by the retention" : "sent"} ({sizeText(u.bytes)})
      </span>
    );
  return (
    <span className="text-muted-foreground text-xs">
      Last upload {ageText(u.startedAt, now)} ({u.source === "pbx" ? "PBX backup" : "console database"}): {state}
    </span>
  );
}

function TargetItem({
  t,
  now,
  onEdit,
  testResult,
  actions,
}: {
  t: BackupTarget;
  now: number;
  onEdit: () => void;
  testResult: BackupTargetTestResult | undefined;
  actions: {
    test: ReturnType<typeof useTestBackupTarget>;
    upload: ReturnType<typeof useUploadNow>;
    drill: ReturnType<typeof useDrill>;
    remove: ReturnType<typeof useDeleteBackupTarget>;
  };
}) {
  const health = targetHealth(t, now);
  const drill = t.lastDrill;
  return (
    <li className="grid gap-2 rounded-md border p-3 text-sm" aria-label={t.name}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-medium">{t.name}</span>
        <Badge variant="outline">{BACKUP_TARGET_KIND_LABELS[t.kind]}</Badge>
        {!t.enabled && <Badge variant="secondary">Disabled</Badge>}
        <Badge variant={health === "ok" ? "success" : health === "never" ? "secondary" : "warning"}>
          {HEALTH_TEXT[health]}
        </Badge>
        {t.busy && (
          <Badge variant="secondary">
            <LoaderCircle className="animate-spin" />
            {t.busy === "upload" ? "Uploading" : "Drilling"}
          </Badge>
        )}
        <div className="ml-auto flex flex-wrap gap-2">
          <Button
            type="button"
            variant="outline"
            size="sm"
            disabled={runningFor(actions.test, t.id)}
            onClick={() => actions.test.mutate(t.id)}
            aria-label={`Test ${t.name}`}
          >
            {runningFor(actions.test, t.id) ? <LoaderCircle className="animate-spin" /> : <PlugZap />}
            Test
          </Button>
          <Button
            type="button"
            variant="outline"
            size="sm"
            disabled={t.busy !== null || runningFor(actions.upload, t.id)}
            onClick={() => actions.upload.mutate(t.id)}
            aria-label={`Upload now to ${t.name}`}
          >
            <CloudUpload />
            Upload now
          </Button>
          <Button
            type="button"
            variant="outline"
            size="sm"
            disabled={t.busy !== null || !t.lastSuccessAt || runningFor(actions.drill, t.id)}
            onClick={() => actions.drill.mutate(t.id)}
            aria-label={`Restore drill of ${t.name}`}
          >
            <FlaskConical />
            Drill
          </Button>
          <Button type="button" variant="outline" size="sm" onClick={onEdit} aria-label={`Edit ${t.name}`}>
            <Pencil />
            Edit
          </Button>
          <Button
            type="button"
            variant="outline"
            size="sm"
            className="text-destructive hover:text-destructive"
            disabled={t.busy !== null || runningFor(actions.remove, t.id)}
            onClick={() =>
              afterConfirm(
                `Remove the target "${t.name}"? The copies already there stay; the console stops sending and deleting them.`,
                () => actions.remove.mutate(t.id),
              )
            }
            aria-label={`Remove ${t.name}`}
          >
            <Trash2 />
            Remove
          </Button>
        </div>
      </div>
      <span className="break-all text-muted-foreground text-xs">
        {t.where} · keeps {t.keep} of each{t.includePbx ? " · PBX backups too" : ""}
      </span>
      {t.lastUpload ? (
        <UploadLine u={t.lastUpload} now={now} />
      ) : (
        <span className="text-muted-foreground text-xs">Nothing sent yet</span>
      )}
      {t.lastSuccessAt && (
        <span className="text-muted-foreground text-xs">
          Last good copy of the database: {ageText(t.lastSuccessAt, now)}
        </span>
      )}
      {drill && (
        <span className="text-xs" role="status" aria-label={`Last drill of ${t.name}`}>
          <span className={drill.ok ? "text-success" : "text-destructive"}>
            Restore drill {ageText(drill.at, now)} {drill.ok ? "passed" : "failed"}:
          </span>{" "}
          <span className="text-muted-foreground">{drill.message}</span>
          {!drill.ok && drill.lastPassedAt && (
            <span className="text-muted-foreground"> (last passed {ageText(drill.lastPassedAt, now)})</span>
          )}
        </span>
      )}
      {testResult && (
        <p role="status" className={testResult.ok ? "text-success text-xs" : "text-destructive text-xs"}>
          {testResult.ok ? "Connection works: " : "Connection failed: "}
          {testResult.message}
        </p>
      )}
    </li>
  );
}

function RecentCopies({ now }: { now: number }) {
  const uploads = useQuery(backupUploadsQuery());
  const list = uploads.data?.slice(0, 10) ?? [];
  if (!list.length) return null;
  return (
    <section aria-label="Recent copies" className="grid gap-1">
      <h3 className="font-medium text-sm">Recent copies</h3>
      <ul className="grid gap-1 text-xs">
        {list.map((u) => (
          <li key={u.id} className="flex flex-wrap gap-x-2 text-muted-foreground">
            <span className="font-mono text-foreground">{u.name.split("/").at(-1)}</span>
            <span>to {u.targetName}</span>
            <span>{ageText(u.startedAt, now)}</span>
            <span className={u.state === "failed" ? "text-destructive" : undefined}>
              {u.state === "ok" ? sizeText(u.bytes) : u.state}
              {u.error ? `: ${u.error}` : ""}
            </span>
            {u.keyId && <span>key {u.keyId}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

type Editing = { target: BackupTarget | null } | null;

export function OffsiteBackupsCard() {
  const targets = useQuery(backupTargetsQuery());
  const [editing, setEditing] = useState<Editing>(null);
  const [results, setResults] = useState<Record<number, BackupTargetTestResult>>({});
  const now = Date.now();
  const test = useTestBackupTarget({
    onSuccess: (result, id) => setResults((r) => ({ ...r, [id]: result })),
    onError: (err, id) => setResults((r) => ({ ...r, [id]: { ok: false, message: errorText(err) } })),
  });
  const upload = useUploadNow({
    onSuccess: () => toast({ title: "Upload queued", description: "The copy's progress shows on the target." }),
    onError: (err) => toast({ variant: "destructive", title: "Upload not started", description: errorText(err) }),
  });
  const drill = useDrill({
    onSuccess: () => toast({ title: "Restore drill queued", description: "Its result shows on the target." }),
    onError: (err) => toast({ variant: "destructive", title: "Drill not started", description: errorText(err) }),
  });
  const remove = useDeleteBackupTarget(deleteToasts("Backup target removed", "Failed to remove the backup target"));

  return (
    <Card className="gap-4" role="region" aria-label="Off-site backups">
      <CardHeader className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle className="flex items-center gap-2">
            <CloudUpload className="size-4 text-muted-foreground" aria-hidden />
            Off-site backups
          </CardTitle>
          <CardDescription>
            Each daily backup (and each deployment's PBX backup) is encrypted with your key and copied to an S3 bucket
            or an SFTP server, keeping the newest copies there.
          </CardDescription>
        </div>
        <Button type="button" onClick={() => setEditing({ target: null })}>
          <Plus />
          Add Target
        </Button>
      </CardHeader>
      <CardContent className="grid gap-4">
        <KeySection />
        {targets.isError && <FormError message={`Could not load the targets: ${errorText(targets.error)}`} />}
        {targets.data?.length ? (
          <ul className="grid gap-2" aria-label="Backup targets">
            {targets.data.map((t) => (
              <TargetItem
                key={t.id}
                t={t}
                now={now}
                onEdit={() => setEditing({ target: t })}
                testResult={results[t.id]}
                actions={{ test, upload, drill, remove }}
              />
            ))}
          </ul>
        ) : targets.data ? (
          <p className="text-muted-foreground text-sm">No off-site target yet: backups stay on this server.</p>
        ) : null}
        <RecentCopies now={now} />
      </CardContent>
      {editing && <TargetDialog editing={editing.target} onClose={() => setEditing(null)} />}
    </Card>
  );
}

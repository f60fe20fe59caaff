/**
 * A mailbox's greetings (unavailable, busy, the recorded name, the temporary one): whether the PBX has each, a
 * player, and for operators Upload (WAV or MP3, converted on the PBX to what Asterisk plays) and Delete.
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, Trash2, Upload } from "lucide-react";
import { useRef } from "react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { deleteToasts } from "@/lib/mutations";
import {
  GREETING_ACCEPT,
  GREETING_LABELS,
  GREETING_MAX_BYTES,
  type VoicemailGreeting,
} from "../../../shared/voicemail";
import { greetingAudioUrl, useDeleteGreeting, useUploadGreeting, voicemailGreetingsQuery } from "./api";
import { ConfirmVoicemailDelete } from "./confirm";

const HINT: Record<VoicemailGreeting["kind"], string> = {
  unavail: "Played when nobody answers",
  busy: "Played when the extension is busy",
  greet: "The mailbox's name, said in place of its number",
  temp: "Played instead of the others while it exists",
};

function GreetingRow({
  mailbox,
  greeting,
  uploading,
  deleting,
  onUpload,
  onDelete,
}: {
  mailbox: string;
  greeting: VoicemailGreeting;
  uploading: boolean;
  deleting: boolean;
  onUpload: (file: File) => void;
  onDelete: () => Promise<unknown>;
}) {
  const input = useRef<HTMLInputElement>(null);
  const label = `${GREETING_LABELS[greeting.kind]} greeting`;
  return (
    <li
      className="grid gap-2 border-b px-3 py-3 last:border-b-0 md:grid-cols-[minmax(0,1fr)_auto] md:items-center"
      data-testid="voicemail-greeting"
      data-kind={greeting.kind}
    >
      <div className="grid min-w-0 gap-1">
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <span className="font-medium">{label}</span>
          {greeting.present ? (
            <Badge variant="secondary">
              {greeting.durationS !== null ? `${greeting.durationS.toFixed(1)} s` : "On the PBX"}
            </Badge>
          ) : (
            <Badge variant="outline">Not recorded</Badge>
          )}
        </p>
        <p className="text-muted-foreground text-xs">{HINT[greeting.kind]}</p>
        {greeting.present && (
          // biome-ignore lint/a11y/useMediaCaption: a recorded greeting has no caption track to offer
          <audio
            controls
            preload="none"
            src={greetingAudioUrl(mailbox, greeting.kind)}
            aria-label={`Play ${label}`}
            className="h-10 w-full min-w-0 md:w-96"
          />
        )}
      </div>
      <Can minRole="operator">
        <div className="flex flex-wrap items-center gap-2 md:justify-end">
          <input
            ref={input}
            type="file"
            accept={GREETING_ACCEPT}
            className="sr-only"
            tabIndex={-1}
            aria-hidden
            data-testid={`greeting-file-${greeting.kind}`}
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = "";
              if (!file) return;
              if (file.size > GREETING_MAX_BYTES) {
                toast({
                  variant: "destructive",
                  title: "Failed to upload the greeting.",
                  description: "The file is larger than 20 MB",
                });
                return;
              }
              onUpload(file);
            }}
          />
          <Button
            type="button"
            variant="outline"
            size="sm"
            disabled={uploading}
            onClick={() => input.current?.click()}
            aria-label={`${greeting.present ? "Replace" : "Upload"} ${label}`}
          >
            {uploading ? <LoaderCircle className="animate-spin" /> : <Upload aria-hidden />}
            {greeting.present ? "Replace" : "Upload"}
          </Button>
          {greeting.present && (
            <ConfirmVoicemailDelete
              title={`Delete the ${label.toLowerCase()}?`}
              description="It is removed from the PBX at once; callers then hear Asterisk's standard prompt."
              onDelete={onDelete}
            >
              {(ask) => (
                <Button
                  type="button"
                  variant="outline"
                  size="sm"
                  disabled={deleting}
                  onClick={ask}
                  aria-label={`Delete ${label}`}
                >
                  <Trash2 aria-hidden />
                  Delete
                </Button>
              )}
            </ConfirmVoicemailDelete>
          )}
        </div>
      </Can>
    </li>
  );
}

export function Greetings({ mailbox }: { mailbox: string }) {
  const greetings = useQuery(voicemailGreetingsQuery(mailbox));
  const upload = useUploadGreeting({
    onSuccess: (g) => toast({ title: `${GREETING_LABELS[g.kind]} greeting stored on the PBX` }),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to upload the greeting.", description: errorText(err) }),
  });
  const del = useDeleteGreeting(deleteToasts("Greeting deleted", "Failed to delete the greeting."));
  if (greetings.isPending) return <p className="text-muted-foreground text-sm">Loading the greetings…</p>;
  if (greetings.isError && !greetings.data)
    return (
      <p className="text-muted-foreground text-sm" data-testid="greetings-error">
        Could not load the greetings: {errorText(greetings.error)}
      </p>
    );
  return (
    <ul aria-label="Greetings" className="rounded-md border">
      {greetings.data.items.map((g) => (
        <GreetingRow
          key={g.kind}
          mailbox={mailbox}
          greeting={g}
          uploading={upload.isPending && upload.variables?.kind === g.kind}
          deleting={del.isPending && del.variables?.kind === g.kind}
          onUpload={(file) => upload.mutate({ mailbox, kind: g.kind, file })}
          onDelete={() => del.mutateAsync({ mailbox, kind: g.kind })}
        />
      ))}
    </ul>
  );
}

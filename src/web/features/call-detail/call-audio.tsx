/**
 * The call's recordings and the voicemail it left, each with a player (`preload="metadata"`: the browser
 * reads the header, then seeks with range requests) and a Download link. A viewer sees the players only
 * when an administrator allows viewers to listen; otherwise one sentence says who may.
 */
import { Download, FileAudio, Voicemail } from "lucide-react";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import type { CallRecording, CallVoicemail } from "../../../shared/calls";
import { formatDuration } from "../calls/format";
import { downloadUrl } from "./api";

export const AUDIO_FOR_OPERATORS = "Recordings and voicemail are for operators and administrators";

/** Whether the page may show players: known for operators and administrators, a setting for viewers. */
export type Listening = "allowed" | "not-allowed" | "unknown";

function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

function Player({ url, label, name }: { url: string; label: string; name: string }) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      {/* biome-ignore lint/a11y/useMediaCaption: call audio has no captions; the transcript (AI calls) is on the page. */}
      <audio controls preload="metadata" src={url} aria-label={label} className="h-10 w-full min-w-0 sm:w-96" />
      <Button asChild variant="outline" size="sm">
        <a href={downloadUrl(url)} download aria-label={`Download ${name}`}>
          <Download aria-hidden />
          Download
        </a>
      </Button>
    </div>
  );
}

function Entry({
  icon,
  title,
  meta,
  children,
}: {
  icon: ReactNode;
  title: string;
  meta: string;
  children?: ReactNode;
}) {
  return (
    <div className="grid min-w-0 gap-2">
      <p className="flex min-w-0 flex-wrap items-center gap-x-2 text-sm">
        {icon}
        <span className="min-w-0 break-all font-medium">{title}</span>
        <span className="text-muted-foreground">{meta}</span>
      </p>
      {children}
    </div>
  );
}

export function CallAudio({
  recordings,
  voicemail,
  listening,
}: {
  recordings: CallRecording[];
  voicemail: CallVoicemail | undefined;
  listening: Listening;
}) {
  const allowed = listening === "allowed";
  return (
    <div className="grid gap-4">
      {listening === "not-allowed" && (
        <p className="text-muted-foreground text-sm" data-testid="audio-not-allowed">
          {AUDIO_FOR_OPERATORS}
        </p>
      )}
      {recordings.map((r) => (
        <div key={r.url} data-testid="call-recording">
          <Entry
            icon={<FileAudio className="size-4 shrink-0 text-muted-foreground" aria-hidden />}
            title={r.file}
            meta={[r.durationS === null ? null : formatDuration(r.durationS), sizeText(r.bytes), r.format.toUpperCase()]
              .filter(Boolean)
              .join(" · ")}
          >
            {allowed && <Player url={r.url} label={`Recording ${r.file}`} name={r.file.split("/").pop() ?? r.file} />}
          </Entry>
        </div>
      ))}
      {voicemail && (
        <div data-testid="call-voicemail">
          <Entry
            icon={<Voicemail className="size-4 shrink-0 text-muted-foreground" aria-hidden />}
            title={`Voicemail for mailbox ${voicemail.mailbox}`}
            meta={[
              formatDuration(voicemail.durationS),
              voicemail.folder,
              voicemail.callerId && `from ${voicemail.callerId}`,
              new Date(voicemail.receivedAt).toLocaleString(),
            ]
              .filter(Boolean)
              .join(" · ")}
          >
            {allowed && (
              <Player
                url={voicemail.url}
                label={`Voicemail for mailbox ${voicemail.mailbox}`}
                name={`the voicemail for mailbox ${voicemail.mailbox}`}
              />
            )}
          </Entry>
        </div>
      )}
    </div>
  );
}

/**
 * Voicemail on the PBX: the mailboxes (the console's extensions with voicemail on), a mailbox's messages and
 * greetings, the audio URLs the players and Download links use, and the changes: move a message, delete it,
 * upload or delete a greeting. Every change comes back as `voicemail-updated` too (lib/query-keys.ts), so other
 * open consoles, and Asterisk's own changes (a message left), refetch these.
 */
import { queryOptions } from "@tanstack/react-query";
import { sendJson, uploadForm } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type {
  GreetingKind,
  VoicemailBoxes,
  VoicemailFolder,
  VoicemailGreeting,
  VoicemailGreetings,
  VoicemailMessage,
  VoicemailMessages,
} from "../../../shared/voicemail";

export { greetingAudioUrl, messageAudioUrl } from "../../../shared/voicemail";

export const voicemailBoxesQuery = () => queryOptions<VoicemailBoxes>({ queryKey: queryKeys.voicemail });
export const voicemailMessagesQuery = (mailbox: string) =>
  queryOptions<VoicemailMessages>({ queryKey: queryKeys.voicemailMessages(mailbox) });
export const voicemailGreetingsQuery = (mailbox: string) =>
  queryOptions<VoicemailGreetings>({ queryKey: queryKeys.voicemailGreetings(mailbox) });

/** The same audio as a download (the server answers `Content-Disposition: attachment`). */
export const downloadUrl = (url: string) => `${url}?download=1`;

const mailboxPath = (mailbox: string) => `/api/voicemail/${encodeURIComponent(mailbox)}`;

export interface MessageRef {
  mailbox: string;
  id: string;
}

/** Moves a message to another folder (Move to Old); the mailbox's lists refetch. */
export function useMoveMessage(ui: MutationUi<VoicemailMessage, MessageRef & { folder: VoicemailFolder }>) {
  return useApiMutation({
    mutationFn: ({ mailbox, id, folder }: MessageRef & { folder: VoicemailFolder }) =>
      sendJson<VoicemailMessage>("PATCH", `${mailboxPath(mailbox)}/messages/${encodeURIComponent(id)}`, { folder }),
    invalidates: [queryKeys.voicemail],
    refetchAfterFailure: true,
    ...ui,
  });
}

/** Deletes a message; a failure refetches too (a 404: it is gone already). */
export function useDeleteMessage(ui: MutationUi<VoicemailMessage, MessageRef>) {
  return useApiMutation({
    mutationFn: ({ mailbox, id }: MessageRef) =>
      sendJson<VoicemailMessage>("DELETE", `${mailboxPath(mailbox)}/messages/${encodeURIComponent(id)}`),
    invalidates: [queryKeys.voicemail],
    refetchAfterFailure: true,
    ...ui,
  });
}

export interface GreetingUpload {
  mailbox: string;
  kind: GreetingKind;
  file: File;
}

/** Uploads a greeting (WAV or MP3), converted on the PBX; it replaces the one there. */
export function useUploadGreeting(ui: MutationUi<VoicemailGreeting, GreetingUpload>) {
  return useApiMutation({
    mutationFn: ({ mailbox, kind, file }: GreetingUpload) => {
      const form = new FormData();
      form.append("file", file, file.name);
      return uploadForm<VoicemailGreeting>(`${mailboxPath(mailbox)}/greetings/${kind}`, form);
    },
    invalidates: [queryKeys.voicemail],
    ...ui,
  });
}

export function useDeleteGreeting(ui: MutationUi<unknown, { mailbox: string; kind: GreetingKind }>) {
  return useApiMutation({
    mutationFn: ({ mailbox, kind }: { mailbox: string; kind: GreetingKind }) =>
      sendJson<unknown>("DELETE", `${mailboxPath(mailbox)}/greetings/${kind}`),
    invalidates: [queryKeys.voicemail],
    refetchAfterFailure: true,
    ...ui,
  });
}

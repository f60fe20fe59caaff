import { GREETING_MAX_BYTES, voicemailAudioQuerySchema, voicemailMoveSchema } from "../../shared/voicemail";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { audioAudit, audioResponse } from "../transport/audio";
import { deleteGreeting, greetingAudio, listGreetings, uploadGreeting } from "../voicemail/greetings";
import { namedByPath } from "../voicemail/listen";
import { listMailboxes } from "../voicemail/mailboxes";
import { deleteMessage, listMessages, messageAudio, moveMessage } from "../voicemail/messages";

/** The form's boundaries beside the 20 MB file; a larger body is refused (413) while it is read. */
const UPLOAD_MAX_BODY = GREETING_MAX_BYTES + 1024 * 1024;

const folderOf = (answer: unknown) => (answer as { folder?: string } | undefined)?.folder;

/**
 * Voicemail of FreePBX's context `default` on the PBX, at once: messages through the manager interface, audio
 * and greetings over SSH. Every read needs the right to listen (viewers only when an administrator allows it).
 */
export const voicemailRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/voicemail",
    summary:
      "The console's extensions with voicemail on, each with whether the PBX has its mailbox and its new and old message counts (null without the manager interface, `reason` says why)",
    handler: async ({ app, user }) => json(await listMailboxes(app, user)),
  }),
  route({
    method: "GET",
    path: "/api/voicemail/:mailbox/messages",
    summary:
      "A mailbox's messages, newest first ({items: [{id, folder, callerId, receivedAt, durationS}]}), and each folder's count against the mailbox's limit; 404 for a mailbox the PBX does not have in context default",
    handler: async ({ app, user, params }) => json(await listMessages(app, user, params.mailbox)),
  }),
  route({
    method: "GET",
    path: "/api/voicemail/:mailbox/messages/:id/audio",
    summary:
      "A message's audio, streamed (Range: 206, a malformed or unsatisfiable range 416); ?download=1 to save it. Each play and download is audited",
    query: voicemailAudioQuerySchema,
    audit: { ...audioAudit("voicemail"), load: namedByPath },
    handler: async ({ app, user, req, params, query }) =>
      audioResponse(
        app.pbxFiles,
        req,
        await messageAudio(app, user, params.mailbox, params.id, query.download === "1"),
      ),
  }),
  route({
    method: "PATCH",
    path: "/api/voicemail/:mailbox/messages/:id",
    summary: "Move a message to another folder (e.g. Old); 409 when the PBX refuses (the folder full)",
    body: voicemailMoveSchema,
    publishes: ["voicemail-updated"],
    audit: {
      action: "voicemail.move",
      object: "voicemail",
      load: namedByPath,
      detail: (answer) => (folderOf(answer) ? `moved to ${folderOf(answer)}` : undefined),
    },
    handler: async ({ app, params, body }) => json(await moveMessage(app, params.mailbox, params.id, body)),
  }),
  route({
    method: "DELETE",
    path: "/api/voicemail/:mailbox/messages/:id",
    summary: "Delete a message (its files go from the PBX's spool)",
    publishes: ["voicemail-updated"],
    audit: {
      action: "voicemail.delete",
      object: "voicemail",
      load: namedByPath,
      detail: (answer) => (folderOf(answer) ? `deleted from ${folderOf(answer)}` : undefined),
    },
    handler: async ({ app, params }) => json(await deleteMessage(app, params.mailbox, params.id)),
  }),
  route({
    method: "GET",
    path: "/api/voicemail/:mailbox/greetings",
    summary:
      "A mailbox's greetings (unavail, busy, greet = name, temp): whether each is on the PBX, its size and length",
    handler: async ({ app, user, params }) => json(await listGreetings(app, user, params.mailbox)),
  }),
  route({
    method: "GET",
    path: "/api/voicemail/:mailbox/greetings/:kind/audio",
    summary: "A greeting's WAV, streamed (ranges as for messages); each play and download is audited",
    query: voicemailAudioQuerySchema,
    audit: { ...audioAudit("voicemail-greeting"), load: namedByPath },
    handler: async ({ app, user, req, params, query }) =>
      audioResponse(
        app.pbxFiles,
        req,
        await greetingAudio(app, user, params.mailbox, params.kind, query.download === "1"),
      ),
  }),
  route({
    method: "POST",
    path: "/api/voicemail/:mailbox/greetings/:kind",
    summary:
      "Upload a greeting (multipart/form-data: file, WAV or MP3 up to 20 MB), converted to 8 kHz mono 16-bit WAV and stored on the PBX at once as <mailbox>/<kind>.wav",
    bodyType: "multipart/form-data",
    rawBody: "A multipart form: `file` (WAV or MP3, at most 20 MB)",
    maxBody: UPLOAD_MAX_BODY,
    publishes: ["voicemail-updated"],
    audit: { action: "voicemail.greeting.upload", object: "voicemail-greeting", load: namedByPath, omitBody: true },
    handler: async ({ app, params, req }) => json(await uploadGreeting(app, params.mailbox, params.kind, req)),
  }),
  route({
    method: "DELETE",
    path: "/api/voicemail/:mailbox/greetings/:kind",
    summary: "Delete a greeting (every format of it on the PBX); 404 when there is none",
    publishes: ["voicemail-updated"],
    audit: { action: "voicemail.greeting.delete", object: "voicemail-greeting", load: namedByPath },
    handler: async ({ app, params }) => json(await deleteGreeting(app, params.mailbox, params.kind)),
  }),
];

import { RECORDING_MAX_BYTES, type Recording, recordingPatchSchema } from "../../shared/recordings";
import { type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import {
  createRecording,
  deleteDetail,
  deleteRecording,
  listRecordings,
  recordingAudio,
  updateRecording,
  uploadDetail,
} from "../pbx/recordings/recordings";

/** The form's text fields and boundaries beside the 20 MB file; a larger body is refused (413) while it is read. */
const UPLOAD_MAX_BODY = RECORDING_MAX_BYTES + 1024 * 1024;

/** The created recording, named in the audit trail with its state. */
const created = (answer: unknown) => {
  const r = answer as Recording | undefined;
  return r?.id === undefined ? undefined : { action: "recording.create", object: "recording", state: r };
};

/** System recordings on the PBX (FreePBX's Recordings module), read and changed over SSH at once. */
export const recordingRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/recordings",
    summary:
      "List the PBX's system recordings (FreePBX's Recordings module): name, description, files, formats on the PBX",
    handler: async ({ app }) => json(await listRecordings(app)),
  }),
  route({
    method: "POST",
    path: "/api/recordings",
    summary:
      "Upload a system recording (multipart/form-data: file, name, description): WAV or MP3 up to 20 MB, converted to 8 kHz mono 16-bit WAV and stored on the PBX at once as custom/<name>",
    bodyType: "multipart/form-data",
    rawBody: "A multipart form: `file` (WAV or MP3, at most 20 MB), `name` and `description`",
    maxBody: UPLOAD_MAX_BODY,
    publishes: ["recordings-updated"],
    audit: { action: "recording.create", object: "recording", ofAnswer: created, detail: uploadDetail },
    handler: async ({ app, req }) => json(await createRecording(app, req), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/recordings/:id",
    summary: "Rename a system recording or change its description (its sound files keep their names, as in FreePBX)",
    body: recordingPatchSchema,
    publishes: ["recordings-updated"],
    audit: { action: "recording.update", object: "recording" },
    handler: async ({ app, params, body }) => json(await updateRecording(app, parseId(params.id, "Recording"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/recordings/:id",
    summary:
      "Delete a system recording and its sound files; 409 naming the IVRs, announcements, ring groups or queues on the PBX that play it",
    publishes: ["recordings-updated"],
    audit: { action: "recording.delete", object: "recording", detail: deleteDetail },
    handler: async ({ app, params }) => json(await deleteRecording(app, parseId(params.id, "Recording"))),
  }),
  route({
    method: "GET",
    path: "/api/recordings/:id/audio",
    summary: "The recording's WAV (its first file, in the PBX's language if it has one), streamed for playback",
    handler: async ({ app, params }) => {
      const audio = await recordingAudio(app, parseId(params.id, "Recording"));
      // Streamed as the PBX sends it (chunked: Bun sends no Content-Length with a stream); the WAV header says its length.
      return new Response(audio.stream, {
        headers: {
          "Content-Type": "audio/wav",
          "Content-Disposition": `inline; filename="${audio.name.replace(/[^A-Za-z0-9_-]/g, "_")}.wav"`,
          "Cache-Control": "no-store",
        },
      });
    },
  }),
];

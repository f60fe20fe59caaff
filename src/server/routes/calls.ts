import { callDetail, callRecording } from "../calls/detail";
import { startRetentionJob } from "../calls/retention";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { audioAudit, audioResponse } from "../transport/audio";
import { ownerOf } from "./jobs";

/**
 * One call on one page and its recordings (after the live routes: `/api/calls/active` is never read as a
 * call id). Viewers see a call's detail; its audio only when an administrator allows listening.
 */
export const callRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/calls/:linkedid",
    summary:
      "One call: every CDR leg (rows sharing the linkedid), its channel events in order (CEL, else the legs; AMI for a call in progress), who answered, transfers, its recordings, the voicemail it left and the AI assistant's turns and tools, on one time axis; 404 for a call not in the records",
    handler: async ({ app, params }) => json(await callDetail(app, params.linkedid)),
  }),
  route({
    method: "GET",
    path: "/api/calls/:linkedid/recording",
    summary:
      "The call's recording (`?n=` its nth file, default the first) streamed from FreePBX's monitor directory: 206 for a Range, 416 for a bad one; `?download=1` to save it. Viewers only when allowed; each play and download is audited",
    audit: audioAudit("recording"),
    handler: async ({ app, req, url, params, user }) =>
      audioResponse(app.pbxFiles, req, await callRecording(app, url, params.linkedid, user)),
  }),
  route({
    method: "POST",
    path: "/api/recordings/retention/run",
    summary:
      "Delete the call recordings older than the retention set in Settings from the PBX's monitor directory now, as a job (202 `{jobId}`); 400 when no retention is set",
    minRole: "admin",
    publishes: ["job-updated"],
    audit: { action: "recordings.retention" },
    handler: (ctx) => json(startRetentionJob(ctx.app, ownerOf(ctx)), 202),
  }),
];

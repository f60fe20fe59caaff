import {
  backupTargetCreateSchema,
  backupTargetUpdateSchema,
  backupUploadsQuerySchema,
  offsiteDrillSchema,
  offsiteKeyCreateSchema,
} from "../../shared/offsite-backups";
import { type RouteDef, route, signedInUser, WHO_GETS_IN } from "../context";
import { json, noContent, parseId } from "../http";
import { queueDrill } from "../offsite/drill";
import { createOffsiteKey, offsiteKeyView } from "../offsite/key";
import { createTarget, deleteTarget, listTargets, targetForAudit, testTarget, updateTarget } from "../offsite/targets";
import { listUploads, queueUploadNow } from "../offsite/uploads";

const audit = (action: string) => ({
  action,
  object: "backup-target",
  load: (app: Parameters<typeof targetForAudit>[0], params: Record<string, string>) => targetForAudit(app, params.id),
});

/** Off-site backups (ADR 0064): administrators only, like the backup download. */
export const offsiteBackupRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/backups/targets",
    minRole: "admin",
    summary:
      "List the off-site backup targets (S3-compatible buckets, SFTP servers) with their last copy, last restore drill and whether one is under way; secrets are never returned",
    handler: ({ app }) => json(listTargets(app)),
  }),
  route({
    method: "POST",
    path: "/api/backups/targets",
    minRole: "admin",
    summary:
      "Add an off-site backup target: kind s3 (endpoint, region, bucket, folder, access key) or sftp (host, port, user, directory, password or private key, host key pinned on first contact)",
    body: backupTargetCreateSchema,
    publishes: ["offsite-backups-updated"],
    audit: audit("backup-target.create"),
    handler: async ({ app, body }) => json(await createTarget(app, body), 201),
  }),
  route({
    method: "PUT",
    path: "/api/backups/targets/:id",
    minRole: "admin",
    summary:
      "Change an off-site backup target (the kind cannot change; a secret left out is kept unless the target now points elsewhere; forgetHostKey unpins an SFTP server's key)",
    body: backupTargetUpdateSchema,
    publishes: ["offsite-backups-updated"],
    audit: audit("backup-target.update"),
    handler: async ({ app, params, body }) => json(await updateTarget(app, parseId(params.id, "Backup target"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/backups/targets/:id",
    minRole: "admin",
    summary: "Remove an off-site backup target and its upload history (the copies already there are left in place)",
    publishes: ["offsite-backups-updated"],
    audit: audit("backup-target.delete"),
    handler: ({ app, params }) => {
      deleteTarget(app, parseId(params.id, "Backup target"));
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/api/backups/targets/:id/test",
    minRole: "admin",
    summary:
      "Test an off-site backup target: connect, write and delete a small file (a failure is ok: false with the reason); the first contact pins an SFTP server's host key",
    publishes: ["offsite-backups-updated"],
    audit: { ...audit("backup-target.test"), detail: (a) => (a as { message?: string }).message },
    handler: async ({ app, params }) => json(await testTarget(app, parseId(params.id, "Backup target"))),
  }),
  route({
    method: "POST",
    path: "/api/backups/targets/:id/upload",
    minRole: "admin",
    summary:
      "Upload now: a fresh snapshot of the console's database, encrypted with the off-site key, queued for this target (202; the result is the target's last upload)",
    publishes: ["offsite-backups-updated"],
    audit: audit("backup-target.upload"),
    handler: ({ app, params, user }) =>
      json(queueUploadNow(app, parseId(params.id, "Backup target"), signedInUser(user).username), 202),
  }),
  route({
    method: "POST",
    path: "/api/backups/targets/:id/drill",
    minRole: "admin",
    summary:
      "Restore drill: fetch the newest (or the given) copy back, check its hash, decrypt it and check it can be restored, without touching the live database (202; the result is the target's last drill)",
    body: offsiteDrillSchema,
    publishes: ["offsite-backups-updated"],
    audit: audit("backup-target.drill"),
    handler: ({ app, params, body, user }) =>
      json(queueDrill(app, parseId(params.id, "Backup target"), body, signedInUser(user).username), 202),
  }),
  route({
    method: "GET",
    path: "/api/backups/uploads",
    minRole: "admin",
    summary: "The copies sent off-site (running, ok, failed, deleted by the retention), newest first",
    query: backupUploadsQuerySchema,
    handler: ({ app, query }) => json(listUploads(app, query)),
  }),
  route({
    method: "GET",
    path: "/api/backups/key",
    minRole: "admin",
    summary: "Which off-site key encrypts new copies (its id, never the key) and the earlier keys copies still need",
    handler: ({ app }) => json(offsiteKeyView(app)),
  }),
  route({
    method: "POST",
    path: "/api/backups/key",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary:
      "Make the off-site encryption key (rotate: true replaces the current one for new copies); the answer is the only time the key is shown",
    body: offsiteKeyCreateSchema,
    publishes: ["offsite-backups-updated"],
    audit: {
      action: "backup-key.create",
      load: (app) => offsiteKeyView(app),
      detail: (a) => `key ${(a as { keyId?: string }).keyId ?? "?"} made`,
    },
    handler: ({ app, body }) => json(createOffsiteKey(app, body), 201),
  }),
];

import { backupForDownload } from "../backup/snapshot";
import { type RouteDef, route } from "../context";
import { download } from "../http";

export const backupRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/backup",
    minRole: "admin",
    summary:
      "Download a consistent snapshot of the console database (SQLite; stored secrets stay sealed, the data key is not included)",
    audit: { action: "backup.download" },
    handler: ({ app }) => {
      const backup = backupForDownload(app);
      return download(backup.stream, { ...backup, contentType: "application/vnd.sqlite3" });
    },
  }),
];

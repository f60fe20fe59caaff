import { backupForDownload } from "../backup/snapshot";
import { type RouteDef, route } from "../context";
import { download } from "../http";

export const backupRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/backup",
    summary:
      "Download a consistent snapshot of the console database (SQLite; stored secrets stay sealed, the data key is not included)",
    // Administrators only: every user is an administrator today, so the default session check is it.
    // When roles come (issue 13, item 1), this route declares the admin role here and the transport enforces it.
    handler: ({ app }) => {
      const backup = backupForDownload(app);
      return download(backup.stream, { ...backup, contentType: "application/vnd.sqlite3" });
    },
  }),
];

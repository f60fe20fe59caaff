import { extensions } from "../../db/schema";
import { byNumber } from "../../shared/sort";
import { ServiceError } from "../clients/http";
import type { RouteDef } from "../context";
import { HttpError, json } from "../http";
import { clients } from "../integrations/outside";

/** Deliveries in flight at once, so 5,000 extensions neither crawl nor flood the receiver. */
const CONCURRENCY = 8;

/**
 * POST /api/dialer/push-all: every extension's web-dialer config as a signed
 * webhook (`extension.updated`). SIP secrets are not sent: the dialer fetches
 * them through its own provisioning (services.md §6). Returns {count}.
 */
export const dialerRoutes: RouteDef[] = [
  {
    method: "POST",
    path: "/api/dialer/push-all",
    handler: async ({ app }) => {
      const dialer = clients.dialer(app);
      const rows = app.db
        .select()
        .from(extensions)
        .all()
        .sort((a, b) => byNumber(a.extension, b.extension));
      const sip = app.config.sip;
      let next = 0;
      let count = 0;
      const worker = async () => {
        while (next < rows.length) {
          const row = rows[next++] as (typeof rows)[number];
          await dialer.send({
            event: "extension.updated",
            extension: row.extension,
            display_name: row.name,
            email: row.email,
            sip_user: row.extension,
            sip_server: sip.host,
            sip_port: sip.port,
            transport: sip.transport,
            voicemail: row.voicemail,
          });
          count++;
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, worker));
      } catch (err) {
        if (err instanceof ServiceError) throw new HttpError(502, `${err.message} (after ${count} of ${rows.length})`);
        throw err;
      }
      return json({ count });
    },
  },
];

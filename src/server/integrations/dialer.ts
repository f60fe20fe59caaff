/**
 * The web-dialer push: every extension's dialer config sent to the outside web
 * dialer as a signed webhook (`extension.updated`). SIP secrets are never sent:
 * the dialer fetches them through its own provisioning. Nothing is stored here.
 *
 * "Not configured" is a quiet state: `dialerStatus` tells the web app, which then
 * skips its background push after each extension write and shows a hint instead of a failure. An explicit
 * push, and a configured dialer that fails, still report their failure.
 */
import { extensions } from "../../db/schema";
import type { DialerStatus } from "../../shared/credentials";
import { byNumber } from "../../shared/sort";
import { sipSettings } from "../accounts/settings";
import { deadline } from "../clients/http";
import type { Deps } from "../core/deps";
import { OutsideServiceFailed } from "../core/errors";
import { type ClientDeps, clients } from "./outside";

/** Deliveries in flight at once, so 5,000 extensions neither crawl nor flood the receiver. */
const CONCURRENCY = 8;
/** The overall deadline of one push to every extension. */
export const PUSH_DEADLINE_MS = 120_000;

/** Whether the web dialer push is configured (API Settings or the environment); never a secret. */
export function dialerStatus(deps: Pick<Deps, "credentials">): DialerStatus {
  return { configured: deps.credentials.isConfigured("dialer") };
}

/** Pushes every extension in number order; a failure says how many went out before it. */
export async function pushAllExtensions(
  deps: ClientDeps & Pick<Deps, "db">,
  deadlineMs = PUSH_DEADLINE_MS,
): Promise<{ count: number }> {
  const dialer = clients.dialer(deps, undefined, deadline("Pushing every extension to the web dialer", deadlineMs));
  const rows = deps.db
    .select()
    .from(extensions)
    .all()
    .sort((a, b) => byNumber(a.extension, b.extension));
  const sip = sipSettings(deps.db, deps.config).effective;
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
    if (err instanceof OutsideServiceFailed) {
      throw new OutsideServiceFailed(err.service, `${err.message} (after ${count} of ${rows.length})`, err.status);
    }
    throw err;
  }
  return { count };
}

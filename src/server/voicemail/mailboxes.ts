/**
 * The mailboxes the Voicemail screen offers: the console's extensions with voicemail on, each with what
 * app_voicemail says of it (one `VoicemailUsersList` for all: whether it has the mailbox in `default`, and its
 * new and old counts). Without the manager interface the list still shows, its counts unknown and why.
 */
import type { SessionUser } from "../../shared/auth";
import { VOICEMAIL_CONTEXT, type VoicemailBoxes } from "../../shared/voicemail";
import { assertMayListen } from "../accounts/settings";
import { ServiceError } from "../clients/http";
import { Unavailable } from "../core/errors";
import { listExtensions } from "../inventory/extensions";
import type { VoicemailDeps } from "./box";

const count = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : null);

/** GET /api/voicemail */
export async function listMailboxes(deps: VoicemailDeps, user: SessionUser | null): Promise<VoicemailBoxes> {
  assertMayListen(deps.db, user);
  const boxes = listExtensions(deps)
    .filter((e) => e.voicemail)
    .map((e) => ({ mailbox: e.extension, name: e.name }));
  let loaded: Map<string, Record<string, string>> | null = null;
  let reason: string | null = null;
  try {
    const users = await deps.live.managerList("VoicemailUsersList", {});
    loaded = new Map(
      users
        .filter((u) => (u.event ?? "").toLowerCase() === "voicemailuserentry" && u.vmcontext === VOICEMAIL_CONTEXT)
        .map((u) => [u.voicemailbox ?? "", u]),
    );
  } catch (err) {
    // The picker still lists the mailboxes when the manager interface cannot say more (down, not answering).
    if (!(err instanceof Unavailable || err instanceof ServiceError)) throw err;
    reason = err.message;
  }
  return {
    reason,
    items: boxes.map((b) => {
      const entry = loaded?.get(b.mailbox);
      return {
        ...b,
        onPbx: loaded ? entry !== undefined : null,
        newMessages: entry ? count(entry.newmessagecount) : null,
        oldMessages: entry ? count(entry.oldmessagecount) : null,
      };
    }),
  };
}

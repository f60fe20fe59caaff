/**
 * A new voicemail mailbox's PIN, shown once (ADR 0050). The deployment that creates the mailbox line keeps
 * the PIN here, in memory, under a random handle; the job's result for that extension carries only the
 * handle. `POST /api/deploy/voicemail-pins` answers the PIN and forgets it. Nothing here is written to the
 * database, a log, an event or the audit trail: after it is shown, after `PIN_KEPT_MS` or after a restart
 * the PIN is only in voicemail.conf, where FreePBX shows and changes it (the extension's Voicemail tab).
 * Kept per database, like the undo of a delete (core/undo.ts), at most `MAX_PINS_KEPT` at a time.
 */
import { type NewMailboxPin, VOICEMAIL_PINS_MAX, type VoicemailPinsAnswer } from "../../../shared/pbx";
import type { Deps } from "../../core/deps";
import { Gone } from "../../core/errors";
import { keptPerDatabase, newHandle } from "../../core/kept";

/** How long a new PIN waits to be shown: a deployment's results are read when it ends, not days later. */
export const PIN_KEPT_MS = 60 * 60_000;
/** The most PINs kept at once; the oldest go first beyond it. */
export const MAX_PINS_KEPT = VOICEMAIL_PINS_MAX;

interface Kept {
  extension: string;
  context: string;
  pin: string;
  expiresAt: number;
}

const storeOf = keptPerDatabase<Kept>();

/** Keeps a new mailbox's PIN until it is shown once; answers the handle the deployment's result carries. */
export function keepNewPin(
  deps: Pick<Deps, "db" | "now">,
  mailbox: { extension: string; context: string; pin: string },
): NewMailboxPin {
  const now = deps.now();
  const store = storeOf(deps.db, now);
  const handle = newHandle();
  const expiresAt = now + PIN_KEPT_MS;
  store.set(handle, { ...mailbox, expiresAt });
  while (store.size > MAX_PINS_KEPT) store.delete(store.keys().next().value as string);
  return { handle, expiresAt: new Date(expiresAt).toISOString() };
}

/**
 * The PINs behind these handles, each answered once and then forgotten. `Gone` when none is kept any more
 * (already shown, expired, or the console restarted).
 */
export function takeNewPins(deps: Pick<Deps, "db" | "now">, handles: string[]): VoicemailPinsAnswer {
  const store = storeOf(deps.db, deps.now());
  const answer: VoicemailPinsAnswer = { pins: [], gone: [] };
  for (const handle of new Set(handles)) {
    const entry = store.get(handle);
    if (!entry) {
      answer.gone.push(handle);
      continue;
    }
    store.delete(handle);
    answer.pins.push({ handle, extension: entry.extension, context: entry.context, pin: entry.pin });
  }
  if (answer.pins.length === 0)
    throw new Gone(
      "The console no longer has these voicemail PINs (already shown, more than an hour old, or the console restarted): FreePBX shows and changes a PIN under the extension's Voicemail tab",
    );
  return answer;
}

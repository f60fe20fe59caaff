/**
 * Safe deletes (ADR 0037): what depends on an object before it is deleted, and the undo a delete answers with.
 */

/** The objects that can be deleted with a confirmation and restored with an undo. */
export const UNDO_KINDS = [
  "extension",
  "trunk",
  "inbound-route",
  "outbound-route",
  "ptt-group",
  "ring-group",
  "queue",
  "ivr",
  "announcement",
  "time-group",
  "time-condition",
  "ai-assistant",
  "ai-rule",
] as const;
export type UndoKind = (typeof UNDO_KINDS)[number];

/** One object that depends on the one about to be deleted. */
export interface Dependent {
  kind: UndoKind;
  id: number;
  /** How the list shows it: a group's or route's name, a route's description. */
  label: string;
}

/**
 * GET /api/<entity>/:id/dependents: what depends on the object. A dependent blocks its delete unless
 * `blockedBecause` is null (an extension's ring group membership or queue agent: it leaves the group or queue;
 * ADR 0056, 0057).
 */
export interface Dependents {
  dependents: Dependent[];
  /** What to change first (the message the delete would answer with, 409), or null when nothing blocks it. */
  blockedBecause: string | null;
}

/** A successful delete's answer: the token `POST /api/undo/:token` takes, valid for `expiresInMs`. */
export interface DeleteAnswer {
  undoToken: string;
  expiresInMs: number;
}

/** POST /api/undo/:token's answer: the kind and the restored object's API view. */
export interface RestoreAnswer {
  kind: UndoKind;
  object: { id: number };
}

/** How long a delete can be undone. The toast shows its Undo a little less long. */
export const UNDO_WINDOW_MS = 10_000;

/** How a sentence names an object of each kind ("while IVR Main sends calls to it"). */
export const KIND_WORDS: Record<UndoKind, string> = {
  extension: "extension",
  trunk: "trunk",
  "inbound-route": "inbound route",
  "outbound-route": "outbound route",
  "ptt-group": "PTT group",
  "ring-group": "ring group",
  queue: "queue",
  ivr: "IVR",
  announcement: "announcement",
  "time-group": "time group",
  "time-condition": "time condition",
  "ai-assistant": "AI assistant",
  "ai-rule": "AI routing rule",
};

/** The audit action of a restore: the delete's action with `restore` for `delete` (`ai.assistant.restore`). */
export const RESTORE_ACTION: Record<UndoKind, string> = {
  extension: "extension.restore",
  trunk: "trunk.restore",
  "inbound-route": "inbound-route.restore",
  "outbound-route": "outbound-route.restore",
  "ptt-group": "ptt-group.restore",
  "ring-group": "ring-group.restore",
  queue: "queue.restore",
  ivr: "ivr.restore",
  announcement: "announcement.restore",
  "time-group": "time-group.restore",
  "time-condition": "time-condition.restore",
  "ai-assistant": "ai.assistant.restore",
  "ai-rule": "ai.rule.restore",
};

/** The answer for an object nothing depends on. */
export const NO_DEPENDENTS: Dependents = { dependents: [], blockedBecause: null };

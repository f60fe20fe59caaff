import { RESTORE_ACTION, type RestoreAnswer, UNDO_KINDS } from "../../shared/safe-delete";
import { type RouteDef, route } from "../context";
import { undoDelete } from "../core/undo";
import { json } from "../http";

/** The restored object and its kind, for the audit record (`extension.restore`, …). */
function restoredOf(answer: unknown) {
  const a = answer as Partial<RestoreAnswer> | undefined;
  if (!a?.object || !a.kind || !UNDO_KINDS.includes(a.kind)) return undefined;
  return { action: RESTORE_ACTION[a.kind], object: a.kind, state: a.object };
}

export const undoRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/api/undo/:token",
    summary:
      "Undo a delete within its window: restores exactly what was deleted (410 once expired or its place was taken)",
    // The same role as the deletes it undoes (every one is an operator's).
    minRole: "operator",
    publishes: [
      "extensions-updated",
      "trunks-updated",
      "routes-updated",
      "ptt-groups-updated",
      "ring-groups-updated",
      "queues-updated",
      "ivrs-updated",
      "announcements-updated",
      "time-conditions-updated",
      "ai-assistants-updated",
      "ai-rules-updated",
    ],
    audit: { action: "undo.restore", ofAnswer: restoredOf },
    handler: ({ app, params }) => json(undoDelete(app, params.token ?? "")),
  }),
];

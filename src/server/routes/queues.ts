import { queuePatchSchema, queueSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import { createQueue, deleteQueue, dependentsOfQueue, listQueues, updateQueue } from "../inventory/queues";

export const queueRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/queues",
    summary: "List the queues in numeric order",
    etag: ["queues"],
    handler: ({ app }) => json(listQueues(app)),
  }),
  route({
    method: "POST",
    path: "/api/queues",
    summary:
      "Create a queue on a free number: strategy, agents (extensions, in ring order), max wait and the timeout destination",
    body: queueSchema,
    publishes: ["queues-updated"],
    audit: { action: "queue.create", object: "queue", load: loadById(listQueues) },
    handler: ({ app, body }) => json(createQueue(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/queues/:id",
    summary: "Edit a queue (fields left out keep their values; a new number must be free and unused as a destination)",
    body: queuePatchSchema,
    publishes: ["queues-updated"],
    audit: { action: "queue.update", object: "queue", load: loadById(listQueues) },
    handler: ({ app, params, body }) => json(updateQueue(app, parseId(params.id, "Queue"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/queues/:id",
    summary:
      "Delete a queue no inbound route, ring group or other queue sends calls to (409 naming them); answers an undo token",
    publishes: ["queues-updated"],
    audit: { action: "queue.delete", object: "queue", load: loadById(listQueues) },
    handler: ({ app, params }) => json(deleteQueue(app, parseId(params.id, "Queue"))),
  }),
  route({
    method: "GET",
    path: "/api/queues/:id/dependents",
    summary: "What sends calls to a queue (inbound routes, ring groups, other queues); any of them blocks the delete",
    handler: ({ app, params }) => json(dependentsOfQueue(app, parseId(params.id, "Queue"))),
  }),
];

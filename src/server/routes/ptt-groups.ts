import { eq, inArray } from "drizzle-orm";
import { extensions, pttGroups } from "../../db/schema";
import type { PttGroup } from "../../shared/inventory";
import { pttGroupSchema } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";
import type { RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";

const toGroup = (row: typeof pttGroups.$inferSelect): PttGroup => ({ ...row, createdAt: row.createdAt.toISOString() });

export const pttGroupRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/ptt-groups",
    handler: ({ app }) =>
      json(
        app.db
          .select()
          .from(pttGroups)
          .all()
          .sort((a, b) => byNumber(a.extension, b.extension))
          .map(toGroup),
      ),
  },
  {
    method: "POST",
    path: "/api/ptt-groups",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, pttGroupSchema);
      const members = [...new Set(input.members)].sort(byNumber);
      const known = new Set(
        app.db
          .select({ n: extensions.extension })
          .from(extensions)
          .where(inArray(extensions.extension, members))
          .all()
          .map((r) => r.n),
      );
      const unknown = members.filter((m) => !known.has(m));
      if (unknown.length) {
        throw new HttpError(400, `Not existing extension(s): ${unknown.join(", ")}`, {
          members: `Not existing extension(s): ${unknown.join(", ")}`,
        });
      }
      const group = app.db
        .select({ name: pttGroups.name })
        .from(pttGroups)
        .where(eq(pttGroups.extension, input.extension))
        .get();
      if (group) {
        const msg = `${input.extension} is already the number of PTT group ${group.name}`;
        throw new HttpError(409, msg, { extension: msg });
      }
      if (
        app.db.select({ id: extensions.id }).from(extensions).where(eq(extensions.extension, input.extension)).get()
      ) {
        const msg = `${input.extension} is already an extension`;
        throw new HttpError(409, msg, { extension: msg });
      }
      const row = app.db
        .insert(pttGroups)
        .values({ ...input, members })
        .returning()
        .get();
      app.hub.publish({ type: "ptt-groups-updated", data: { id: row.id, action: "created" } });
      return json(toGroup(row), 201);
    },
  },
  {
    method: "DELETE",
    path: "/api/ptt-groups/:id",
    handler: ({ app, params }) => {
      const id = parseId(params.id, "PTT group");
      const res = app.db.delete(pttGroups).where(eq(pttGroups.id, id)).returning({ id: pttGroups.id }).all();
      if (!res.length) throw new HttpError(404, "PTT group not found");
      app.hub.publish({ type: "ptt-groups-updated", data: { id, action: "deleted" } });
      return noContent();
    },
  },
];

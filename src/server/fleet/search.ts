/**
 * The fleet-wide search (ADR 0076): the text is sent to every member the hub last saw answering
 * (GET /api/fleet/self/search, with that member's token over its pinned connection), all at once under one
 * deadline, and the hits merged, each naming its console. A member that fails, or was not reachable, is
 * listed as not searched; it never fails the whole search.
 */
import {
  FLEET_SEARCH_KINDS,
  type FleetSearchAnswer,
  type FleetSearchHit,
  type FleetSearchItem,
} from "../../shared/fleet";
import { FleetMemberError, memberRequest } from "../clients/fleet-member";
import { deadline } from "../clients/http";
import type { Deps } from "../core/deps";
import { memberStates, memberTargets } from "./members";

export const FLEET_SEARCH_DEADLINE_MS = 5_000;

/** A hit as a member sent it, if it has the documented shape (a path on that console, not a link elsewhere). */
function cleanItem(v: unknown): FleetSearchItem | null {
  const o = v as Partial<FleetSearchItem> | null;
  if (typeof o !== "object" || o === null) return null;
  if (!(FLEET_SEARCH_KINDS as readonly unknown[]).includes(o.kind)) return null;
  if (typeof o.key !== "string" || typeof o.label !== "string" || typeof o.url !== "string") return null;
  if (!/^\/(?!\/)[A-Za-z0-9/_-]*$/.test(o.url)) return null;
  return {
    kind: o.kind as FleetSearchItem["kind"],
    key: o.key.slice(0, 100),
    label: o.label.slice(0, 200),
    url: o.url,
  };
}

export async function fleetSearch(
  deps: Pick<Deps, "db" | "box">,
  q: string,
  deadlineMs = FLEET_SEARCH_DEADLINE_MS,
): Promise<FleetSearchAnswer> {
  const states = memberStates(deps.db);
  const signal = deadline("The fleet search", deadlineMs);
  const items: FleetSearchHit[] = [];
  const notSearched: FleetSearchAnswer["notSearched"] = [];
  await Promise.all(
    memberTargets(deps).map(async (m) => {
      const state = states.get(m.id);
      if (state && !state.reachable) {
        notSearched.push({ memberId: m.id, memberName: m.name, reason: state.error ?? "Not reachable" });
        return;
      }
      try {
        const answer = await memberRequest(m, { path: `/api/fleet/self/search?q=${encodeURIComponent(q)}`, signal });
        const list = (answer.json as { items?: unknown } | undefined)?.items;
        if (!Array.isArray(list)) throw new FleetMemberError("answer", "The member's answer is not a search result");
        for (const raw of list.slice(0, 100)) {
          const item = cleanItem(raw);
          if (item) items.push({ ...item, memberId: m.id, memberName: m.name, href: `${m.url}${item.url}` });
        }
      } catch (err) {
        notSearched.push({
          memberId: m.id,
          memberName: m.name,
          reason: err instanceof FleetMemberError ? err.message : "The search failed",
        });
      }
    }),
  );
  items.sort((a, b) => a.memberName.localeCompare(b.memberName) || a.memberId - b.memberId);
  notSearched.sort((a, b) => a.memberName.localeCompare(b.memberName));
  return { items, notSearched };
}

/**
 * Call flows drawn as trees: from each inbound route, the object it sends calls to and, under it, where
 * calls go on from there and when (no answer, after the max wait…), down to where they end. The branches are
 * the routing graph's edges (`onwards`), so the tree shows every path the simulator can take (ADR 0058).
 */
import type { CallFlow, FlowNode } from "../../shared/routing";
import { type DestRef, destKey, type RoutingModel } from "./model";
import { inboundLabel, labelOf, onwards } from "./simulate";

/** Whether the model has the object a destination names; null for kinds it does not model. */
function exists(model: RoutingModel, d: DestRef): boolean | null {
  switch (d.kind) {
    case "extension":
      return model.extensions.has(d.target);
    case "voicemail":
      return model.extensions.get(d.target)?.voicemail ?? false;
    case "ring-group":
      return model.ringGroups.has(d.target);
    case "queue":
      return model.queues.has(d.target);
    case "page-group":
      return model.pageGroups.has(d.target);
    case "ivr":
      return model.ivrs.has(d.target);
    case "announcement":
      return model.announcements.has(d.target);
    case "hangup":
      return true;
    default:
      return null;
  }
}

/**
 * The flow from `d`: the node and its branches, each object of a loop drawn once. `above`: the objects above, each
 * with whether a caller's key was pressed since (then coming back to it is going back to a menu, not a loop).
 */
export function flowFrom(model: RoutingModel, d: DestRef, above: ReadonlyMap<string, boolean> = new Map()): FlowNode {
  const since = above.get(destKey(d));
  const node: FlowNode = {
    kind: d.kind,
    target: d.target,
    label: labelOf(model, d),
    missing: exists(model, d) === false,
    loop: since === false,
    ...(since === true ? { back: true as const } : {}),
    children: [],
  };
  if (since !== undefined || node.missing) return node;
  const path = new Map(above).set(destKey(d), false);
  const pressed = new Map([...path.keys()].map((k) => [k, true]));
  node.children = onwards(model, d).map(({ to, when, chosen }) => ({
    when,
    node: flowFrom(model, to, chosen ? pressed : path),
  }));
  return node;
}

/** Every inbound route's flow, in the model's order. */
export function callFlows(model: RoutingModel): CallFlow[] {
  return model.inbound.map((r) => ({ did: r.did, label: inboundLabel(r), root: flowFrom(model, r.to) }));
}

/**
 * The routing simulator: follows a call from the trunk through the inbound route FreePBX matches to the
 * phones that ring, explaining each step, over a routing model (the console's configuration or the PBX as
 * it is now). With `unanswered`, it follows every no-answer destination to where the call ends. The rules
 * are FreePBX's: an extension rings for its ring time, then its voicemail when it has one; a ring group
 * rings its members by its strategy, then its no-answer destination; a page group's phones answer by
 * themselves; a time condition (read from the PBX) follows its override, else its time group at the call's
 * instant in its zone (ADR 0058, 0059).
 */
import { DESTINATION_LABELS, type Destination, targetless } from "../../shared/destinations";
import { isExternalMember } from "../../shared/inventory";
import type { RoutingFinal, RoutingPath, RoutingStep } from "../../shared/routing";
import { OVERRIDE_LABELS, type OverrideState } from "../../shared/time-condition-states";
import { matchInbound } from "./dialplan";
import { type DestRef, type InboundEntry, destKey as key, type RoutingModel } from "./model";
import { instantText, ruleMatches } from "./time-match";

/** What the call needs from the simulation's input. */
export interface CallInput {
  did: string;
  callerId: string;
  digits: string;
  unanswered: boolean;
  /** When the call comes in (time conditions); now when left out. */
  at?: Date;
}

/** Where an override sends the call, whatever the time: true to its match destination; auto has none. */
const OVERRIDE_FORCES: Record<OverrideState, boolean | undefined> = {
  auto: undefined,
  open: true,
  "open-once": true,
  closed: false,
  "closed-once": false,
};

/** How FreePBX's ring strategies ring the members (its own help texts, shortened). */
const STRATEGY_WHY: Record<string, string> = {
  ringall: "rings every member at once",
  "ringall-prim": "rings every member at once, unless the first member is busy: then none ring",
  hunt: "rings the members one at a time, in order",
  "hunt-prim": "rings the members one at a time, unless the first member is busy: then none ring",
  memoryhunt: "rings the first member, then the first two, then the first three, and so on",
  "memoryhunt-prim": "rings the first member, then the first two, and so on, unless the first member is busy",
  firstavailable: "rings the first member that is free",
  firstnotonphone: "rings the first member not on a call",
  random: "rings the members one at a time, in random order",
};

/** How Asterisk's queue strategies ring the agents. */
const QUEUE_STRATEGY_WHY: Record<string, string> = {
  ringall: "rings every free agent at once",
  leastrecent: "rings the agent called least recently",
  fewestcalls: "rings the agent with the fewest calls taken",
  random: "rings a free agent at random",
  rrmemory: "rings the agents in turn, carrying on after the last one called",
  rrordered: "rings the agents in turn, in the listed order",
  linear: "rings the agents in the listed order, always from the first",
  wrandom: "rings an agent at random, weighted by penalty",
};

/** A destination as the console lists it: "Ring group 600 · Sales", "Voicemail 1001 · Alice", "Hang up". */
export function labelOf(model: RoutingModel, d: DestRef): string {
  if (d.kind === "other") return d.target ? `FreePBX destination ${d.target}` : "No destination";
  const kind = DESTINATION_LABELS[d.kind];
  const head = kind.charAt(0).toUpperCase() + kind.slice(1);
  if (targetless(d.kind)) return head;
  const name = nameOf(model, d);
  return name ? `${head} ${d.target} · ${name}` : `${head} ${d.target}`;
}

function nameOf(model: RoutingModel, d: Destination): string | undefined {
  switch (d.kind) {
    case "extension":
    case "voicemail":
      return model.extensions.get(d.target)?.name;
    case "ring-group":
      return model.ringGroups.get(d.target)?.name;
    case "queue":
      return model.queues.get(d.target)?.name;
    case "page-group":
      return model.pageGroups.get(d.target)?.name;
    case "time-condition":
      return model.timeConditions?.get(d.target)?.name;
    case "ivr":
      return model.ivrs.get(d.target)?.name;
    case "announcement":
      return model.announcements.get(d.target)?.name;
    default:
      return undefined;
  }
}

/**
 * Where a call can go on to from `d`, and when (a ring group's no-answer…): the routing graph's edges. `chosen`:
 * the caller picks the edge (an IVR's key), so a cycle through it is the caller's going back, not a loop.
 */
export function onwards(model: RoutingModel, d: DestRef): { to: DestRef; when: string; chosen?: true }[] {
  switch (d.kind) {
    case "extension": {
      const e = model.extensions.get(d.target);
      return e?.voicemail ? [{ to: { kind: "voicemail", target: d.target }, when: "No answer" }] : [];
    }
    case "ring-group": {
      const g = model.ringGroups.get(d.target);
      return g?.noAnswer ? [{ to: g.noAnswer, when: `No answer after ${g.ringTime} s` }] : [];
    }
    case "queue": {
      // A timeout destination counts even without a max wait: one setting away from being taken.
      const q = model.queues.get(d.target);
      if (!q?.timeout) return [];
      return [{ to: q.timeout, when: q.maxWait ? `After ${q.maxWait} s waiting` : "Never (no max wait set)" }];
    }
    case "ivr": {
      const i = model.ivrs.get(d.target);
      if (!i) return [];
      return [
        ...i.options.map((o) => ({ to: o.to, when: `Key ${o.digits}`, chosen: true as const })),
        ...(i.invalid ? [{ to: i.invalid, when: "Wrong key" }] : []),
        ...(i.noKey ? [{ to: i.noKey, when: "No key" }] : []),
      ];
    }
    case "announcement": {
      const a = model.announcements.get(d.target);
      return a?.after ? [{ to: a.after, when: "After playing" }] : [];
    }
    case "time-condition": {
      const t = model.timeConditions?.get(d.target);
      if (!t) return [];
      return [
        ...(t.match ? [{ to: t.match, when: "In its hours" }] : []),
        ...(t.noMatch ? [{ to: t.noMatch, when: "Outside its hours" }] : []),
      ];
    }
    default:
      return [];
  }
}

/** An inbound route as a step names it: "Inbound route 15550100 · Main line". */
export const inboundLabel = (route: InboundEntry): string =>
  [`Inbound route ${route.did || "any DID"}${route.cid ? ` / ${route.cid}` : ""}`, route.label]
    .filter(Boolean)
    .join(" · ");

/** Where the console's words say the objects are. */
const where = (model: RoutingModel) => (model.side === "pbx" ? "on the PBX" : "in the console");

/** Follows one call through `model`. */
export function simulate(model: RoutingModel, call: CallInput): RoutingPath {
  // A copy: the IVRs the call passes take the keys the caller presses from it, in order.
  const input = { ...call };
  const steps: RoutingStep[] = [];
  const didText = input.did || "no DID";
  const cidText = input.callerId ? ` from ${input.callerId}` : "";
  steps.push({
    kind: "trunk",
    target: input.did,
    label: input.did ? `Call to ${input.did}` : "Call without a DID",
    why: `A trunk delivers the call for ${didText}${cidText}; FreePBX looks for the inbound route of that DID and caller ID.`,
  });
  const specific = matchInbound(model.inbound, input.did, input.callerId);
  if (!specific && input.did && model.extensions.has(input.did)) {
    const to: DestRef = { kind: "extension", target: input.did };
    steps.push({
      kind: "inbound-route",
      target: input.did,
      label: "No inbound route: the DID is an extension's number",
      why: `No inbound route ${where(model)} matches ${input.did}${cidText}, and ${input.did} is an extension's number: FreePBX rings it directly (its from-did-direct context comes before the route for any DID).`,
    });
    return { steps, final: follow(model, to, input, steps, new Set()) };
  }
  const route = specific ?? matchInbound(model.inbound, input.did, input.callerId, "any");
  if (!route) {
    steps.push({
      kind: "inbound-route",
      target: input.did,
      label: "No inbound route",
      why: `No inbound route ${where(model)} matches ${didText}${cidText}, and there is none for any DID: FreePBX answers that the number is not in service and hangs up.`,
    });
    return { steps, final: { kind: "hangup", target: "", ringing: [] } };
  }
  const matched = [route.did ? `DID ${route.did}` : "any DID", route.cid ? `caller ID ${route.cid}` : ""]
    .filter(Boolean)
    .join(" and ");
  steps.push({
    kind: "inbound-route",
    target: route.did,
    label: inboundLabel(route),
    why: `The inbound route for ${matched} matches; it sends the call to ${labelOf(model, route.to)}.`,
  });
  const final = follow(model, route.to, input, steps, new Set());
  return { steps, final };
}

function follow(
  model: RoutingModel,
  d: DestRef,
  input: CallInput,
  steps: RoutingStep[],
  seen: Set<string>,
): RoutingFinal {
  const label = labelOf(model, d);
  if (seen.has(key(d))) {
    steps.push({
      kind: "loop",
      target: d.target,
      label,
      why: `The call comes back to ${label}: the flow is a loop, and the call goes round it until the caller hangs up.`,
    });
    return { kind: d.kind, target: d.target, ringing: [] };
  }
  seen.add(key(d));
  const step = (why: string) => steps.push({ kind: d.kind, target: d.target, label, why });
  const missing = () => {
    step(`${label} does not exist ${where(model)}: FreePBX plays that the number is not in service and hangs up.`);
    return { kind: "hangup", target: "", ringing: [] } satisfies RoutingFinal;
  };
  switch (d.kind) {
    case "other":
      step(
        d.target
          ? `A FreePBX destination the console does not model (${d.target}): the simulation stops here.`
          : "The route has no destination: FreePBX refuses to load it.",
      );
      return { kind: "other", target: d.target, ringing: [] };
    case "hangup":
      step("FreePBX hangs up the call.");
      return { kind: "hangup", target: "", ringing: [] };
    case "voicemail": {
      const e = model.extensions.get(d.target);
      if (!e) return missing();
      if (!e.voicemail) {
        step(`Extension ${d.target} has no voicemail box: FreePBX hangs up.`);
        return { kind: "hangup", target: "", ringing: [] };
      }
      step(`The caller hears ${d.target}'s "unavailable" greeting and leaves a message.`);
      return { kind: "voicemail", target: d.target, ringing: [] };
    }
    case "extension": {
      const e = model.extensions.get(d.target);
      if (!e) return missing();
      const then = e.voicemail ? "then the caller reaches its voicemail" : "then FreePBX hangs up (no voicemail box)";
      step(`Extension ${d.target} rings for its ring time; ${then}.`);
      if (!input.unanswered) return { kind: "extension", target: d.target, ringing: [d.target] };
      if (e.voicemail) return follow(model, { kind: "voicemail", target: d.target }, input, steps, seen);
      return { kind: "hangup", target: "", ringing: [] };
    }
    case "ring-group": {
      const g = model.ringGroups.get(d.target);
      if (!g) return missing();
      const ringing = g.members.filter((m) => !isExternalMember(m) && model.extensions.has(m));
      const outside = g.members.filter(isExternalMember).map((m) => m.slice(0, -1));
      const unknown = g.members.filter((m) => !isExternalMember(m) && !model.extensions.has(m));
      const parts = [
        `The group ${STRATEGY_WHY[g.strategy] ?? `rings its members (strategy ${g.strategy})`} for ${g.ringTime} s`,
        ringing.length ? `: extensions ${ringing.join(", ")}` : ": no extension",
        outside.length ? `, and the outside number${outside.length > 1 ? "s" : ""} ${outside.join(", ")}` : "",
        unknown.length ? ` (${unknown.join(", ")} ${unknown.length > 1 ? "are" : "is"} not an extension)` : "",
        g.noAnswer
          ? `; unanswered, the call goes to ${labelOf(model, g.noAnswer)}.`
          : "; unanswered, FreePBX hangs up.",
      ];
      step(parts.join(""));
      if (!input.unanswered) return { kind: "ring-group", target: d.target, ringing };
      if (g.noAnswer) return follow(model, g.noAnswer, input, steps, seen);
      return { kind: "hangup", target: "", ringing: [] };
    }
    case "queue": {
      const q = model.queues.get(d.target);
      if (!q) return missing();
      const ringing = q.agents.filter((a) => model.extensions.has(a));
      const how = QUEUE_STRATEGY_WHY[q.strategy] ?? `rings its agents (strategy ${q.strategy})`;
      const after =
        q.maxWait === 0
          ? "a caller waits until an agent answers"
          : q.timeout
            ? `after ${q.maxWait} s unanswered, the call goes to ${labelOf(model, q.timeout)}`
            : `after ${q.maxWait} s unanswered, FreePBX hangs up`;
      step(
        `The caller waits in the queue, which ${how}${ringing.length ? `: extensions ${ringing.join(", ")}` : ": no agent"}; ${after}.`,
      );
      if (!input.unanswered) return { kind: "queue", target: d.target, ringing };
      if (q.maxWait === 0) return { kind: "queue", target: d.target, ringing: [] };
      if (q.timeout) return follow(model, q.timeout, input, steps, seen);
      return { kind: "hangup", target: "", ringing: [] };
    }
    case "page-group": {
      const p = model.pageGroups.get(d.target);
      if (!p) return missing();
      step(
        p.members.length
          ? `The phones of extensions ${p.members.join(", ")} answer by themselves and the caller speaks on their speakers.`
          : "The page group has no members: nobody hears the caller.",
      );
      return { kind: "page-group", target: d.target, ringing: [...p.members] };
    }
    case "ivr": {
      const i = model.ivrs.get(d.target);
      if (!i) return missing();
      const greeting = i.greeting ? `plays its greeting (recording ${i.greeting})` : "answers without a greeting";
      const pressed = input.digits;
      // Asterisk takes the option the keys spell exactly; the longest one that the pressed keys begin with.
      const option = [...i.options]
        .sort((a, b) => b.digits.length - a.digits.length)
        .find((o) => pressed.startsWith(o.digits));
      const tries = i.retries ? ` (after ${i.retries} more tr${i.retries === 1 ? "y" : "ies"})` : "";
      if (option) {
        input.digits = pressed.slice(option.digits.length);
        step(`The IVR ${greeting}; the caller presses ${option.digits}, which goes to ${labelOf(model, option.to)}.`);
        // A key is the caller's choice: coming back to a menu by one ("0: main menu") is not a loop.
        return follow(model, option.to, input, steps, new Set());
      }
      const next = pressed ? i.invalid : i.noKey;
      const what = pressed
        ? `the caller presses ${pressed}, which is not an option${tries}`
        : `the caller presses no key within ${i.timeout} s${tries}`;
      input.digits = "";
      step(
        `The IVR ${greeting}; ${what}: the call goes to ${next ? labelOf(model, next) : "no destination, and FreePBX hangs up"}.`,
      );
      if (!next) return { kind: "hangup", target: "", ringing: [] };
      return follow(model, next, input, steps, seen);
    }
    case "announcement": {
      const a = model.announcements.get(d.target);
      if (!a) return missing();
      const plays = a.recording ? `The caller hears recording ${a.recording}` : "The announcement has no recording";
      const skip = a.allowSkip ? " (a key skips it)" : "";
      step(
        `${plays}${skip}; then the call goes to ${a.after ? labelOf(model, a.after) : "no destination, and FreePBX hangs up"}.`,
      );
      if (!a.after) return { kind: "hangup", target: "", ringing: [] };
      return follow(model, a.after, input, steps, seen);
    }
    case "time-condition": {
      if (!model.timeConditions) break;
      const tc = model.timeConditions.get(d.target);
      if (!tc) return missing();
      const forced = OVERRIDE_FORCES[tc.override];
      let matched: boolean;
      let why: string;
      if (forced !== undefined) {
        matched = forced;
        why = `It is ${OVERRIDE_LABELS[tc.override].toLowerCase()}: an override set from the console or a phone's toggle code, whatever the time.`;
      } else {
        const zone = tc.zone ?? model.zone ?? "UTC";
        const at = input.at ?? new Date();
        const rule = tc.group?.rules.find((r) => ruleMatches(r, at, zone));
        matched = rule !== undefined;
        const when = instantText(at, zone);
        why = !tc.group
          ? "It has no time group, so it never matches."
          : rule
            ? `At ${when} its time group ${tc.group.name} matches (${rule}).`
            : `At ${when} its time group ${tc.group.name} matches none of its rows (${tc.group.rules.join(", ") || "none"}).`;
      }
      const next = matched ? tc.match : tc.noMatch;
      step(`${why} The call goes to ${next ? labelOf(model, next) : "no destination"}.`);
      if (!next) return { kind: "hangup", target: "", ringing: [] };
      return follow(model, next, input, steps, seen);
    }
    default:
      break;
  }
  const what = DESTINATION_LABELS[d.kind];
  step(
    d.kind === "time-condition"
      ? `Time conditions are read from the PBX: compare with the PBX to follow ${what} ${d.target} at the call's time.`
      : `The console does not model FreePBX's ${what}s yet: the simulation stops at ${what} ${d.target}.`,
  );
  return { kind: d.kind, target: d.target, ringing: [] };
}

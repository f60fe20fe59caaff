/**
 * The objects a call passes through, in one shape whichever side they come from: the console's
 * configuration (its database) or the PBX as it is now (FreePBX's tables, read over SSH). The simulator,
 * the loop check and the destination list read this shape only, so each rule of where a call goes is
 * written once (ADR 0058).
 */
import { asc, eq, sql } from "drizzle-orm";
import {
  announcements,
  extensions,
  inboundRoutes,
  ivrs,
  pttGroups,
  queues,
  ringGroups,
  timeConditions,
  timeGroups,
} from "../../db/schema";
import { DIGITS_RE, type Holiday, holidayRow, type WeeklyHours, weeklyRow } from "../../shared/call-flow";
import { type Destination, parseDestination } from "../../shared/destinations";
import type { RingStrategy } from "../../shared/inventory";
import type { OverrideState } from "../../shared/time-condition-states";
import type { DbOrTx } from "../inventory/numbers";
import { knownZone } from "./time-match";

/** A destination as stored: one the console models, or FreePBX's raw string (a custom destination…). */
export type DestRef = Destination | { kind: "other"; target: string };

export interface InboundEntry {
  /** FreePBX's `incoming.extension`: the DID, a pattern (`_X.`), or empty for any DID. */
  did: string;
  /** `incoming.cidnum`: the caller ID it matches, or empty for any. */
  cid: string;
  label: string;
  to: DestRef;
}

export interface ExtensionEntry {
  name: string;
  voicemail: boolean;
}

export interface RingGroupEntry {
  name: string;
  strategy: RingStrategy | string;
  ringTime: number;
  /** Extension numbers and external numbers ending in `#`, in ring order. */
  members: string[];
  /** Null: FreePBX ends the unanswered call. */
  noAnswer: DestRef | null;
}

export interface QueueEntry {
  name: string;
  strategy: string;
  /** Static agents: extension numbers. */
  agents: string[];
  /** Seconds a caller waits before the timeout destination; 0: no limit. */
  maxWait: number;
  /** Null: FreePBX ends the call after the max wait. */
  timeout: DestRef | null;
}

/** A time condition: the console's (by its id), or FreePBX's as the PBX has it (by FreePBX's id; ADR 0059). */
export interface TimeConditionEntry {
  name: string;
  /** Its time group's name and rows (`08:00-17:00|mon-fri|*|*`); null without a time group: it never matches. */
  group: { name: string; rules: string[] } | null;
  /** The zone its rows are read in; null: the PBX's own. */
  zone: string | null;
  match: DestRef | null;
  noMatch: DestRef | null;
  override: OverrideState;
}

export interface IvrEntry {
  name: string;
  /** The greeting's system recording (FreePBX's id), or null: none. */
  greeting: string | null;
  /** Seconds it waits for a key after the greeting. */
  timeout: number;
  /** How often a wrong key or no key is met with the greeting again before its destination. */
  retries: number;
  options: { digits: string; to: DestRef }[];
  /** After the retries of a wrong key; null: FreePBX hangs up. */
  invalid: DestRef | null;
  /** After the retries of no key; null: FreePBX hangs up. */
  noKey: DestRef | null;
}

export interface AnnouncementEntry {
  name: string;
  /** The system recording (FreePBX's id), or null: none. */
  recording: string | null;
  allowSkip: boolean;
  /** Null: FreePBX hangs up after playing it. */
  after: DestRef | null;
}

export interface PageGroupEntry {
  name: string;
  members: string[];
}

/** Extensions by number: a map, or the console's database read one number at a time. */
export interface Lookup<T> {
  get(key: string): T | undefined;
  has(key: string): boolean;
}

export interface RoutingModel {
  /** Where the objects come from, for the words of a step ("on the PBX", "in the console"). */
  side: "console" | "pbx";
  inbound: InboundEntry[];
  extensions: Lookup<ExtensionEntry>;
  ringGroups: Map<string, RingGroupEntry>;
  queues: Map<string, QueueEntry>;
  pageGroups: Map<string, PageGroupEntry>;
  /** By the console's id on the console's side, by FreePBX's on the PBX's (ADR 0059). */
  ivrs: Map<string, IvrEntry>;
  announcements: Map<string, AnnouncementEntry>;
  /** Time conditions by id (the console's on its side, FreePBX's on the PBX's); null: the PBX's were not read. */
  timeConditions: Map<string, TimeConditionEntry> | null;
  /** The PBX host's time zone, what a time condition without one is read in; null when unknown (UTC then). */
  zone: string | null;
}

/** One destination's identity in a walk ("ring-group:600"). */
export const destKey = (d: DestRef): string => `${d.kind}:${d.target}`;

/** A FreePBX destination string as a reference (empty: none). */
export function refOf(value: string | null | undefined): DestRef | null {
  const text = (value ?? "").trim();
  if (!text) return null;
  return parseDestination(text) ?? { kind: "other", target: text };
}

/**
 * The console's extensions, each read by its number when a walk first asks for it: a call passes a handful
 * of the thousands a PBX may have, and reading them all would cost more than the walk.
 */
function extensionLookup(db: DbOrTx): Lookup<ExtensionEntry> {
  const cache = new Map<string, ExtensionEntry | null>();
  const byNumber = db
    .select({ name: extensions.name, voicemail: extensions.voicemail })
    .from(extensions)
    .where(eq(extensions.extension, sql.placeholder("n")))
    .prepare();
  const get = (n: string) => {
    let e = cache.get(n);
    if (e === undefined) {
      e = byNumber.get({ n }) ?? null;
      cache.set(n, e);
    }
    return e ?? undefined;
  };
  return { get, has: (n) => get(n) !== undefined };
}

/** The console's configuration: what the PBX routes once the pending plan is deployed. */
export function consoleModel(db: DbOrTx): RoutingModel {
  const model: RoutingModel = {
    side: "console",
    inbound: [],
    extensions: extensionLookup(db),
    ringGroups: new Map(),
    queues: new Map(),
    pageGroups: new Map(),
    ivrs: new Map(),
    announcements: new Map(),
    timeConditions: new Map(),
    zone: null,
  };
  const groups = new Map(
    db
      .select()
      .from(timeGroups)
      .all()
      .map((g) => [g.id, g]),
  );
  for (const t of db.select().from(timeConditions).all()) {
    const g = groups.get(t.timeGroupId);
    // The console does not know the override (the PBX's state): automatic, until the PBX is read (routing.ts).
    model.timeConditions?.set(String(t.id), {
      name: t.name,
      group: g
        ? {
            name: g.name,
            rules: [...(g.weekly as WeeklyHours[]).map(weeklyRow), ...(g.holidays as Holiday[]).map(holidayRow)],
          }
        : null,
      zone: t.timeZone,
      match: t.matchKind ? { kind: t.matchKind, target: t.matchTarget ?? "" } : null,
      noMatch: t.noMatchKind ? { kind: t.noMatchKind, target: t.noMatchTarget ?? "" } : null,
      override: "auto",
    });
  }
  for (const i of db.select().from(ivrs).all())
    model.ivrs.set(String(i.id), {
      name: i.name,
      greeting: i.greeting === null ? null : String(i.greeting),
      timeout: i.timeout,
      retries: i.retries,
      options: i.options.map((o) => ({ digits: o.digits, to: o.destination })),
      invalid: i.invalidKind ? { kind: i.invalidKind, target: i.invalidTarget ?? "" } : null,
      noKey: i.timeoutKind ? { kind: i.timeoutKind, target: i.timeoutTarget ?? "" } : null,
    });
  for (const a of db.select().from(announcements).all())
    model.announcements.set(String(a.id), {
      name: a.name,
      recording: a.recording === null ? null : String(a.recording),
      allowSkip: a.allowSkip,
      after: a.afterKind ? { kind: a.afterKind, target: a.afterTarget ?? "" } : null,
    });
  for (const g of db.select().from(ringGroups).all())
    model.ringGroups.set(g.number, {
      name: g.name,
      strategy: g.strategy,
      ringTime: g.ringTime,
      members: g.members,
      noAnswer: g.noAnswerKind ? { kind: g.noAnswerKind, target: g.noAnswerTarget ?? "" } : null,
    });
  for (const q of db.select().from(queues).all())
    model.queues.set(q.number, {
      name: q.name,
      strategy: q.strategy,
      agents: q.agents,
      maxWait: q.maxWait,
      timeout: q.timeoutKind ? { kind: q.timeoutKind, target: q.timeoutTarget ?? "" } : null,
    });
  for (const p of db.select().from(pttGroups).all())
    model.pageGroups.set(p.extension, { name: p.name, members: p.members });
  for (const r of db.select().from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all())
    model.inbound.push({
      did: r.didNumber ?? "",
      cid: "",
      label: r.description,
      to: { kind: r.destinationType, target: r.destination },
    });
  return model;
}

type Row = Record<string, string | null>;

/**
 * The PBX as it is now, from FreePBX's tables as the plan reads them (`users`, `incoming`, `ringgroups`,
 * `queues_config`, `queues_details`, `paging_config`, `paging_groups`, `ivr_details`, `ivr_entries`,
 * `announcement`).
 */
export function pbxModel(tables: Record<string, Row[]>): RoutingModel {
  const text = (v: string | null | undefined) => (v ?? "").trim();
  const users = new Map<string, ExtensionEntry>();
  for (const u of tables.users ?? []) {
    const vm = text(u.voicemail);
    users.set(text(u.extension), { name: text(u.name), voicemail: vm !== "" && vm !== "novm" });
  }
  const model: RoutingModel = {
    side: "pbx",
    inbound: [],
    extensions: users,
    ringGroups: new Map(),
    queues: new Map(),
    pageGroups: new Map(),
    ivrs: new Map(),
    announcements: new Map(),
    timeConditions: null,
    zone: null,
  };
  // Time conditions as the plan reads them (their override is read apart, with the simulator's `plan`).
  if (tables.timeconditions) {
    const rules = new Map<string, string[]>();
    for (const d of tables.timegroups_details ?? [])
      rules.set(text(d.timegroupid), [...(rules.get(text(d.timegroupid)) ?? []), text(d.time)]);
    const names = new Map((tables.timegroups_groups ?? []).map((g) => [text(g.id), text(g.description)]));
    model.timeConditions = new Map();
    for (const t of tables.timeconditions) {
      const gid = text(t.time);
      model.timeConditions.set(text(t.timeconditions_id), {
        name: text(t.displayname),
        group: names.has(gid) ? { name: names.get(gid) as string, rules: rules.get(gid) ?? [] } : null,
        zone: knownZone(text(t.timezone)) ? text(t.timezone) : null,
        match: refOf(t.truegoto),
        noMatch: refOf(t.falsegoto),
        override: "auto",
      });
    }
  }
  for (const i of tables.ivr_details ?? []) {
    const loops = (v: string | null | undefined) => Math.max(0, Number(text(v)) || 0);
    model.ivrs.set(text(i.id), {
      name: text(i.name),
      greeting: text(i.announcement) || null,
      timeout: Number(text(i.timeout_time)) || 0,
      retries: loops(i.invalid_loops),
      options: [],
      invalid: refOf(i.invalid_destination),
      noKey: refOf(i.timeout_destination),
    });
  }
  for (const e of tables.ivr_entries ?? []) {
    const to = refOf(e.dest);
    const digits = text(e.selection);
    // FreePBX's own `t` and `i` entries are its timeout and invalid handlers, not keys.
    if (to && DIGITS_RE.test(digits)) model.ivrs.get(text(e.ivr_id))?.options.push({ digits, to });
  }
  for (const a of tables.announcement ?? [])
    model.announcements.set(text(a.announcement_id), {
      name: text(a.description),
      recording: text(a.recording_id) || null,
      allowSkip: text(a.allow_skip) === "1",
      after: refOf(a.post_dest),
    });
  for (const g of tables.ringgroups ?? [])
    model.ringGroups.set(text(g.grpnum), {
      name: text(g.description),
      strategy: text(g.strategy),
      ringTime: Number(text(g.grptime)) || 0,
      members: text(g.grplist)
        .split("-")
        .map((m) => m.trim())
        .filter(Boolean),
      noAnswer: refOf(g.postdest),
    });
  for (const q of tables.queues_config ?? [])
    model.queues.set(text(q.extension), {
      name: text(q.descr),
      strategy: "",
      agents: [],
      // FreePBX keeps "no limit" as an empty max wait.
      maxWait: Number(text(q.maxwait)) || 0,
      timeout: refOf(q.dest),
    });
  for (const d of tables.queues_details ?? []) {
    const q = model.queues.get(text(d.id));
    if (!q) continue;
    if (d.keyword === "strategy") q.strategy = text(d.data);
    // A static agent as FreePBX writes it: `Local/1001@from-queue/n,0` (the penalty after the comma).
    const agent = d.keyword === "member" ? text(d.data).match(/^Local\/([^@]+)@/)?.[1] : undefined;
    if (agent) q.agents.push(agent);
  }
  for (const p of tables.paging_config ?? [])
    model.pageGroups.set(text(p.page_group), { name: text(p.description), members: [] });
  for (const m of tables.paging_groups ?? []) model.pageGroups.get(text(m.page_number))?.members.push(text(m.ext));
  for (const r of tables.incoming ?? []) {
    const to = refOf(r.destination);
    model.inbound.push({
      did: text(r.extension),
      cid: text(r.cidnum),
      label: text(r.description),
      to: to ?? { kind: "other", target: "" },
    });
  }
  return model;
}

/**
 * The hub's members (ADR 0076): added by URL and a REST API token made on that console, contacted once at
 * once (https only, its certificate's fingerprint pinned, the token tried on GET /api/fleet/self), stored
 * with the token sealed. Their live state is kept in memory per database (`memberStates`), written by the
 * poller (./poller.ts) and by the add itself.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { fleetMembers } from "../../db/schema";
import type { AddFleetMember, FleetMember, FleetSelf } from "../../shared/fleet";
import { FleetMemberError, memberRequest, readFingerprint } from "../clients/fleet-member";
import type { Deps } from "../core/deps";
import { Conflict, Invalid, NotFound } from "../core/errors";
import { parseId } from "../core/validate";

export type FleetDeps = Pick<Deps, "db" | "events" | "now" | "box">;
type Row = typeof fleetMembers.$inferSelect;

/** What the hub last learned of a member. */
export interface MemberState {
  reachable: boolean;
  self: FleetSelf | null;
  checkedAt: number | null;
  error: string | null;
  pinMismatch: boolean;
  /** The fingerprint presented instead of the pinned one (what a repin would accept). */
  presented: string | null;
}

const states = new WeakMap<Db, Map<number, MemberState>>();

/** The members' live states of this database's hub (empty until the first check). */
export function memberStates(db: Db): Map<number, MemberState> {
  let map = states.get(db);
  if (!map) {
    map = new Map();
    states.set(db, map);
  }
  return map;
}

/** Whether the self summary a member sent has the documented shape (enough of it to show). */
export function isFleetSelf(v: unknown): v is FleetSelf {
  const o = v as Partial<FleetSelf> | null;
  return (
    typeof o === "object" &&
    o !== null &&
    typeof o.name === "string" &&
    typeof o.version === "string" &&
    typeof o.pbx === "object" &&
    o.pbx !== null &&
    typeof o.alertsFiring === "number"
  );
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** A member's summary reduced to the documented fields (nothing else a member sends is passed on). */
export function cleanSelf(s: FleetSelf): FleetSelf {
  const reg = s.registrations;
  return {
    name: s.name.slice(0, 100),
    version: s.version.slice(0, 50),
    pbx: {
      reachable: typeof s.pbx.reachable === "boolean" ? s.pbx.reachable : null,
      ami: typeof s.pbx.ami === "string" ? s.pbx.ami.slice(0, 200) : "unknown",
    },
    registrations:
      reg && num(reg.registered) !== null && num(reg.total) !== null
        ? { registered: reg.registered, total: reg.total }
        : null,
    activeCalls: num(s.activeCalls),
    alertsFiring: s.alertsFiring,
    lastDeployAt: typeof s.lastDeployAt === "string" ? s.lastDeployAt.slice(0, 40) : null,
    backupAgeSeconds: num(s.backupAgeSeconds),
  };
}

function view(row: Row, state: MemberState | undefined): FleetMember {
  const self = state?.self ?? null;
  return {
    id: row.id,
    url: row.url,
    name: row.name,
    pin: row.pin,
    reachable: state?.reachable ?? false,
    version: self?.version ?? null,
    pbx: self?.pbx ?? null,
    registrations: self?.registrations ?? null,
    activeCalls: self?.activeCalls ?? null,
    alertsFiring: self?.alertsFiring ?? null,
    lastDeployAt: self?.lastDeployAt ?? null,
    backupAgeSeconds: self?.backupAgeSeconds ?? null,
    checkedAt: state?.checkedAt ? new Date(state.checkedAt).toISOString() : null,
    error: state?.error ?? (state ? null : "Not checked yet"),
    pinMismatch: state?.pinMismatch ?? false,
    presentedPin: state?.presented ?? null,
  };
}

export function listMembers(deps: Pick<Deps, "db">): FleetMember[] {
  const live = memberStates(deps.db);
  return deps.db
    .select()
    .from(fleetMembers)
    .orderBy(fleetMembers.name, fleetMembers.id)
    .all()
    .map((row) => view(row, live.get(row.id)));
}

/** The stored members with their tokens opened: only for the poller and the search, never for a list. */
export function memberTargets(
  deps: Pick<Deps, "db" | "box">,
): { id: number; url: string; name: string; pin: string; token: string }[] {
  return deps.db
    .select()
    .from(fleetMembers)
    .all()
    .map((row) => ({ id: row.id, url: row.url, name: row.name, pin: row.pin, token: deps.box.open(row.token) }));
}

function rowById(db: Db, rawId: string | number): Row {
  const id = typeof rawId === "number" ? rawId : parseId(rawId, "Fleet member");
  const row = db.select().from(fleetMembers).where(eq(fleetMembers.id, id)).get();
  if (!row) throw new NotFound("Fleet member");
  return row;
}

/**
 * Asks a member for its summary (its certificate checked against the pin first) and says what its state is
 * now; a failure keeps the last figures beside the error (`reachable: false` says they are old).
 */
export async function checkMember(
  deps: Pick<Deps, "db" | "now">,
  t: { id: number; url: string; pin: string; token: string },
  timeoutMs?: number,
): Promise<MemberState> {
  const at = deps.now();
  try {
    const answer = await memberRequest(t, { path: "/api/fleet/self", timeoutMs });
    if (isFleetSelf(answer.json))
      return {
        reachable: true,
        self: cleanSelf(answer.json),
        checkedAt: at,
        error: null,
        pinMismatch: false,
        presented: null,
      };
    return {
      reachable: false,
      self: null,
      checkedAt: at,
      error: "The member answered, but not with the fleet API's summary",
      pinMismatch: false,
      presented: null,
    };
  } catch (err) {
    const e = err instanceof FleetMemberError ? err : null;
    return {
      reachable: false,
      self: memberStates(deps.db).get(t.id)?.self ?? null,
      checkedAt: at,
      error: e?.message ?? "The check failed",
      pinMismatch: e?.reason === "pin",
      presented: e?.presented ?? null,
    };
  }
}

/** Publishes that the fleet's list changed (a member added, removed, repinned, or its state moved). */
export function publishFleet(deps: Pick<Deps, "events">, data: { id?: number; action: string }): void {
  deps.events.publish({ type: "fleet-updated", data });
}

/**
 * Adds a member: one contact (the certificate read and pinned, the token tried on GET /api/fleet/self);
 * a refusal names the field to fix. Nothing is stored unless that contact answered.
 */
export async function addMember(deps: FleetDeps, input: AddFleetMember): Promise<FleetMember> {
  if (deps.db.select({ id: fleetMembers.id }).from(fleetMembers).where(eq(fleetMembers.url, input.url)).get())
    throw new Conflict("This console is already a member", { url: "This console is already a member" });
  let answer: Awaited<ReturnType<typeof memberRequest>>;
  try {
    answer = await memberRequest({ url: input.url, pin: null, token: input.token }, { path: "/api/fleet/self" });
  } catch (err) {
    if (!(err instanceof FleetMemberError)) throw err;
    const field = err.reason === "auth" ? "token" : "url";
    throw new Invalid(`Could not add the member: ${err.message}`, { [field]: err.message });
  }
  if (!isFleetSelf(answer.json)) {
    const message = "The console answered, but not with the fleet API's summary: is it a pbx-console?";
    throw new Invalid(message, { url: message });
  }
  const self = cleanSelf(answer.json);
  const now = deps.now();
  const row = deps.db
    .insert(fleetMembers)
    .values({
      url: input.url,
      name: self.name || new URL(input.url).host,
      pin: answer.fingerprint,
      token: deps.box.seal(input.token),
      createdAt: new Date(now),
      updatedAt: new Date(now),
    })
    .returning()
    .get();
  memberStates(deps.db).set(row.id, {
    reachable: true,
    self,
    checkedAt: now,
    error: null,
    pinMismatch: false,
    presented: null,
  });
  publishFleet(deps, { id: row.id, action: "created" });
  return view(row, memberStates(deps.db).get(row.id));
}

export function removeMember(deps: Pick<Deps, "db" | "events">, id: string): void {
  const row = rowById(deps.db, id);
  deps.db.delete(fleetMembers).where(eq(fleetMembers.id, row.id)).run();
  memberStates(deps.db).delete(row.id);
  publishFleet(deps, { id: row.id, action: "deleted" });
}

/**
 * Accepts a member's changed certificate deliberately: the fingerprint the administrator was shown must be
 * the one the member presents now (read by a handshake; nothing is sent), and becomes the pin.
 */
export async function repinMember(deps: FleetDeps, id: string, fingerprint: string): Promise<FleetMember> {
  const row = rowById(deps.db, id);
  let seen: string;
  try {
    seen = await readFingerprint(row.url);
  } catch (err) {
    if (!(err instanceof FleetMemberError)) throw err;
    throw new Invalid(`Could not read the certificate: ${err.message}`);
  }
  if (seen !== fingerprint.trim().toUpperCase()) {
    const message = `The member presents another certificate now (${seen}): check it and repin with that one`;
    throw new Conflict(message, { fingerprint: message });
  }
  deps.db
    .update(fleetMembers)
    .set({ pin: seen, updatedAt: new Date(deps.now()) })
    .where(eq(fleetMembers.id, row.id))
    .run();
  // Its state with the new pin, now: the poller's next check then finds nothing new to publish.
  const state = await checkMember(deps, { id: row.id, url: row.url, pin: seen, token: deps.box.open(row.token) });
  if (memberPin(deps.db, row.id) === seen) memberStates(deps.db).set(row.id, state);
  publishFleet(deps, { id: row.id, action: "repinned" });
  return view({ ...row, pin: seen }, state);
}

/** A member's pin now, or null when it is no longer a member. */
export function memberPin(db: Db, id: number): string | null {
  return db.select({ pin: fleetMembers.pin }).from(fleetMembers).where(eq(fleetMembers.id, id)).get()?.pin ?? null;
}

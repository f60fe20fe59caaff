/**
 * Firewall actions in the attack view (ADR 0067): the configured jails' real state read from fail2ban, a
 * ban or unban of one address in a jail, and the console's trusted networks. A ban is refused (409) for the
 * address the administrator is using, loopback, this server's own addresses, and any address inside a
 * trusted network: the console's list or the jail's own `ignoreip`.
 */
import { networkInterfaces } from "node:os";
import type { SessionUser } from "../../shared/auth";
import type {
  FirewallActionResult,
  FirewallState,
  JailState,
  TrustedNetwork,
  TrustResult,
} from "../../shared/firewall";
import { type IpAddress, isLoopback, networkContains, parseIp, parseNetwork } from "../../shared/ip";
import { Fail2banClient, Fail2banError } from "../clients/fail2ban";
import { ServiceError } from "../clients/http";
import type { Deps } from "../core/deps";
import { Conflict, Invalid, NotFound, Unavailable } from "../core/errors";
import { MAX_TRUSTED, saveTrustedNetworks, trustedNetworks } from "./trusted";

type FirewallDeps = Pick<Deps, "db" | "events" | "now" | "config">;

const SERVICE = "fail2ban";

/** The client for the configured fail2ban (directly, or through the root helper). */
export const fail2banOf = (deps: Pick<Deps, "config">) => new Fail2banClient(deps.config.fail2ban);

/** A fail2ban failure as the domain's error: 503 when it is not there to ask, 409 for a jail it lacks. */
export function domainError(err: unknown): unknown {
  if (!(err instanceof Fail2banError)) return err;
  switch (err.kind) {
    case "not-installed":
    case "not-running":
    case "permission-denied":
    case "timeout":
      return new Unavailable(err.message);
    case "unknown-jail":
      return new Conflict(err.message, { jail: err.message });
    case "refused":
      return new Invalid(err.message);
    default:
      return new ServiceError(SERVICE, err.message);
  }
}

async function asked<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw domainError(err);
  }
}

/** This server's own addresses: every interface's, and HOST / SERVER_ADDRESS when they are addresses. */
function ownAddresses(deps: Pick<Deps, "config">): IpAddress[] {
  const texts = [deps.config.host, deps.config.serverAddress];
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) texts.push(i.address);
  return texts.map((t) => parseIp(t)).filter((ip): ip is IpAddress => ip !== null);
}

/** Why banning `address` is refused, or null: the caller's own, loopback, this server, a trusted network. */
function banRefusal(
  deps: Pick<Deps, "config">,
  address: IpAddress,
  callerIp: string | null,
  trusted: TrustedNetwork[],
  ignoreIp: string[],
  jail: string,
): string | null {
  const caller = callerIp ? parseIp(callerIp) : null;
  if (caller && caller.text === address.text) {
    return `${address.text} is the address you are using: banning it would lock you out of the console`;
  }
  if (isLoopback(address)) return `${address.text} is loopback: this server itself`;
  if (ownAddresses(deps).some((own) => own.text === address.text))
    return `${address.text} is this server's own address`;
  for (const t of trusted) {
    const net = parseNetwork(t.network);
    if (net && networkContains(net, address)) return `${address.text} is in the trusted network ${t.network}`;
  }
  for (const entry of ignoreIp) {
    // fail2ban also takes host names and DNS names in ignoreip; those cannot be checked here without a lookup.
    const net = parseNetwork(entry);
    if (net && networkContains(net, address)) {
      return `${address.text} is in fail2ban's ignoreip of the ${jail} jail (${entry}): fail2ban would not ban it`;
    }
  }
  return null;
}

/** A jail the console may act in: one of FAIL2BAN_JAILS. */
function configuredJail(deps: Pick<Deps, "config">, jail: string): string {
  if (!deps.config.fail2ban.jails.includes(jail)) {
    const message = `The console acts only in the jails of FAIL2BAN_JAILS (${deps.config.fail2ban.jails.join(", ")})`;
    throw new Invalid(message, { jail: message });
  }
  return jail;
}

/** The jail a ban goes to: the one named, else the first configured jail fail2ban runs. */
async function jailFor(deps: Pick<Deps, "config">, client: Fail2banClient, named: string | undefined): Promise<string> {
  if (named) return configuredJail(deps, named);
  const running = await asked(() => client.jails());
  const jail = deps.config.fail2ban.jails.find((j) => running.includes(j));
  if (!jail) {
    throw new Conflict(
      `None of the console's jails (${deps.config.fail2ban.jails.join(", ")}) runs in fail2ban; set FAIL2BAN_JAILS`,
    );
  }
  return jail;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The jails as fail2ban has them now, or why fail2ban cannot be asked. */
type JailsRead = Pick<FirewallState, "available" | "reason" | "jails">;

/**
 * The read in progress per fail2ban (its socket or helper): requests that arrive while one runs share it, so
 * however often the screen is opened, one set of fail2ban-client processes runs at a time. A write forgets it,
 * so a read asked for after a ban or a trust starts afresh.
 */
const readsInFlight = new Map<string, Promise<JailsRead>>();
const fail2banKey = (deps: Pick<Deps, "config">) => JSON.stringify(deps.config.fail2ban);
const forgetRead = (deps: Pick<Deps, "config">) => readsInFlight.delete(fail2banKey(deps));

async function readJails(deps: FirewallDeps): Promise<JailsRead> {
  const trusted = trustedNetworks(deps.db);
  const configured = deps.config.fail2ban.jails;
  const client = fail2banOf(deps);
  let running: string[];
  try {
    running = await client.jails();
  } catch (err) {
    const e = domainError(err);
    const reason = e instanceof Error ? e.message : String(e);
    const jails = configured.map(
      (name): JailState => ({ name, present: false, banned: [], ignoreIp: [], error: null }),
    );
    return { available: false, reason, jails };
  }
  const jails = await Promise.all(
    configured.map(async (name): Promise<JailState> => {
      if (!running.includes(name)) {
        return { name, present: false, banned: [], ignoreIp: [], error: `fail2ban has no jail "${name}"` };
      }
      try {
        const [bans, ignored] = await Promise.all([client.banned(name), client.ignored(name)]);
        const missing = trusted.filter((t) => !ignored.includes(t.network)).map((t) => t.network);
        for (const network of missing) {
          await client.trust(name, network);
          ignored.push(network);
        }
        return {
          name,
          present: true,
          banned: bans.map((b) => ({ address: b.address, bannedAt: iso(b.bannedAt), expiresAt: iso(b.expiresAt) })),
          ignoreIp: ignored,
          error: null,
        };
      } catch (err) {
        const e = domainError(err);
        return { name, present: true, banned: [], ignoreIp: [], error: e instanceof Error ? e.message : String(e) };
      }
    }),
  );
  return { available: true, reason: null, jails };
}

/**
 * The configured jails as fail2ban has them (bans with their times, ignoreip), the console's trusted list,
 * and the caller's address. A trusted network missing from a jail's ignoreip (fail2ban restarted) is put back.
 */
export async function firewallState(deps: FirewallDeps, callerIp: string | null): Promise<FirewallState> {
  const key = fail2banKey(deps);
  let read = readsInFlight.get(key);
  if (!read) {
    read = readJails(deps).finally(() => {
      if (readsInFlight.get(key) === read) readsInFlight.delete(key);
    });
    readsInFlight.set(key, read);
  }
  const { available, reason, jails } = await read;
  const yourAddress = callerIp ? (parseIp(callerIp)?.text ?? callerIp) : null;
  const defaultJail = available ? (jails.find((j) => j.present)?.name ?? null) : null;
  return { available, reason, jails, defaultJail, trusted: trustedNetworks(deps.db), yourAddress };
}

/** Bans `address` in the named jail (or the default one) unless it is refused (see `banRefusal`). */
export async function banAddress(
  deps: FirewallDeps,
  input: { address: string; jail?: string },
  callerIp: string | null,
): Promise<FirewallActionResult> {
  const address = parseIp(input.address);
  if (!address) throw new Invalid("Not an IP address", { address: "Not an IP address" });
  const client = fail2banOf(deps);
  // What the console knows itself first, then the jail's own ignoreip.
  const trusted = trustedNetworks(deps.db);
  let refusal = banRefusal(deps, address, callerIp, trusted, [], "");
  if (refusal) throw new Conflict(refusal, { address: refusal });
  const jail = await jailFor(deps, client, input.jail);
  const ignoreIp = await asked(() => client.ignored(jail));
  refusal = banRefusal(deps, address, callerIp, trusted, ignoreIp, jail);
  if (refusal) throw new Conflict(refusal, { address: refusal });
  const changed = await asked(() => client.ban(jail, address.text));
  forgetRead(deps);
  deps.events.publish({ type: "firewall-updated", data: { action: "ban", address: address.text, jail } });
  return { id: address.text, jail, changed };
}

/** Unbans `address` in the named jail, or in every configured jail that has it banned. */
export async function unbanAddress(
  deps: FirewallDeps,
  input: { address: string; jail?: string },
): Promise<FirewallActionResult> {
  const address = parseIp(input.address);
  if (!address) throw new Invalid("Not an IP address", { address: "Not an IP address" });
  const client = fail2banOf(deps);
  let jails: string[];
  if (input.jail) jails = [configuredJail(deps, input.jail)];
  else {
    const running = await asked(() => client.jails());
    jails = deps.config.fail2ban.jails.filter((j) => running.includes(j));
  }
  let changed = false;
  const from: string[] = [];
  for (const jail of jails) {
    if (await asked(() => client.unban(jail, address.text))) {
      changed = true;
      from.push(jail);
    }
  }
  if (!changed && input.jail === undefined && jails.length === 0) {
    throw new Conflict(`None of the console's jails (${deps.config.fail2ban.jails.join(", ")}) runs in fail2ban`);
  }
  forgetRead(deps);
  deps.events.publish({ type: "firewall-updated", data: { action: "unban", address: address.text } });
  return { id: address.text, jail: (from.length ? from : jails).join(", "), changed };
}

/** Puts `network` into every present configured jail's ignoreip; the jails it could not reach. */
async function applyEverywhere(
  deps: FirewallDeps,
  op: "trust" | "untrust",
  network: string,
): Promise<{ notApplied: string[] }> {
  const client = fail2banOf(deps);
  const configured = deps.config.fail2ban.jails;
  let running: string[];
  try {
    running = await client.jails();
  } catch {
    return { notApplied: configured };
  }
  const notApplied: string[] = [];
  for (const jail of configured) {
    if (!running.includes(jail)) continue;
    try {
      await (op === "trust" ? client.trust(jail, network) : client.untrust(jail, network));
    } catch {
      notApplied.push(jail);
    }
  }
  return { notApplied };
}

/**
 * Trusts a network: kept in the console's list (a ban inside it is refused from now on) and added to each
 * jail's ignoreip. Trusting it again changes its note. fail2ban not answering does not lose the decision:
 * the jails it did not reach are named and get it when the console next reads them.
 */
export async function trustNetwork(
  deps: FirewallDeps,
  input: { network: string; note?: string },
  user: Pick<SessionUser, "username">,
): Promise<TrustResult> {
  const net = parseNetwork(input.network);
  if (!net) throw new Invalid("Not a network", { network: "Not a network" });
  const list = trustedNetworks(deps.db);
  const at = new Date(deps.now());
  const existing = list.find((t) => t.network === net.text);
  if (existing) existing.note = input.note ?? existing.note;
  else {
    if (list.length >= MAX_TRUSTED) {
      throw new Conflict(`At most ${MAX_TRUSTED} trusted networks: remove one first`, {
        network: `At most ${MAX_TRUSTED} trusted networks`,
      });
    }
    list.push({ network: net.text, note: input.note ?? "", addedAt: at.toISOString(), addedBy: user.username });
  }
  saveTrustedNetworks(deps.db, list, at);
  const { notApplied } = await applyEverywhere(deps, "trust", net.text);
  forgetRead(deps);
  deps.events.publish({ type: "firewall-updated", data: { action: "trust", network: net.text } });
  return { id: net.text, trusted: list, notApplied };
}

/** Stops trusting a network of the console's list (404 for one it does not have) and removes it from ignoreip. */
export async function untrustNetwork(deps: FirewallDeps, network: string): Promise<TrustResult> {
  const net = parseNetwork(network);
  if (!net) throw new Invalid("Not a network", { network: "Not a network" });
  const list = trustedNetworks(deps.db);
  const kept = list.filter((t) => t.network !== net.text);
  if (kept.length === list.length)
    throw new NotFound("Trusted network", `${net.text} is not a trusted network of the console`);
  saveTrustedNetworks(deps.db, kept, new Date(deps.now()));
  const { notApplied } = await applyEverywhere(deps, "untrust", net.text);
  forgetRead(deps);
  deps.events.publish({ type: "firewall-updated", data: { action: "untrust", network: net.text } });
  return { id: net.text, trusted: kept, notApplied };
}

/** The audit's view of a trusted network (by the request's network), null when the console does not have it. */
export function trustedEntry(deps: Pick<Deps, "db">, network: unknown): (TrustedNetwork & { id: string }) | null {
  const net = typeof network === "string" ? parseNetwork(network) : null;
  const entry = net ? trustedNetworks(deps.db).find((t) => t.network === net.text) : undefined;
  return entry ? { id: entry.network, ...entry } : null;
}

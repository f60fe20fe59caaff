/**
 * The PBX's endpoints as AMI reports them: device states, contacts (registered phones, a trunk's
 * qualified contacts) and outbound (trunk) registrations. Built from the three lists after each login,
 * then kept current by `DeviceStateChange`, `ContactStatus` and `Registry` events. Bounded: at most
 * `maxEndpoints` endpoints, `maxContacts` contacts per endpoint and `maxEndpoints` registrations.
 * ADR 0027.
 */
import type { DeviceState, ExtensionLive, LiveContact, TrunkLive, TrunkRegistration } from "../../shared/live";
import { byNumber } from "../../shared/sort";
import type { AmiMessage } from "../clients/ami";

/** `DeviceState` of `EndpointList` (text) and `State` of `DeviceStateChange` (constant), in the console's words. */
export function deviceStateOf(value: string | undefined): DeviceState {
  const v = (value ?? "")
    .trim()
    .toUpperCase()
    .replace(/[\s_+-]/g, "");
  switch (v) {
    case "NOTINUSE":
      return "idle";
    case "INUSE":
      return "in-use";
    case "BUSY":
      return "busy";
    case "RINGING":
    case "RINGINUSE":
      return "ringing";
    case "ONHOLD":
      return "on-hold";
    case "UNAVAILABLE":
      return "unavailable";
    default:
      return "unknown";
  }
}

/** `Status` of `OutboundRegistrationDetail` and of the `Registry` event. */
export function registrationOf(value: string | undefined): TrunkRegistration {
  switch ((value ?? "").trim().toLowerCase()) {
    case "registered":
      return "registered";
    case "unregistered":
      return "unregistered";
    case "rejected":
      return "rejected";
    case "failed":
      return "failed";
    default:
      return "unknown";
  }
}

/** `Status` of `ContactList` (and `ContactStatus: Reachable/Unreachable`). */
function contactStatusOf(value: string | undefined): LiveContact["status"] {
  switch ((value ?? "").trim().toLowerCase()) {
    case "reachable":
    case "avail":
      return "reachable";
    case "unreachable":
    case "unavail":
      return "unreachable";
    case "nonqualified":
    case "non_qualified":
    case "unqualified":
      return "unqualified";
    default:
      return "unknown";
  }
}

/** A `PJSIP/<name>` device (DeviceStateChange) → `<name>`; null for other technologies and odd names. */
export function pjsipDevice(device: string | undefined): string | null {
  const m = /^PJSIP\/([^/\s]{1,150})$/i.exec(device ?? "");
  return m ? (m[1] as string) : null;
}

const ENDPOINT_NAME = /^[^\s/;]{1,150}$/;
const clip = (v: string | undefined, max = 300) => (v ?? "").slice(0, max);
const orNull = (v: string | undefined) => {
  const t = clip(v).trim();
  return t === "" || t === "<unknown>" ? null : t;
};

function roundtripMs(usec: string | undefined): number | null {
  const n = Number(usec);
  return Number.isFinite(n) && n > 0 ? Math.round(n / 100) / 10 : null;
}

function expiresAt(epochSeconds: string | undefined): string | null {
  const n = Number(epochSeconds);
  return Number.isFinite(n) && n > 0 && n < 1e11 ? new Date(n * 1000).toISOString() : null;
}

/** `ViaAddr` (with `ViaPort` when the address has none). */
function viaAddress(addr: string | undefined, port: string | undefined): string | null {
  const a = orNull(addr);
  if (!a) return null;
  const p = orNull(port);
  const hasPort = /^\[.*\]:\d+$/.test(a) || /^[^:]+:\d+$/.test(a);
  return p && p !== "0" && !hasPort ? (a.includes(":") ? `[${a}]:${p}` : `${a}:${p}`) : a;
}

/** An endpoint is a trunk when it has an outbound registration, is a trunk in the console, or its name is not all digits. */
function isTrunk(name: string, consoleTrunks: ReadonlySet<string>, registering: ReadonlySet<string>): boolean {
  return !/^\d+$/.test(name) || consoleTrunks.has(name) || registering.has(name);
}

interface Registration {
  /** The registration's name (FreePBX: the trunk's). */
  name: string;
  /** The endpoint it belongs to (`Endpoint`, else the registration's name). */
  endpoint: string;
  clientUri: string;
  serverUri: string;
  status: TrunkRegistration;
}

export interface EndpointLimits {
  maxEndpoints: number;
  maxContacts: number;
}

export class EndpointState {
  private endpoints = new Map<string, DeviceState>();
  /** AOR → endpoint (from `EndpointList`'s `Aor`/`Aors`), to place a contact that names only its AOR. */
  private aors = new Map<string, string>();
  /** endpoint → contact URI → contact. */
  private contacts = new Map<string, Map<string, LiveContact>>();
  private registrations = new Map<string, Registration>();

  constructor(private readonly limits: EndpointLimits) {}

  clear(): void {
    this.endpoints.clear();
    this.aors.clear();
    this.contacts.clear();
    this.registrations.clear();
  }

  /** Replaces everything with the lists read after a login. */
  load(endpointList: AmiMessage[], contactList: AmiMessage[], registrationList: AmiMessage[]): void {
    this.clear();
    for (const e of endpointList) {
      const name = e.objectname ?? "";
      if (!this.addEndpoint(name, deviceStateOf(e.devicestate))) continue;
      for (const aor of (e.aor ?? e.aors ?? "").split(",")) {
        const a = aor.trim();
        if (a && this.aors.size < this.limits.maxEndpoints) this.aors.set(a, name);
      }
    }
    for (const c of contactList) {
      const uri = c.uri ?? "";
      const aor = c.aor ?? (c.objectname ?? "").split(";@")[0];
      const endpoint = this.endpointOf(c.endpoint, aor);
      if (!endpoint || !uri) continue;
      this.putContact(endpoint, uri, {
        uri: clip(uri),
        status: contactStatusOf(c.status),
        address: viaAddress(c.viaaddr, c.viaport),
        userAgent: orNull(c.useragent),
        roundtripMs: roundtripMs(c.roundtripusec),
        // `ContactList` names the expiry `ExpirationTime` (the contact's own field); `RegExpire` is
        // `ContactStatusDetail`'s name for it.
        expiresAt: expiresAt(c.expirationtime ?? c.regexpire),
      });
    }
    this.loadRegistrations(registrationList);
  }

  /** Replaces the outbound registrations with a fresh `PJSIPShowRegistrationsOutbound` list. */
  loadRegistrations(registrationList: AmiMessage[]): void {
    this.registrations.clear();
    for (const r of registrationList) {
      const name = r.objectname ?? "";
      if (!ENDPOINT_NAME.test(name) || this.registrations.size >= this.limits.maxEndpoints) continue;
      const endpoint = r.endpoint && ENDPOINT_NAME.test(r.endpoint) ? r.endpoint : name;
      this.registrations.set(name, {
        name,
        endpoint,
        clientUri: clip(r.clienturi),
        serverUri: clip(r.serveruri),
        status: registrationOf(r.status),
      });
    }
  }

  /** Applies a `DeviceStateChange`, `ContactStatus` or `Registry` event; true when the view changed. */
  apply(e: AmiMessage): boolean {
    switch ((e.event ?? "").toLowerCase()) {
      case "devicestatechange": {
        const name = pjsipDevice(e.device);
        if (!name || !e.state) return false;
        const state = deviceStateOf(e.state);
        if (this.endpoints.get(name) === state) return false;
        return this.addEndpoint(name, state);
      }
      case "contactstatus":
        return this.contactStatus(e);
      case "registry":
        return this.registry(e);
      default:
        return false;
    }
  }

  /** The endpoints that are trunks: an outbound registration, a trunk in the console, or a name that is not all digits. */
  trunkNames(consoleTrunks: ReadonlySet<string>): Set<string> {
    const registered = this.registeringEndpoints();
    const out = new Set(registered);
    for (const name of this.endpoints.keys()) if (isTrunk(name, consoleTrunks, registered)) out.add(name);
    return out;
  }

  view(consoleTrunks: ReadonlySet<string>): { extensions: ExtensionLive[]; trunks: TrunkLive[] } {
    const extensions: ExtensionLive[] = [];
    const trunks: TrunkLive[] = [];
    const registrationOfEndpoint = new Map<string, TrunkRegistration>();
    for (const r of this.registrations.values()) registrationOfEndpoint.set(r.endpoint, r.status);
    const registered = new Set(registrationOfEndpoint.keys());
    const names = new Set([...this.endpoints.keys(), ...registered]);
    for (const name of names) {
      const contacts = [...(this.contacts.get(name)?.values() ?? [])].sort((a, b) => a.uri.localeCompare(b.uri));
      if (isTrunk(name, consoleTrunks, registered)) {
        const statuses = contacts.map((c) => c.status);
        trunks.push({
          name,
          registration: registrationOfEndpoint.get(name) ?? "not-registering",
          reachable: statuses.includes("reachable") ? true : statuses.includes("unreachable") ? false : null,
        });
      } else {
        extensions.push({
          extension: name,
          registered: contacts.length > 0,
          state: this.endpoints.get(name) ?? "unknown",
          contacts,
        });
      }
    }
    extensions.sort((a, b) => byNumber(a.extension, b.extension));
    trunks.sort((a, b) => byNumber(a.name, b.name));
    return { extensions, trunks };
  }

  private registeringEndpoints(): Set<string> {
    return new Set([...this.registrations.values()].map((r) => r.endpoint));
  }

  private addEndpoint(name: string, state: DeviceState): boolean {
    if (!ENDPOINT_NAME.test(name)) return false;
    if (!this.endpoints.has(name) && this.endpoints.size >= this.limits.maxEndpoints) return false;
    this.endpoints.set(name, state);
    return true;
  }

  /** The endpoint a contact belongs to: its `Endpoint`/`EndpointName` when known, else the endpoint of its AOR. */
  private endpointOf(endpoint: string | undefined, aor: string | undefined): string | null {
    if (endpoint && this.endpoints.has(endpoint)) return endpoint;
    const a = (aor ?? "").trim();
    const byAor = this.aors.get(a);
    if (byAor) return byAor;
    if (a && this.endpoints.has(a)) return a;
    const name = endpoint || a;
    return name && this.addEndpoint(name, this.endpoints.get(name) ?? "unknown") ? name : null;
  }

  private putContact(endpoint: string, uri: string, contact: LiveContact): boolean {
    let map = this.contacts.get(endpoint);
    if (!map) {
      map = new Map();
      this.contacts.set(endpoint, map);
    }
    if (!map.has(uri) && map.size >= this.limits.maxContacts) return false;
    map.set(uri, contact);
    return true;
  }

  private contactStatus(e: AmiMessage): boolean {
    const uri = e.uri ?? "";
    const endpoint = this.endpointOf(e.endpointname, e.aor);
    if (!uri || !endpoint) return false;
    const map = this.contacts.get(endpoint);
    const current = map?.get(uri);
    const change = (e.contactstatus ?? "").toLowerCase();
    if (change === "removed") {
      if (!map?.delete(uri)) return false;
      if (map.size === 0) this.contacts.delete(endpoint);
      return true;
    }
    const status =
      change === "reachable" || change === "unreachable"
        ? contactStatusOf(change)
        : change === "nonqualified"
          ? "unqualified"
          : (current?.status ?? "unknown");
    return this.putContact(endpoint, uri, {
      uri: clip(uri),
      status,
      address: viaAddress(e.viaaddress ?? e.viaaddr, e.viaport) ?? current?.address ?? null,
      userAgent: orNull(e.useragent) ?? current?.userAgent ?? null,
      roundtripMs: roundtripMs(e.roundtripusec) ?? (status === "reachable" ? (current?.roundtripMs ?? null) : null),
      expiresAt: expiresAt(e.regexpire) ?? current?.expiresAt ?? null,
    });
  }

  /**
   * The endpoint whose contact this `ContactStatus` event added or changed, when that contact's address is
   * not known yet: Asterisk's `ContactStatus` carries no `ViaAddress`, `UserAgent` or `RegExpire`, so the
   * caller reads the endpoint's `ContactStatusDetail`s (`PJSIPShowEndpoint`) and gives them to `contactDetails`.
   */
  contactNeedsDetail(e: AmiMessage): string | null {
    if ((e.event ?? "").toLowerCase() !== "contactstatus") return null;
    if ((e.contactstatus ?? "").toLowerCase() === "removed") return null;
    const endpoint = this.endpointOf(e.endpointname, e.aor);
    const contact = endpoint ? this.contacts.get(endpoint)?.get(e.uri ?? "") : undefined;
    return endpoint && contact && contact.address === null ? endpoint : null;
  }

  /** Completes known contacts with `ContactStatusDetail` items (address, user agent, expiry); true when one changed. */
  contactDetails(items: AmiMessage[]): boolean {
    let changed = false;
    for (const d of items) {
      if ((d.event ?? "").toLowerCase() !== "contactstatusdetail") continue;
      const endpoint = this.endpointOf(d.endpointname, d.aor);
      const contact = endpoint ? this.contacts.get(endpoint)?.get(d.uri ?? "") : undefined;
      if (!contact) continue;
      const address = viaAddress(d.viaaddress, d.viaport);
      if (address && address !== contact.address) {
        contact.address = address;
        changed = true;
      }
      const userAgent = orNull(d.useragent);
      if (userAgent && userAgent !== contact.userAgent) {
        contact.userAgent = clip(userAgent);
        changed = true;
      }
      const expires = expiresAt(d.regexpire);
      if (expires && expires !== contact.expiresAt) {
        contact.expiresAt = expires;
        changed = true;
      }
    }
    return changed;
  }

  /**
   * A PJSIP `Registry` event for a registration not read at login (a trunk added since): the caller
   * reads the registrations again, since the event carries only URIs.
   */
  isUnknownRegistry(e: AmiMessage): boolean {
    if ((e.event ?? "").toLowerCase() !== "registry") return false;
    if (e.channeltype && e.channeltype.toUpperCase() !== "PJSIP") return false;
    return this.registrationOf(e) === undefined;
  }

  private registrationOf(e: AmiMessage): Registration | undefined {
    const username = e.username ?? "";
    const domain = e.domain ?? "";
    const all = [...this.registrations.values()];
    return (
      all.find((r) => r.clientUri === username && r.serverUri === domain) ??
      all.find((r) => username !== "" && r.clientUri === username) ??
      all.find((r) => r.name === username || r.name === domain) ??
      (all.filter((r) => domain !== "" && r.serverUri === domain).length === 1
        ? all.find((r) => r.serverUri === domain)
        : undefined)
    );
  }

  /** `Registry` (outbound registration): `Username` is the client URI, `Domain` the server URI. */
  private registry(e: AmiMessage): boolean {
    if (e.channeltype && e.channeltype.toUpperCase() !== "PJSIP") return false;
    const reg = this.registrationOf(e);
    if (!reg) return false;
    const status = registrationOf(e.status);
    if (reg.status === status) return false;
    reg.status = status;
    return true;
  }
}

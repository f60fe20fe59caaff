/**
 * The Host allow-list (DNS-rebinding protection): the console answers only to the names it knows:
 * loopback, this machine's own addresses, the configured HOST/SERVER_ADDRESS and PUBLIC_HOSTNAMES.
 * A page on another site whose name was re-pointed at this machine sends its own name as `Host` and is
 * refused with 421 before anything else runs. Ports are ignored: the name is what a rebinding attacker
 * controls. ADR 0014.
 */
import { networkInterfaces } from "node:os";
import type { Config } from "../config";
import { type HeaderPolicy, setCommonHeaders } from "./headers";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "[::]", ""]);
/** How often, at most, a refused name makes the machine's addresses be read again (they can change). */
const REFRESH_MS = 10_000;

/** The name part of a `Host` value, lower-cased, without port or trailing dot; IPv6 keeps its brackets. Null if malformed. */
export function hostName(value: string): string | null {
  let v = value.trim().toLowerCase();
  let port = "";
  if (v.startsWith("[")) {
    const end = v.indexOf("]");
    if (end < 0) return null;
    port = v.slice(end + 1);
    v = v.slice(0, end + 1);
  } else if ((v.match(/:/g) ?? []).length > 1) {
    // A bare IPv6 address (only in configuration, never valid in a Host header).
    v = `[${v}]`;
  } else {
    const colon = v.indexOf(":");
    if (colon >= 0) {
      port = v.slice(colon);
      v = v.slice(0, colon);
    }
  }
  if (port !== "" && !/^:\d{1,5}$/.test(port)) return null;
  if (v.endsWith(".")) v = v.slice(0, -1);
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)$/.test(v)) return null;
  return v;
}

/** Whether the console is bound to loopback only (then nobody else can reach it; see the set-up code). */
export function isLoopbackHost(host: string): boolean {
  const name = hostName(host);
  return name === "localhost" || name === "[::1]" || (name !== null && /^127\.\d+\.\d+\.\d+$/.test(name));
}

function machineAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      out.push(a.family === "IPv6" ? `[${(a.address.split("%")[0] as string).toLowerCase()}]` : a.address);
    }
  }
  return out;
}

export class HostAllowList {
  private readonly fixed = new Set<string>();
  private machine = new Set<string>();
  private readAt = 0;

  constructor(
    config: Pick<Config, "host" | "serverAddress" | "publicHostnames">,
    private readonly now: () => number = Date.now,
    private readonly addresses: () => string[] = machineAddresses,
  ) {
    for (const name of [...LOOPBACK_NAMES, config.host, config.serverAddress, ...config.publicHostnames]) {
      const n = hostName(name);
      if (n !== null && !WILDCARDS.has(n)) this.fixed.add(n);
    }
    this.refresh();
  }

  private refresh() {
    this.machine = new Set(this.addresses().map((a) => hostName(a) ?? ""));
    this.readAt = this.now();
  }

  /** Whether a request carrying this `Host` header is for this console. */
  allows(host: string | null): boolean {
    if (host === null) return false;
    const name = hostName(host);
    if (name === null || WILDCARDS.has(name)) return false;
    if (this.fixed.has(name) || this.machine.has(name)) return true;
    if (this.now() - this.readAt < REFRESH_MS) return false;
    this.refresh();
    return this.machine.has(name);
  }
}

/**
 * Wraps every handler of a routes table with `guard` (the Host allow-list, ADR 0014) and the headers every
 * response carries. Handlers stay synchronous when they are (the /ws upgrade).
 */
// biome-ignore lint/suspicious/noExplicitAny: route values are Bun's union of handlers, bundles and responses.
export function guardRoutes<T extends Record<string, any>>(
  guard: (req: Request) => Response | null,
  policy: HeaderPolicy,
  routes: T,
): T {
  const headed = (res: Response | undefined) => {
    if (res) setCommonHeaders(res.headers, policy);
    return res;
  };
  // biome-ignore lint/suspicious/noExplicitAny: see above.
  const out: Record<string, any> = {};
  for (const [path, value] of Object.entries(routes)) {
    out[path] =
      typeof value === "function"
        ? (req: Request, srv: unknown) => {
            const refused = guard(req);
            if (refused) return refused;
            const res = value(req, srv);
            return res instanceof Promise ? res.then(headed) : headed(res);
          }
        : value;
  }
  return out as T;
}

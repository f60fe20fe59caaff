import type { Method, RouteDef } from "./context";

interface Compiled {
  route: RouteDef;
  segments: string[];
}

export type Match =
  | { kind: "found"; route: RouteDef; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: Method[] }
  | { kind: "not-found" };

/** A tiny path matcher for /api: exact segments and `:param` segments. */
export class ApiRouter {
  private compiled: Compiled[];

  constructor(routes: RouteDef[]) {
    this.compiled = routes.map((route) => ({ route, segments: split(route.path) }));
  }

  match(method: string, pathname: string): Match {
    const parts = split(pathname);
    const allow: Method[] = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (c.route.method === method || (method === "HEAD" && c.route.method === "GET")) {
        return { kind: "found", route: c.route, params };
      }
      allow.push(c.route.method);
    }
    return allow.length ? { kind: "method-not-allowed", allow } : { kind: "not-found" };
  }
}

const split = (path: string) => path.split("/").filter(Boolean);

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const v = parts[i] as string;
    if (p.startsWith(":")) {
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return null;
      }
    } else if (p !== v) return null;
  }
  return params;
}

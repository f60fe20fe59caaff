/**
 * Serving the web app (an HTML import) with the security headers. Bun serves an HTMLBundle from the routes
 * table with its own headers and offers no way to add ours (oven-sh/bun#19123, #17595), so:
 * - built ahead of time (the compiled binary: `page.files` is set), the page and its hashed assets are
 *   served from the embedded files by our own handlers;
 * - from source (`npm run dev`, `npm start`: Bun bundles on demand, with HMR in development), the bundle is
 *   mounted at an unguessable internal path and `/*` fetches it from this same server and adds the headers.
 * app.ts wraps these handlers with the Host allow-list like every other route. ADR 0014.
 */
import { basename } from "node:path";
import type { HTMLBundle, Server } from "bun";
import { fetchOwnPage } from "../clients/own-page";
import { type HeaderPolicy, setCommonHeaders, setPageHeaders } from "./headers";

// biome-ignore lint/suspicious/noExplicitAny: Bun's route value union differs per generic; the caller spreads it into `routes`.
type RouteTable = Record<string, any>;

const notModified = (req: Request, etag: string | undefined) =>
  etag !== undefined && req.headers.get("if-none-match") === etag;

function methodNotAllowed(policy: HeaderPolicy): Response {
  const res = new Response("Method not allowed\n", {
    status: 405,
    headers: { Allow: "GET, HEAD", "Content-Type": "text/plain;charset=utf-8" },
  });
  setCommonHeaders(res.headers, policy);
  return res;
}

/** The built page: the HTML and every asset served from the embedded files with our headers. */
function builtRoutes(page: HTMLBundle, files: NonNullable<HTMLBundle["files"]>, policy: HeaderPolicy): RouteTable {
  const routes: RouteTable = {};
  const entry = files.find((f) => f.loader === "html" && f.path === page.index);
  let html: Uint8Array<ArrayBuffer> | null = null;
  routes["/*"] = async (req: Request) => {
    if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed(policy);
    const headers = new Headers({ "Content-Type": entry?.headers["content-type"] ?? "text/html;charset=utf-8" });
    if (entry?.headers.etag) headers.set("ETag", entry.headers.etag);
    setPageHeaders(headers, policy, req.headers.get("host"));
    if (notModified(req, entry?.headers.etag)) return new Response(null, { status: 304, headers });
    html ??= await Bun.file(page.index).bytes();
    return new Response(html, { headers });
  };
  for (const file of files) {
    if (file.path === page.index) continue;
    routes[`/${basename(file.path)}`] = (req: Request) => {
      const headers = new Headers({ "Content-Type": file.headers["content-type"], ETag: file.headers.etag });
      setCommonHeaders(headers, policy);
      if (notModified(req, file.headers.etag)) return new Response(null, { status: 304, headers });
      return new Response(Bun.file(file.path), { headers });
    };
  }
  return routes;
}

/** The page bundled on demand by Bun (from source): mounted privately, fetched and re-headed by `/*`. */
function onDemandRoutes(page: HTMLBundle, policy: HeaderPolicy): RouteTable {
  const mount = `/__page-${crypto.randomUUID()}`;
  return {
    [mount]: page,
    "/*": async (req: Request, server: Server<unknown>) => {
      if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed(policy);
      const inner = await fetchOwnPage(server.url, mount);
      const headers = new Headers(inner.headers);
      setPageHeaders(headers, policy, req.headers.get("host"));
      return new Response(req.method === "HEAD" ? null : inner.body, { status: inner.status, headers });
    },
  };
}

/** The routes that serve the web app: `/*` (the page, for client-side routing) and its assets. */
export function pageRoutes(page: HTMLBundle, policy: HeaderPolicy): RouteTable {
  return page.files?.length ? builtRoutes(page, page.files, policy) : onDemandRoutes(page, policy);
}

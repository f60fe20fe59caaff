/**
 * Serving the web app (an HTML import) with the security headers. Bun serves an HTMLBundle from the routes
 * table with its own headers and offers no way to add ours (oven-sh/bun#19123, #17595), so:
 * - built ahead of time (the compiled binary: `page.files` is set), the page and its hashed assets are
 *   served from the embedded files by our own handlers;
 * - from source (`npm run dev`, `npm start`: Bun bundles on demand, with HMR in development), the bundle is
 *   mounted at an unguessable internal path and `/*` fetches it from this same server and adds the headers.
 * app.ts wraps these handlers with the Host allow-list like every other route. ADR 0014.
 * Built, the HTML is `no-cache`, the hashed assets are cached for a year, and text goes brotli or gzip by
 * Accept-Encoding with its own ETag per coding: the hashed assets' codings come from the copies the build
 * embedded next to them, anything else is compressed here once and kept in memory. ADR 0028.
 */
import { basename } from "node:path";
import type { HTMLBundle, Server } from "bun";
import { SCREEN_DATA } from "../../shared/screens";
import { fetchOwnPage } from "../clients/own-page";
import { type BuiltFile, CODING_SUFFIX, COMPILE_HINT, HASHED_NAME, servedBytes, TEXT_TYPE } from "./assets";
import { acceptedCodings, type Coding, compressBytes } from "./encoding";
import { type HeaderPolicy, setCommonHeaders, setPageHeaders } from "./headers";
import { type FirstScreen, ME_URL, type RenderFirstScreen, withFirstScreen } from "./prerender";

export { acceptedCodings, COMPILE_HINT };

// biome-ignore lint/suspicious/noExplicitAny: Bun's route value union differs per generic; the caller spreads it into `routes`.
type RouteTable = Record<string, any>;

const IMMUTABLE = "public, max-age=31536000, immutable";

interface Variant {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  coding?: Coding;
}

/** If-None-Match (a list, weak or strong: weak comparison) names this ETag. */
function notModified(req: Request, etag: string): boolean {
  const header = req.headers.get("if-none-match");
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

/** The coding of `id` made here, or null when it fails or would not be smaller. */
async function compressed(id: Variant, coding: Coding): Promise<Variant | null> {
  const body = await compressBytes(id.body, coding, "file");
  return body ? { body, coding, etag: tagged(id.etag, coding) } : null;
}

type Load = () => Promise<Uint8Array<ArrayBuffer>>;
/** The copies the build made of a file, by coding; a coding it did not make is not offered. */
type Copies = Partial<Record<Coding, Load>>;

/** The coding of `id` from the build's copy, or null when the build made none (it was not smaller). */
async function copied(id: Variant, coding: Coding, copy: Load | undefined): Promise<Variant | null> {
  if (!copy) return null;
  try {
    return { body: await copy(), coding, etag: tagged(id.etag, coding) };
  } catch {
    return compressed(id, coding); // a copy that cannot be read is made here: the client still gets it
  }
}

/**
 * One file's representations, each made once and kept in memory (ADR 0028). With the build's copies
 * (`copies`: the binary's hashed assets) every coding is ready at the first request, read from the
 * embedded copy. Without them (the page, a file the build did not compress) the codings are made here:
 * identity and gzip at the first request (off the event loop), brotli at quality 11 in the background
 * (far slower than gzip: no request waits for it; until it is ready a client that accepts gzip too gets
 * gzip). A coding that would not be smaller is not offered. ETags differ per coding.
 */
function representations(load: Load, bunEtag: string | undefined, text: boolean, copies?: Copies) {
  let identity: Promise<Variant> | undefined;
  const making = new Map<Coding, Promise<Variant | null>>();
  const made = new Map<Coding, Variant | null>();
  const make = (id: Variant, coding: Coding) => {
    let variant = making.get(coding);
    if (!variant) {
      variant = copies ? copied(id, coding, copies[coding]) : compressed(id, coding);
      variant.then((v) => made.set(coding, v));
      making.set(coding, variant);
    }
    return variant;
  };
  return async (acceptEncoding: string | null): Promise<Variant> => {
    identity ??= load().then((body) => ({ body, etag: quoted(bunEtag || Bun.hash(body).toString(36)) }));
    const id = await identity;
    if (!text) return id;
    if (!copies) for (const coding of CODINGS) make(id, coding); // brotli starts now, in the background
    for (const coding of acceptedCodings(acceptEncoding)) {
      // Brotli made here is not waited for: a client that accepts another coding gets that one meanwhile.
      const variant = copies || coding !== "br" ? await make(id, coding) : made.get(coding);
      if (variant) return variant;
    }
    return id;
  };
}

const CODINGS = ["gzip", "br"] as const satisfies readonly Coding[];

/** A strong ETag in quotes (Bun's own are bare). */
const quoted = (etag: string) => `"${etag.replace(/^W\//, "").replace(/"/g, "")}"`;
const tagged = (etag: string, coding: Coding) => `${etag.slice(0, -1)}-${coding === "br" ? "br" : "gz"}"`;

function methodNotAllowed(policy: HeaderPolicy): Response {
  const res = new Response("Method not allowed\n", {
    status: 405,
    headers: { Allow: "GET, HEAD", "Content-Type": "text/plain;charset=utf-8" },
  });
  setCommonHeaders(res.headers, policy);
  return res;
}

/**
 * Answers GET/HEAD for one embedded file: the representation the client accepts best, 304 to its own
 * ETag, HEAD with the same headers and no body. `setHeaders` adds the security and caching headers.
 */
function fileHandler(
  file: { path: string; headers: Record<string, string> },
  contentType: string,
  policy: HeaderPolicy,
  setHeaders: (headers: Headers, req: Request) => void,
  /** The body, when it is not the file as embedded (its ETag is then the body's hash). */
  load?: Load,
  copies?: Copies,
) {
  const text = TEXT_TYPE.test(contentType);
  const choose = load
    ? representations(load, undefined, text, copies)
    : representations(() => Bun.file(file.path).bytes(), file.headers.etag, text, copies);
  return async (req: Request) => {
    if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed(policy);
    const variant = await choose(req.headers.get("accept-encoding"));
    const headers = new Headers({ "Content-Type": contentType, ETag: variant.etag });
    if (text) headers.set("Vary", "Accept-Encoding");
    setHeaders(headers, req);
    if (notModified(req, variant.etag)) return new Response(null, { status: 304, headers });
    if (variant.coding) headers.set("Content-Encoding", variant.coding);
    headers.set("Content-Length", String(variant.body.byteLength));
    return new Response(req.method === "HEAD" ? null : variant.body, { headers });
  };
}

/** The chunks a module imports statically (`import … from "/chunk-x.js"`, `import "/chunk-x.js"`), not `import()`. */
export function staticChunkImports(code: string): string[] {
  return [
    ...new Set([...code.matchAll(/(?:\bfrom|\bimport)\s*["'](\/chunk-[a-z0-9]+\.js)["']/g)].map((m) => m[1] as string)),
  ];
}

/**
 * The page with a `<link rel="modulepreload">` for every chunk its scripts import statically, transitively:
 * Bun's HTML names only the entry, so the browser would find the shell's other chunks only once the entry
 * has arrived (one more round trip). The screens' chunks (dynamic imports) are not named: they load on
 * demand. ADR 0030.
 */
export async function withModulePreloads(
  html: string,
  read: (path: string) => Promise<string | null>,
  /** More modules to preload with their static imports: the chunk of the screen asked for. */
  screen: readonly string[] = [],
  /** Data the screen reads first (`<link rel="preload" as="fetch">`), so it does not wait for the scripts. */
  data: readonly string[] = [],
): Promise<string> {
  const entries = [...html.matchAll(/<script[^>]*\ssrc="(\/chunk-[a-z0-9]+\.js)"/g)].map((m) => m[1] as string);
  const seen = new Set(entries);
  const preload: string[] = [];
  const pending = [...entries];
  for (const path of screen) {
    if (seen.has(path)) continue;
    seen.add(path);
    preload.push(path);
    pending.push(path);
  }
  while (pending.length) {
    const code = await read(pending.shift() as string);
    for (const path of staticChunkImports(code ?? "")) {
      if (seen.has(path)) continue;
      seen.add(path);
      preload.push(path);
      pending.push(path);
    }
  }
  if (!preload.length && !data.length) return html;
  const links =
    preload.map((path) => `<link rel="modulepreload" crossorigin href="${path}">`).join("") +
    data.map((url) => `<link rel="preload" as="fetch" crossorigin="use-credentials" href="${url}">`).join("");
  return html.includes("</head>") ? html.replace("</head>", `${links}</head>`) : links + html;
}

/**
 * The screens' chunks by path, read from the built entry's route table, where each screen is
 * `…("/extensions",…(()=>import("/chunk-x.js"),"ExtensionsPage")…` (src/web/router.tsx). A build whose
 * table reads otherwise gives an empty map: pages then preload the shell only (test/smoke/chunks.test.ts
 * checks that every screen of the sidebar is found).
 */
export function screenChunks(entryCode: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of entryCode.matchAll(/"(\/[a-z0-9-]*)",[\w$]+\(\(\)=>import\("(\/chunk-[a-z0-9]+\.js)"\)/g)) {
    out.set(m[1] as string, m[2] as string);
  }
  return out;
}

/** A built script as sent: the compile hint, then the chunk (`servedBytes`). */
async function withCompileHint(path: string): Promise<Uint8Array<ArrayBuffer>> {
  return servedBytes(basename(path), await Bun.file(path).bytes());
}

/** The build's copies of an embedded file, next to it (`CODING_SUFFIX`); none when the build made none. */
function builtCopies(file: BuiltFile): Copies | undefined {
  if (!file.precompressed) return undefined;
  return Object.fromEntries(
    file.precompressed.map((coding) => [coding, () => Bun.file(file.path + CODING_SUFFIX[coding]).bytes()]),
  );
}

/**
 * A screen's page with the server's picture of it (ADR 0047): it holds the session's data, so it is kept by
 * this browser only and revalidated every time (`private, no-cache`, `Vary: Cookie`); its ETag is the hash
 * of what is sent, so an unchanged screen answers 304. Made once per picture (the renderer keeps the recent
 * ones) and coding, with the per-request settings of the API's JSON (ADR 0031).
 */
const picturePages = new WeakMap<FirstScreen, Map<string, Promise<Variant>>>();

function firstScreenVariant(page: string, screen: FirstScreen, coding: Coding | null): Promise<Variant> {
  let codings = picturePages.get(screen);
  if (!codings) {
    codings = new Map();
    picturePages.set(screen, codings);
  }
  const made = codings.get(coding ?? "identity");
  if (made) return made;
  const variant = (async (): Promise<Variant> => {
    const body = new TextEncoder().encode(withFirstScreen(page, screen));
    const etag = quoted(`p-${Bun.hash(body).toString(36)}`);
    const coded = coding ? await compressBytes(body, coding, "answer") : null;
    return coded && coding ? { body: coded, coding, etag: tagged(etag, coding) } : { body, etag };
  })();
  codings.set(coding ?? "identity", variant);
  return variant;
}

async function firstScreenPage(
  req: Request,
  page: string,
  screen: FirstScreen,
  contentType: string,
  policy: HeaderPolicy,
): Promise<Response> {
  const variant = await firstScreenVariant(
    page,
    screen,
    acceptedCodings(req.headers.get("accept-encoding"))[0] ?? null,
  );
  const headers = new Headers({ "Content-Type": contentType, ETag: variant.etag, Vary: "Accept-Encoding, Cookie" });
  setPageHeaders(headers, policy, req.headers.get("host"));
  headers.set("Cache-Control", "private, no-cache");
  if (notModified(req, variant.etag)) return new Response(null, { status: 304, headers });
  if (variant.coding) headers.set("Content-Encoding", variant.coding);
  headers.set("Content-Length", String(variant.body.byteLength));
  return new Response(variant.body, { headers });
}

/** The built page: the HTML and every asset served from the embedded files with our headers. ADR 0028, 0055. */
function builtRoutes(
  page: HTMLBundle,
  files: readonly BuiltFile[],
  policy: HeaderPolicy,
  render?: RenderFirstScreen,
): RouteTable {
  const routes: RouteTable = {};
  const entry = files.find((f) => f.loader === "html" && f.path === page.index);
  const contentType = entry?.headers["content-type"] ?? "text/html;charset=utf-8";
  const byName = new Map(files.map((f) => [`/${basename(f.path)}`, f.path]));
  const read = (name: string) => {
    const path = byName.get(name);
    return path ? Bun.file(path).text() : Promise.resolve(null);
  };
  const html = () => Bun.file(page.index).text();
  interface ScreenPage {
    source: () => Promise<string>;
    handler: (req: Request) => Promise<Response>;
  }
  const screenPage = (screen: readonly string[], data: readonly string[]): ScreenPage => {
    let text: Promise<string> | undefined;
    const source = () => {
      text ??= html().then((h) => withModulePreloads(h, read, screen, data));
      return text;
    };
    const handler = fileHandler(
      { path: page.index, headers: entry?.headers ?? {} },
      contentType,
      policy,
      (headers, req) => setPageHeaders(headers, policy, req.headers.get("host")), // Cache-Control: no-cache
      async () => new TextEncoder().encode(await source()),
    );
    return { source, handler };
  };
  // The page of a screen names that screen's chunks and first data too: they load beside the shell
  // instead of after it (ADR 0030). Any other path gets the page with the shell's chunks only.
  // Every page asks who is signed in first (the auth gate): its answer is preloaded with the page.
  const anyPath = screenPage([], [ME_URL]);
  const screens = (async () => {
    const source = await html();
    const entryPath = source.match(/<script[^>]*\ssrc="(\/chunk-[a-z0-9]+\.js)"/)?.[1];
    const chunks = screenChunks((entryPath && (await read(entryPath))) || "");
    return new Map(
      [...chunks].map(([path, chunk]) => [path, screenPage([chunk], [ME_URL, ...(SCREEN_DATA[path] ?? [])])]),
    );
  })();
  routes["/*"] = async (req: Request) => {
    const path = new URL(req.url).pathname;
    const known = (await screens).get(path);
    // A signed-in browser's screen page comes with the picture of the screen where there is one (ADR 0047).
    const picture = known && render ? await render(req, path) : null;
    if (known && picture) return firstScreenPage(req, await known.source(), picture, contentType, policy);
    return (known ?? anyPath).handler(req);
  };
  for (const file of files) {
    if (file.path === page.index) continue;
    const name = basename(file.path);
    routes[`/${name}`] = fileHandler(
      file,
      file.headers["content-type"] ?? "application/octet-stream",
      policy,
      (h) => {
        setCommonHeaders(h, policy);
        h.set("Cache-Control", HASHED_NAME.test(name) ? IMMUTABLE : "no-cache");
      },
      name.endsWith(".js") ? () => withCompileHint(file.path) : undefined,
      builtCopies(file),
    );
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
export function pageRoutes(page: HTMLBundle, policy: HeaderPolicy, render?: RenderFirstScreen): RouteTable {
  return page.files?.length ? builtRoutes(page, page.files, policy, render) : onDemandRoutes(page, policy);
}

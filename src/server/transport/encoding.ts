/**
 * Content codings of the HTTP edge: which codings a client accepts (used by the page's assets, ADR 0028,
 * and the API's JSON, ADR 0031), and compressing: fast for answers made per request, hard for files made once.
 */
import { isWholeJson } from "../http";
import { nodeZlib } from "../lazy-node";

export type Coding = "br" | "gzip";

/** The codings the client accepts, most wanted first (brotli before gzip at equal q); `q=0` refuses. */
export function acceptedCodings(header: string | null): readonly Coding[] {
  // A browser sends the same header on every request: parsed once (parsing it each time shows in a
  // CPU profile of a kept list under load). At most 32 values are kept: a client may vary it at will.
  const key = header ?? "";
  let codings = parsedCodings.get(key);
  if (!codings) {
    codings = Object.freeze(parseCodings(key));
    if (parsedCodings.size >= PARSED_CODINGS_MAX) parsedCodings.clear();
    parsedCodings.set(key, codings);
  }
  return codings;
}

const PARSED_CODINGS_MAX = 32;
const parsedCodings = new Map<string, readonly Coding[]>();

function parseCodings(header: string): Coding[] {
  const q = new Map<string, number>();
  for (const part of header.toLowerCase().split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim());
    if (!name) continue;
    const weight = params.find((p) => p.startsWith("q="));
    q.set(name, weight === undefined ? 1 : Number(weight.slice(2)) || 0);
  }
  const weight = (c: Coding) => q.get(c) ?? (c === "gzip" ? q.get("x-gzip") : undefined) ?? q.get("*") ?? 0;
  return (["br", "gzip"] as const).filter((c) => weight(c) > 0).sort((a, b) => weight(b) - weight(a));
}

/** JSON answers smaller than this go as they are: a coding would save a few hundred bytes at most. */
export const COMPRESS_MIN_BYTES = 1024;

/** How hard to compress: `answer` for bodies made per request, `file` for files compressed once and kept. */
export type Effort = "answer" | "file";

/**
 * `body` in `coding` on the thread pool, off the event loop; null when it fails or would not be smaller.
 * `answer` (JSON, and a page with its first screen's picture, ADR 0047): brotli quality 4 and gzip level 6,
 * a few milliseconds for the largest list, where quality 11 would take seconds (ADR 0031 has the figures).
 * `file` (the web app's hashed files, made once: by the build, ADR 0055, or at run time for a file the build
 * did not compress, ADR 0028): brotli 11 and gzip 9. node:zlib is loaded at the first call (ADR 0034).
 */
export async function compressBytes(
  body: Uint8Array,
  coding: Coding,
  effort: Effort,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const zlib = nodeZlib();
  try {
    const out = await new Promise<Buffer>((resolve, reject) => {
      const done = (err: Error | null, result: Buffer) => (err ? reject(err) : resolve(result));
      if (coding === "br") {
        const { constants } = zlib;
        const params = {
          [constants.BROTLI_PARAM_QUALITY]: effort === "file" ? 11 : 4,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
        };
        zlib.brotliCompress(body, { params }, done);
      } else zlib.gzip(body, { level: effort === "file" ? 9 : 6 }, done);
    });
    const coded = new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
    return coded.byteLength < body.byteLength ? coded : null;
  } catch {
    return null;
  }
}

/**
 * Whether a route's JSON answer may go compressed (ADR 0031): reads only, and not the reads that carry a
 * secret (`minRole: "operator"` on a GET: provisioning, QR code, generated configuration, a revealed SIP
 * password). A compressed answer that holds a secret next to text an attacker chose is what BREACH
 * measures; the session cookie is `SameSite=Strict`, so no other site can make the browser ask, but a
 * secret saves nothing worth that argument. Writes answer small bodies and sometimes a one-time secret
 * (a new API token, a TOTP enrolment): never compressed.
 */
export function compressible(route: { method: string; minRole?: string }): boolean {
  return route.method === "GET" && route.minRole !== "operator";
}

/**
 * An answer in the best coding the client accepts: a 200 made by `json()` (a whole body: a stream a handler
 * built itself is never read here) of at least `COMPRESS_MIN_BYTES`; anything else as it is.
 * `Vary: Accept-Encoding` on every such 200.
 */
export async function compressAnswer(res: Response, acceptEncoding: string | null, head: boolean): Promise<Response> {
  if (res.status !== 200 || !isWholeJson(res) || res.headers.has("Content-Encoding")) return res;
  res.headers.set("Vary", "Accept-Encoding");
  const codings = acceptedCodings(acceptEncoding);
  if (codings.length === 0) return res;
  const body = new Uint8Array(await res.arrayBuffer());
  const headers = new Headers(res.headers);
  let chosen: { coding: Coding; bytes: Uint8Array<ArrayBuffer> } | null = null;
  if (body.byteLength >= COMPRESS_MIN_BYTES) {
    for (const coding of codings) {
      const bytes = await compressBytes(body, coding, "answer");
      if (bytes) {
        chosen = { coding, bytes };
        break;
      }
    }
  }
  if (chosen) headers.set("Content-Encoding", chosen.coding);
  const out = chosen?.bytes ?? body;
  headers.set("Content-Length", String(out.byteLength));
  return new Response(head ? null : out, { status: 200, headers });
}
